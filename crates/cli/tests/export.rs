//! `barrierlab export`: what it writes, what it prints, how it refuses.

mod common;

use std::path::PathBuf;

use common::barrierlab;

fn out_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("barrierlab-export-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn writes_the_job_and_prints_the_next_command() {
    let dir = out_dir("seed-demo");
    let d = dir.to_str().unwrap();
    let (ok, stdout, stderr) = barrierlab(&["export", "--preset", "seed-demo", "--out", d]);
    assert!(ok, "{stderr}");
    for path in [
        "src/main/java/barrierlab/BarrierLabJob.java",
        "src/main/java/barrierlab/Topology.java",
        "config.yaml",
        "run.sh",
        "log4j2.properties",
        "README.md",
        "scenario.json",
    ] {
        assert!(dir.join(path).is_file(), "{path} missing");
        assert!(
            stdout.contains(&format!(
                "wrote {}",
                std::path::absolute(dir.join(path)).unwrap().display()
            )),
            "{stdout}"
        );
    }
    assert!(
        stdout.contains(&format!("{d}/run.sh --seconds 30")),
        "{stdout}"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir.join("run.sh"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o111, 0o111, "run.sh is not executable");
    }
    // Checkpoints go inside the export directory.
    let yaml = std::fs::read_to_string(dir.join("config.yaml")).unwrap();
    let canonical = std::path::absolute(&dir).unwrap();
    assert!(
        yaml.contains(&format!(
            "execution.checkpointing.dir: 'file://{}/checkpoints'",
            canonical.display()
        )),
        "{yaml}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn takes_the_run_commands_scenario_arguments() {
    let dir = out_dir("args");
    let (ok, _, stderr) = barrierlab(&[
        "export",
        "--preset",
        "seed-2pc",
        "--seed",
        "9",
        "--set",
        "operator.count-per-key.cost-per-record=2ms",
        "--fail",
        "count-per-key#1@12s",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(ok, "{stderr}");
    let java = std::fs::read_to_string(dir.join("src/main/java/barrierlab/Topology.java")).unwrap();
    assert!(java.contains("new Operators.Datagen(0x9L,"), "{java}");
    assert!(
        java.contains("Work.of(\"count-per-key\", start).cost(2000000L).kill(1, 12000L)"),
        "{java}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn refusals_exit_2_with_the_reason() {
    let dir = out_dir("refused");
    let faults = std::env::temp_dir().join(format!(
        "barrierlab-export-{}-faults.json",
        std::process::id()
    ));
    std::fs::write(
        &faults,
        r#"[{"decline": {"task": "count-per-key#0", "checkpoint": 2}}]"#,
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_barrierlab"))
        .args(["export", "--preset", "seed-demo", "--faults"])
        .arg(&faults)
        .arg("--out")
        .arg(&dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("cannot export scenario 'seed-demo' as a Flink job"),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "{\"decline\":{\"task\":\"count-per-key#0\",\"checkpoint\":2}}: not exportable"
        ),
        "{stderr}"
    );
    assert!(!dir.exists(), "nothing is written when refused");
    let _ = std::fs::remove_file(&faults);
    let _ = std::fs::remove_dir_all(&dir);

    // An unknown preset is a usage error, not a refusal.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_barrierlab"))
        .args(["export", "--preset", "nope", "--out"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
}
