//! Tests of a whole Flink `config.yaml` applied to a scenario: modelled keys change it, other
//! Flink 2.3 keys become notes, unknown keys and bad values are refused naming their line.

use super::*;

/// seed-demo with every operator but the source left at the default parallelism.
fn seed() -> Scenario {
    let mut s = preset("seed-demo").unwrap();
    for op in s.operators.iter_mut().skip(1) {
        op.parallelism = None;
    }
    s
}

fn apply(text: &str) -> Result<(Scenario, Vec<ConfNote>), Vec<String>> {
    apply_flink_conf(&seed(), text)
}

fn notes_text(notes: &[ConfNote]) -> Vec<String> {
    notes.iter().map(|n| n.to_string()).collect()
}

/// The uncommented part of the `config.yaml` Flink 2.3's distribution ships (flink-dist's
/// `config.yaml`), with the settings of a small production job added: nested maps and flat keys.
/// The first part is shared with the e2e test of the configuration panel.
const REAL_CONFIG: &str = concat!(
    include_str!("../../../../tests/fixtures/flink-2.3-config.yaml"),
    "\
state.backend.incremental: true
execution:
  checkpointing:
    interval: 10s
    dir: s3://my-bucket/flink/checkpoints
    savepoint-dir: s3://my-bucket/flink/savepoints
    externalized-checkpoint-retention: RETAIN_ON_CANCELLATION
s3.endpoint: http://minio:9000
metrics.reporter.prom.factory.class: org.apache.flink.metrics.prometheus.PrometheusReporterFactory
metrics.reporter.prom.port: 9250-9260
pipeline.jars: [file:///opt/job.jar]
"
);

#[test]
fn the_key_list_has_the_keys_the_issue_names() {
    let current = |k: &str| {
        flink_key(k)
            == Some(FlinkKey::Current(
                flink_keys().find(|(l, _)| *l == k).map(|(l, _)| l).unwrap(),
            ))
    };
    for key in [
        "state.backend.type",
        "parallelism.default",
        "taskmanager.numberOfTaskSlots",
        "minicluster.number-of-taskmanagers",
        "execution.checkpointing.dir",
        "execution.checkpointing.savepoint-dir",
        "execution.checkpointing.interval",
        "restart-strategy.type",
        "taskmanager.memory.process.size",
        "jobmanager.memory.process.size",
        "rest.port",
        "pipeline.name",
        "high-availability.type",
        "web.submit.enable",
        "env.java.opts.all",
        "table.exec.state.ttl",
        "state.backend.rocksdb.localdir",
    ] {
        assert!(current(key), "{key} is not a current Flink 2.3 key");
    }
    for (old, new) in [
        ("state.checkpoints.dir", "execution.checkpointing.dir"),
        (
            "state.savepoints.dir",
            "execution.checkpointing.savepoint-dir",
        ),
        (
            "state.backend.incremental",
            "execution.checkpointing.incremental",
        ),
        ("state.backend", "state.backend.type"),
        (
            "local.number-taskmanager",
            "minicluster.number-of-taskmanagers",
        ),
    ] {
        assert!(
            matches!(flink_key(old), Some(FlinkKey::Old { current, .. }) if current == new),
            "{old}: {:?}",
            flink_key(old)
        );
    }
    assert!(flink_keys().count() > 1000);
    assert_eq!(flink_key("no.such.key"), None);
    // Case matters, as in Flink.
    assert_eq!(flink_key("taskmanager.numberoftaskslots"), None);
}

#[test]
fn every_modelled_key_is_a_flink_key_under_the_same_current_name() {
    for info in CONFIG_KEYS.iter().chain(CLUSTER_KEYS) {
        if info.key.starts_with("barrierlab.") {
            assert_eq!(flink_key(info.key), None, "{}", info.key);
            continue;
        }
        assert_eq!(
            flink_key(info.key),
            Some(FlinkKey::Current(info.key)),
            "{}",
            info.key
        );
        for old in info.deprecated_keys {
            assert!(
                matches!(flink_key(old), Some(FlinkKey::Old { current, .. }) if current == info.key),
                "{old} -> {}: Flink says {:?}",
                info.key,
                flink_key(old)
            );
        }
    }
}

#[test]
fn patterns_and_plugin_prefixes() {
    assert_eq!(
        flink_key("metrics.reporter.prom.factory.class"),
        Some(FlinkKey::Current("metrics.reporter.<name>.factory.class"))
    );
    assert_eq!(
        flink_key("metrics.reporter.prom.port"),
        Some(FlinkKey::Current("metrics.reporter.<name>.<parameter>"))
    );
    assert_eq!(
        flink_key("metrics.reporter.influx.connect.timeout"),
        Some(FlinkKey::Current("metrics.reporter.<name>.<parameter>"))
    );
    assert_eq!(
        flink_key("external-resource.gpu.amount"),
        Some(FlinkKey::Current(
            "external-resource.<resource_name>.amount"
        ))
    );
    assert_eq!(flink_key("metrics.reporter.prom"), None);
    assert_eq!(flink_key("metrics.reporter..interval"), None);
    assert_eq!(flink_key("s3.access-key"), Some(FlinkKey::Prefix("s3.")));
    assert_eq!(
        flink_key("fs.s3a.connection.maximum"),
        Some(FlinkKey::Prefix("fs.s3a."))
    );
    assert_eq!(flink_key("s3."), None);
    assert_eq!(flink_key("fs.nosuch.thing"), None);
}

#[test]
fn a_real_config_yaml_is_accepted() {
    let (s, notes) = apply(REAL_CONFIG).unwrap();
    // Modelled: the job's default parallelism, the checkpoint settings and directories.
    for (k, v) in [
        ("parallelism.default", "4"),
        ("execution.checkpointing.interval", "10s"),
        (
            "execution.checkpointing.dir",
            "s3://my-bucket/flink/checkpoints",
        ),
        (
            "execution.checkpointing.savepoint-dir",
            "s3://my-bucket/flink/savepoints",
        ),
        ("execution.checkpointing.incremental", "true"),
        ("state.backend.type", "rocksdb"),
    ] {
        assert_eq!(s.config.get(k).map(String::as_str), Some(v), "{k}");
    }
    assert!(!s.config.contains_key("state.backend.incremental"));
    // Slots per TaskManager from the file; as many TaskManagers as parallelism 4 needs.
    assert_eq!(s.cluster.slots_per_taskmanager, Some(2));
    assert_eq!(s.cluster.taskmanagers, 2);
    let g = s.validate().unwrap();
    let p: Vec<u32> = g.vertices.iter().map(|v| v.parallelism).collect();
    assert_eq!(p, vec![2, 4], "the source keeps its own parallelism");
    assert_eq!(
        g.config.checkpoint_dir.as_deref(),
        Some("s3://my-bucket/flink/checkpoints")
    );

    let text = notes_text(&notes);
    for expected in [
        "line 5: env.java.opts.all: not modelled",
        "line 7: jobmanager.bind-host: not modelled",
        "line 13: jobmanager.memory.process.size: not modelled: memory is not simulated",
        "line 15: jobmanager.execution.failover-strategy: not modelled",
        "line 19: taskmanager.numberOfTaskSlots: the job needs 4 slots: the cluster gets 2 TaskManagers of 2 slots",
        "line 27: rest.bind-address: not modelled: the simulator has no REST endpoint",
        "line 29: state.backend.incremental: deprecated name; read as execution.checkpointing.incremental",
        "line 36: s3.endpoint: not modelled (passed on by Flink under 's3.')",
        "line 37: metrics.reporter.prom.factory.class: not modelled",
        "line 38: metrics.reporter.prom.port: not modelled",
        "line 39: pipeline.jars: not modelled",
    ] {
        assert!(
            text.iter().any(|n| n.starts_with(expected)),
            "no note {expected:?} in {text:#?}"
        );
    }
    // Only keys of the file, in line order; modelled keys get none.
    assert!(text.iter().all(|n| !n.contains("parallelism.default")));
    let lines: Vec<usize> = notes.iter().map(|n| n.line).collect();
    assert!(lines.windows(2).all(|w| w[0] <= w[1]), "{lines:?}");
    assert_eq!(notes.len(), 17, "{text:#?}");
}

#[test]
fn flat_and_nested_keys_mean_the_same() {
    let nested = "parallelism:\n  default: 3\ntaskmanager:\n  numberOfTaskSlots: 3\nexecution:\n  checkpointing:\n    dir: file:///tmp/c\n    interval: 2s\n";
    let flat = "parallelism.default: 3\ntaskmanager.numberOfTaskSlots: 3\nexecution.checkpointing.dir: file:///tmp/c\nexecution.checkpointing.interval: 2s\n";
    let (a, _) = apply(nested).unwrap();
    let (b, _) = apply(flat).unwrap();
    assert_eq!(a, b);
    assert_eq!(a.parallelism(3), 3);
    assert_eq!(a.cluster.slots_per_taskmanager, Some(3));
    assert_eq!(a.cluster.taskmanagers, 1);
}

#[test]
fn unmodelled_flink_keys_are_notes_not_errors() {
    for line in [
        "execution.checkpointing.storage: filesystem",
        "taskmanager.memory.process.size: 4g",
        "high-availability.type: zookeeper",
        "restart-strategy.fixed-delay.attempts-x: 1",
        "table.exec.mini-batch.enabled: true",
        "kubernetes.cluster-id: my-flink",
        "fs.azure.account.key.acct.blob.core.windows.net: secret",
        "pipeline.classpaths:\n  - file:///a.jar\n  - file:///b.jar",
        "env.java.opts.all: >\n  -Xss2m\n  -Dx=y",
    ] {
        let r = apply(&format!("# comment\n{line}\n"));
        if line.starts_with("restart-strategy.fixed-delay.attempts-x") {
            // Not a key: refused, with the close one.
            let e = r.unwrap_err();
            assert!(
                e[0].contains("did you mean 'restart-strategy.fixed-delay.attempts'"),
                "{e:?}"
            );
            continue;
        }
        let (s, notes) = r.unwrap_or_else(|e| panic!("{line}: {e:?}"));
        assert_eq!(s, seed(), "{line} changed the scenario");
        assert_eq!(notes.len(), 1, "{line}: {notes:?}");
        assert_eq!(notes[0].line, 2);
        assert!(
            notes[0].message.starts_with("not modelled"),
            "{:?}",
            notes[0]
        );
    }
    // The state backend is modelled: rocksdb, also by its deprecated name, and forst; others not.
    let (s, notes) = apply("state.backend: rocksdb\n").unwrap();
    assert_eq!(
        s.config.get("state.backend.type").map(String::as_str),
        Some("rocksdb")
    );
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].message.contains("deprecated name"), "{notes:?}");
    let (s, _) = apply("state.backend.type: forst\n").unwrap();
    assert_eq!(
        s.config.get("state.backend.type").map(String::as_str),
        Some("forst")
    );
    let e = apply("state.backend.type: filesystem\n").unwrap_err();
    assert!(
        e[0].contains("hashmap") && e[0].contains("rocksdb") && e[0].contains("forst"),
        "{e:?}"
    );
}

