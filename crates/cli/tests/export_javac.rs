//! Every export compiles against Flink 2.3.0's real jars: every preset, plus scenarios covering every
//! operator kind, partitioner, fault the export takes and chaining break.
//!
//! The jars come from `BARRIERLAB_FLINK_LIB` (a directory with flink-dist-2.3.0.jar), else PyFlink's
//! `/opt/flink-venv/lib/python3*/site-packages/pyflink/lib`. Without jars or `javac` the test fails
//! when `CI` is set (it must never pass silently there) and is skipped with a notice otherwise.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::barrierlab;

const DIST_JAR: &str = "flink-dist-2.3.0.jar";

fn flink_lib() -> Option<PathBuf> {
    if let Ok(dir) = std::env::var("BARRIERLAB_FLINK_LIB") {
        let dir = PathBuf::from(dir);
        return dir.join(DIST_JAR).is_file().then_some(dir);
    }
    let mut pythons: Vec<PathBuf> = std::fs::read_dir("/opt/flink-venv/lib")
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("python3"))
        })
        .collect();
    pythons.sort();
    pythons
        .into_iter()
        .map(|p| p.join("site-packages/pyflink/lib"))
        .find(|lib| lib.join(DIST_JAR).is_file())
}

fn javac_available() -> bool {
    Command::new("javac")
        .arg("-version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The jar directory, or `None` after printing why the test is skipped (never under CI).
fn toolchain() -> Option<PathBuf> {
    let lib = flink_lib();
    let javac = javac_available();
    if let (Some(lib), true) = (&lib, javac) {
        return Some(lib.clone());
    }
    let why = if javac {
        format!("no {DIST_JAR} (set BARRIERLAB_FLINK_LIB)")
    } else {
        "no javac on PATH".to_string()
    };
    if std::env::var_os("CI").is_some() {
        panic!("export_javac: {why}; CI must compile the exports");
    }
    eprintln!("export_javac: SKIPPED: {why}");
    None
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// (name, `barrierlab export` scenario arguments).
fn scenarios() -> Vec<(String, Vec<String>)> {
    let mut list: Vec<(String, Vec<String>)> = Vec::new();
    for (name, _) in barrierlab_engine::scenario::PRESETS {
        list.push((name.to_string(), vec!["--preset".into(), name.to_string()]));
    }
    let fixtures = repo_root().join("tests/fixtures/export");
    for name in ["all-kinds", "mixed-union"] {
        let file = fixtures.join(format!("{name}.json"));
        list.push((name.into(), vec![file.to_string_lossy().into_owned()]));
    }
    // Every kind on ForSt: the keyed count and the window on the async state API.
    list.push((
        "all-kinds-forst".into(),
        vec![
            fixtures
                .join("all-kinds.json")
                .to_string_lossy()
                .into_owned(),
            "--set".into(),
            "state.backend.type=forst".into(),
        ],
    ));
    // Chaining off, the smallest record, a kill in a source and faults on sinks.
    list.push((
        "variants".into(),
        [
            "--preset",
            "seed-2pc",
            "--set",
            "pipeline.operator-chaining.enabled=false",
            "--set",
            "operator.datagen.record-size=8",
            "--set",
            "restart-strategy.type=no-restart",
            "--fail",
            "datagen#0@3s",
            "--fail",
            "two-phase-commit-sink#1@4s",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
    ));
    list
}

fn compile(lib: &Path, export: &Path) -> Result<(), String> {
    let classes = export.join("build/classes");
    std::fs::create_dir_all(&classes).map_err(|e| e.to_string())?;
    let mut sources: Vec<PathBuf> = std::fs::read_dir(export.join("src/main/java/barrierlab"))
        .map_err(|e| e.to_string())?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    sources.sort();
    let out = Command::new("javac")
        .args(["-encoding", "UTF-8", "-Xlint:none", "-d"])
        .arg(&classes)
        .arg("-cp")
        .arg(lib.join(DIST_JAR))
        .args(&sources)
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!(
            "javac failed for {}:\n{}{}",
            export.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    // run.sh at least parses.
    let sh = Command::new("bash")
        .arg("-n")
        .arg(export.join("run.sh"))
        .output()
        .map_err(|e| e.to_string())?;
    if !sh.status.success() {
        return Err(format!(
            "run.sh does not parse: {}",
            String::from_utf8_lossy(&sh.stderr)
        ));
    }
    Ok(())
}

#[test]
fn every_export_compiles_against_flink_2_3() {
    let Some(lib) = toolchain() else { return };
    let root = std::env::temp_dir().join(format!("barrierlab-export-javac-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let mut exports = Vec::new();
    for (name, args) in scenarios() {
        let dir = root.join(&name);
        let mut argv: Vec<String> = vec!["export".into()];
        argv.extend(args);
        argv.extend(["--out".into(), dir.to_string_lossy().into_owned()]);
        let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
        let (ok, _, stderr) = barrierlab(&argv);
        assert!(ok, "export {name}: {stderr}");
        exports.push(dir);
    }
    // javac is slow to start: two at a time (the machines have few cores).
    let failures: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = exports
            .chunks(exports.len().div_ceil(2))
            .map(|chunk| {
                let lib = &lib;
                s.spawn(move || {
                    chunk
                        .iter()
                        .filter_map(|dir| compile(lib, dir).err())
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a compile thread panicked"))
            .collect()
    });
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    let _ = std::fs::remove_dir_all(&root);
}

/// One datagen configuration of the cross-check: (seed, vertex, parallelism, count, keys, hot keys,
/// hot percent, record size) and the sequence indices to generate.
struct KeyCase {
    seed: u64,
    vertex: u32,
    parallelism: u32,
    count: Option<u64>,
    keys: u32,
    hot: (u32, u32),
    record_size: u64,
    indices: Vec<u64>,
}

/// The engine's key for DataGeneratorSource index `index`: split k of Flink's number sequence is the
/// engine's subtask k (same sizes), its records are seq = index - start of the split.
fn engine_key(c: &KeyCase, index: u64) -> i32 {
    use barrierlab_engine::scenario::{KeyDistribution, OperatorKind};
    use barrierlab_engine::task::Operator;
    let count = c.count.unwrap_or(i64::MAX as u64);
    let p = u64::from(c.parallelism);
    let (per, rem) = (count / p, count % p);
    let (split, first) = if index < rem * (per + 1) {
        (index / (per + 1), index / (per + 1) * (per + 1))
    } else {
        let k = rem + (index - rem * (per + 1)) / per;
        (k, k * per + rem)
    };
    let kind = OperatorKind::Datagen {
        rate: 1000,
        record_size: c.record_size,
        keys: c.keys,
        key_distribution: if c.hot.1 == 0 {
            KeyDistribution::Uniform
        } else {
            KeyDistribution::Skewed {
                hot_keys: c.hot.0,
                hot_percent: c.hot.1,
            }
        },
        bounded: c.count,
    };
    let origin = (c.vertex << 16) | split as u32;
    match Operator::new(&kind, split as u32, c.parallelism, 128, origin, c.seed) {
        Ok(Operator::Datagen(dg)) => dg.record(index - first).key,
        _ => panic!("not a datagen"),
    }
}

#[test]
fn datagen_keys_and_record_sizes_match_the_engine() {
    let Some(lib) = toolchain() else { return };
    let root = std::env::temp_dir().join(format!("barrierlab-export-keys-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let export = root.join("job");
    let (ok, _, stderr) = barrierlab(&[
        "export",
        "--preset",
        "seed-demo",
        "--out",
        export.to_str().unwrap(),
    ]);
    assert!(ok, "{stderr}");
    compile(&lib, &export).unwrap();

    let half = i64::MAX as u64 / 2;
    let cases = [
        KeyCase {
            seed: 7,
            vertex: 0,
            parallelism: 2,
            count: Some(200_000),
            keys: 64,
            hot: (4, 80),
            record_size: 256,
            indices: vec![0, 1, 2, 3, 99_999, 100_000, 100_001, 199_999],
        },
        KeyCase {
            seed: 1,
            vertex: 2,
            parallelism: 3,
            count: Some(7),
            keys: 16,
            hot: (0, 0),
            record_size: 8,
            indices: (0..7).collect(),
        },
        KeyCase {
            seed: u64::MAX - 5,
            vertex: 3,
            parallelism: 2,
            count: None,
            keys: 1000,
            hot: (10, 99),
            record_size: 1024,
            indices: vec![0, 1, half, half + 1, half + 2],
        },
    ];
    // A probe that builds each record with the export's own classes and serializes it with
    // Flink's serializer for the stream's type.
    let mut java = String::from(
        "import org.apache.flink.api.common.serialization.SerializerConfigImpl;\n\
         import org.apache.flink.api.common.typeutils.TypeSerializer;\n\
         import org.apache.flink.api.java.tuple.Tuple2;\n\
         import org.apache.flink.core.memory.DataOutputSerializer;\n\
         import barrierlab.*;\n\
         public class KeyProbe {\n\
         static int size(TypeSerializer s, Object r) throws Exception {\n\
           DataOutputSerializer out = new DataOutputSerializer(64);\n\
           s.serialize(r, out);\n\
           return out.length();\n\
         }\n\
         public static void main(String[] a) throws Exception {\n\
           TypeSerializer bytes = Records.BYTES.createSerializer(new SerializerConfigImpl());\n\
           TypeSerializer keyed = Records.KEYED.createSerializer(new SerializerConfigImpl());\n\
           System.out.println(\"keyed \" + size(keyed, Tuple2.of(3, 5L)));\n",
    );
    for (i, c) in cases.iter().enumerate() {
        let count = c
            .count
            .map_or("Long.MAX_VALUE".to_string(), |n| format!("{n}L"));
        java.push_str(&format!(
            "  {{ Operators.Datagen g = new Operators.Datagen({:#x}L, {}, {}, {count}, {}, {}, {}, {}, Work.of(\"g\", 0L));\n",
            c.seed, c.vertex, c.parallelism, c.keys, c.hot.0, c.hot.1, c.record_size
        ));
        for index in &c.indices {
            java.push_str(&format!(
                "    {{ Tuple2<Integer, byte[]> r = g.map({index}L); System.out.println(\"{i} {index} \" + r.f0 + \" \" + size(bytes, r)); }}\n"
            ));
        }
        java.push_str("  }\n");
    }
    java.push_str("}}\n");
    let probe = root.join("probe");
    std::fs::create_dir_all(&probe).unwrap();
    std::fs::write(probe.join("KeyProbe.java"), java).unwrap();
    let cp = format!(
        "{}:{}",
        export.join("build/classes").display(),
        lib.join(DIST_JAR).display()
    );
    let javac = Command::new("javac")
        .args(["-Xlint:none", "-nowarn", "-d"])
        .arg(&probe)
        .args(["-cp", &cp])
        .arg(probe.join("KeyProbe.java"))
        .output()
        .unwrap();
    assert!(
        javac.status.success(),
        "{}",
        String::from_utf8_lossy(&javac.stderr)
    );
    let run = Command::new("java")
        .args(["-cp", &format!("{}:{cp}", probe.display()), "KeyProbe"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&run.stderr)
    );

    let mut lines = stdout.lines();
    // (key, count) records are an int and a long, KEYED_OUTPUT_BYTES without the 4-byte header.
    assert_eq!(lines.next(), Some("keyed 12"));
    let mut checked = 0;
    for line in lines {
        let f: Vec<&str> = line.split(' ').collect();
        let (case, index, key, size): (usize, u64, i32, u64) = (
            f[0].parse().unwrap(),
            f[1].parse().unwrap(),
            f[2].parse().unwrap(),
            f[3].parse().unwrap(),
        );
        let c = &cases[case];
        assert_eq!(key, engine_key(c, index), "case {case}, index {index}");
        assert_eq!(size, c.record_size, "case {case}: serialized record size");
        checked += 1;
    }
    assert_eq!(
        checked,
        cases.iter().map(|c| c.indices.len()).sum::<usize>()
    );
    let _ = std::fs::remove_dir_all(&root);
}
