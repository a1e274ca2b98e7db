//! `--config CONFIG.yaml`: a Flink config.yaml changes the scenario; keys the simulator does not
//! model are warnings on stderr; unknown keys and bad values fail naming the file and line.

mod common;

use common::barrierlab;

/// A scenario file whose operators after the source set no parallelism of their own.
fn scenario_file(dir: &std::path::Path) -> String {
    let json = r#"{"name": "default-parallelism",
        "operators": [
            {"name": "datagen", "kind": {"type": "datagen", "rate": 2000, "record-size": 1024, "keys": 16}, "parallelism": 2},
            {"name": "count-per-key", "kind": {"type": "keyed-count"}},
            {"name": "discard-sink", "kind": {"type": "discard-sink"}}],
        "edges": [
            {"from": "datagen", "to": "count-per-key", "partitioner": "hash"},
            {"from": "count-per-key", "to": "discard-sink", "partitioner": "forward"}],
        "config": {"execution.checkpointing.interval": "2s"}}"#;
    let path = dir.join("scenario.json");
    std::fs::write(&path, json).unwrap();
    path.display().to_string()
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("barrierlab-config-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_real_config_yaml_changes_the_run_and_warns_about_the_rest() {
    let dir = temp_dir("ok");
    let scenario = scenario_file(&dir);
    let config = dir.join("config.yaml");
    std::fs::write(
        &config,
        "jobmanager:\n  rpc:\n    address: localhost\nexecution.checkpointing.storage: jobmanager\nparallelism.default: 4\ntaskmanager:\n  numberOfTaskSlots: 2\nexecution.checkpointing.dir: file:///data/checkpoints\n",
    )
    .unwrap();
    let config = config.display().to_string();
    let (ok, stdout, stderr) = barrierlab(&[
        "run",
        &scenario,
        "--config",
        &config,
        "--seconds",
        "8",
        "--format",
        "json",
    ]);
    assert!(ok, "{stderr}");
    for warning in [
        format!("barrierlab: warning: {config}: line 3: jobmanager.rpc.address: not modelled"),
        format!("barrierlab: warning: {config}: line 4: execution.checkpointing.storage: not modelled"),
        format!("barrierlab: warning: {config}: line 7: taskmanager.numberOfTaskSlots: the job needs 4 slots: the cluster gets 2 TaskManagers"),
    ] {
        assert!(stderr.contains(&warning), "no {warning:?} in\n{stderr}");
    }
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let parallelism: Vec<u64> = v["job"]["vertices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["parallelism"].as_u64().unwrap())
        .collect();
    assert_eq!(parallelism, vec![2, 4]);
    let path = v["checkpoints"]["latest"]["completed"]["external_path"]
        .as_str()
        .unwrap();
    assert!(path.starts_with("file:/data/checkpoints/"), "{path}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn unknown_keys_and_bad_values_fail_naming_file_and_line() {
    let dir = temp_dir("bad");
    let config = dir.join("config.yaml");
    std::fs::write(
        &config,
        "parallelism.default: 2\ntaskmanager.numberOfTaskSlot: 2\nexecution.checkpointing.dir: /no/scheme\n",
    )
    .unwrap();
    let config = config.display().to_string();
    let (ok, _, stderr) = barrierlab(&["run", "--preset", "seed-demo", "--config", &config]);
    assert!(!ok);
    assert!(stderr.contains(&format!("{config}: line 2: unknown key 'taskmanager.numberOfTaskSlot': not a Flink 2.3 configuration key; did you mean 'taskmanager.numberOfTaskSlots'?")), "{stderr}");
    assert!(stderr.contains(&format!("{config}: line 3: configuration key 'execution.checkpointing.dir': bad value '/no/scheme'")), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}