#[test]
fn unknown_keys_are_refused_naming_the_line_and_a_close_key() {
    let e = apply("parallelism.default: 2\ntaskmanager.numberOfTaskSlot: 2\nexecution.checkpointing.intervall: 5s\nno.such.key: 5\nParallelism.Default: 3\n").unwrap_err();
    assert_eq!(
        e,
        vec![
            "line 2: unknown key 'taskmanager.numberOfTaskSlot': not a Flink 2.3 configuration key; did you mean 'taskmanager.numberOfTaskSlots'?",
            "line 3: unknown key 'execution.checkpointing.intervall': not a Flink 2.3 configuration key; did you mean 'execution.checkpointing.interval'?",
            "line 4: unknown key 'no.such.key': not a Flink 2.3 configuration key",
            "line 5: unknown key 'Parallelism.Default': not a Flink 2.3 configuration key; did you mean 'parallelism.default'?",
        ]
    );
    // A close Barrier Lab knob is suggested too.
    let e = apply("barrierlab.rpc-latenzy: 1ms\n").unwrap_err();
    assert!(
        e[0].ends_with("did you mean 'barrierlab.rpc-latency'?"),
        "{e:?}"
    );
}

#[test]
fn bad_values_of_modelled_keys_are_refused_naming_the_line() {
    let cases = [
        ("parallelism.default: four", "line 1: configuration key 'parallelism.default': bad value 'four'"),
        ("taskmanager.numberOfTaskSlots: 0", "line 1: configuration key 'taskmanager.numberOfTaskSlots': bad value '0'"),
        ("minicluster.number-of-taskmanagers: many", "line 1: configuration key 'minicluster.number-of-taskmanagers': bad value 'many'"),
        ("execution.checkpointing.dir: /tmp/x", "line 1: configuration key 'execution.checkpointing.dir': bad value '/tmp/x', expected a directory URI such as file:///tmp/checkpoints (the scheme"),
        ("state.checkpoints.dir: 'file:///'", "line 1: configuration key 'execution.checkpointing.dir': bad value 'file:///'"),
        ("execution:\n  checkpointing:\n    interval: [5s]", "line 3: configuration key 'execution.checkpointing.interval': bad value '[5s]'"),
    ];
    for (text, expected) in cases {
        let e = apply(text).unwrap_err();
        assert_eq!(e.len(), 1, "{text}: {e:?}");
        assert!(e[0].starts_with(expected), "{text}: {e:?}");
    }
    // A malformed line is refused as such.
    let e = apply("parallelism.default: 2\njust words\n").unwrap_err();
    assert_eq!(e, vec!["line 2: expected `key: value`, found 'just words'"]);
}

