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