#[test]
fn deprecated_names_yield_to_the_current_one_as_in_flink() {
    let (s, notes) = apply(
        "state.checkpoints.dir: file:///old\nexecution.checkpointing.dir: file:///new\nstate.backend.fs.checkpointdir: file:///older\n",
    )
    .unwrap();
    assert_eq!(
        s.config
            .get("execution.checkpointing.dir")
            .map(String::as_str),
        Some("file:///new")
    );
    assert!(!s.config.contains_key("state.checkpoints.dir"));
    assert_eq!(
        notes_text(&notes),
        vec![
            "line 1: state.checkpoints.dir: deprecated name; read as execution.checkpointing.dir",
            "line 1: state.checkpoints.dir: ignored: execution.checkpointing.dir (line 2) is read instead, as in Flink",
            "line 3: state.backend.fs.checkpointdir: deprecated name; read as execution.checkpointing.dir",
            "line 3: state.backend.fs.checkpointdir: ignored: execution.checkpointing.dir (line 2) is read instead, as in Flink",
        ]
    );
    // Two deprecated names: the first in Flink's fallback order wins.
    let (s, _) =
        apply("state.backend.fs.checkpointdir: file:///b\nstate.checkpoints.dir: file:///a\n")
            .unwrap();
    assert_eq!(
        s.config
            .get("execution.checkpointing.dir")
            .map(String::as_str),
        Some("file:///a")
    );
    // A deprecated spelling already in the scenario is replaced, not left to conflict.
    let mut base = seed();
    base.config
        .insert("state.checkpoints.num-retained".into(), "5".into());
    let (s, _) = apply_flink_conf(&base, "execution.checkpointing.num-retained: 2\n").unwrap();
    assert!(!s.config.contains_key("state.checkpoints.num-retained"));
    assert_eq!(s.validate().unwrap().config.num_retained, 2);
}

#[test]
fn the_cluster_keys_set_the_cluster() {
    // Explicit TaskManagers are kept, so too few slots is the scenario's error.
    let e = apply("parallelism.default: 4\ntaskmanager.numberOfTaskSlots: 2\nminicluster.number-of-taskmanagers: 1\n").unwrap_err();
    assert!(e[0].contains("the job needs 4 slots"), "{e:?}");
    let (s, notes) = apply(
        "parallelism.default: 4\ntaskmanager.numberOfTaskSlots: 2\nlocal.number-taskmanager: 3\n",
    )
    .unwrap();
    assert_eq!(
        (s.cluster.taskmanagers, s.cluster.slots_per_taskmanager),
        (3, Some(2))
    );
    assert_eq!(
        notes_text(&notes),
        vec!["line 3: local.number-taskmanager: deprecated name; read as minicluster.number-of-taskmanagers"]
    );
    // Enough slots: the TaskManagers stay as they are.
    let (s, notes) = apply("taskmanager.numberOfTaskSlots: 8\n").unwrap();
    assert_eq!(
        (s.cluster.taskmanagers, s.cluster.slots_per_taskmanager),
        (1, Some(8))
    );
    assert!(notes.is_empty());
    // `--set` knows them too.
    let mut s = seed();
    apply_set(&mut s, "minicluster.number-of-taskmanagers=2").unwrap();
    apply_set(&mut s, "taskmanager.numberOfTaskSlots=3").unwrap();
    assert_eq!(
        (s.cluster.taskmanagers, s.cluster.slots_per_taskmanager),
        (2, Some(3))
    );
    assert!(apply_set(&mut s, "taskmanager.numberOfTaskSlots=0").is_err());
    // Unmodelled Flink keys are named as such by `--set`.
    let e = apply_set(&mut s, "execution.checkpointing.storage=jobmanager").unwrap_err();
    assert!(
        e.contains("is a Flink 2.3 key Barrier Lab does not model"),
        "{e}"
    );
}

#[test]
fn lists_and_block_scalars_read_as_one_value() {
    let text = "pipeline.jars:\n  - file:///a.jar\n  - 'file:///b c.jar'\npipeline.classpaths:\n- x\nenv.java.opts.all: >-\n  -Xss2m\n\n  -Dx=y\npipeline.name: |\n  two\n  lines\nkubernetes.jobmanager.annotations: {a: b, 'c': \"d}\"}  # map\npipeline.cached-files: [a, b]\n";
    let entries = parse_flink_yaml_lines(text).unwrap();
    let got: Vec<(usize, &str, &str)> = entries
        .iter()
        .map(|e| (e.line, e.key.as_str(), e.value.as_str()))
        .collect();
    assert_eq!(
        got,
        vec![
            (1, "pipeline.jars", "[file:///a.jar, file:///b c.jar]"),
            (4, "pipeline.classpaths", "[x]"),
            (6, "env.java.opts.all", "-Xss2m  -Dx=y"),
            (10, "pipeline.name", "two\nlines"),
            (
                13,
                "kubernetes.jobmanager.annotations",
                "{a: b, 'c': \"d}\"}"
            ),
            (14, "pipeline.cached-files", "[a, b]"),
        ]
    );
    let (_, notes) = apply(text).unwrap();
    assert_eq!(notes.len(), 6);
}
