//! Tests of configuration keys, `--set` and `config.yaml` snippets.

use std::collections::BTreeMap;

use super::*;
use crate::types::{MICROS_PER_MS, MICROS_PER_SEC};

fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn every_table_default_parses_and_keys_are_unique() {
    let mut seen = std::collections::BTreeSet::new();
    for info in CONFIG_KEYS {
        assert!(seen.insert(info.key), "duplicate key {}", info.key);
        for old in info.deprecated_keys {
            assert!(seen.insert(old), "duplicate deprecated key {old}");
        }
        assert!(
            !info.description.is_empty(),
            "{} lacks a description",
            info.key
        );
        if !info.default.is_empty() {
            check_value(info, info.default).unwrap();
        }
    }
}

#[test]
fn defaults_are_flink_2_3s() {
    let c = FlinkConfig::default();
    assert_eq!(c.checkpoint_interval, None);
    assert!(!c.checkpointing_enabled());
    assert_eq!(c.checkpointing_mode, CheckpointingMode::ExactlyOnce);
    assert_eq!(c.checkpoint_timeout, 600 * MICROS_PER_SEC);
    assert_eq!(c.min_pause, 0);
    assert_eq!(c.max_concurrent_checkpoints, 1);
    assert_eq!(c.tolerable_failed_checkpoints, 0);
    assert!(!c.unaligned_enabled);
    assert_eq!(c.aligned_checkpoint_timeout, 0);
    assert_eq!(c.num_retained, 1);
    assert_eq!(
        c.externalized_checkpoint_retention,
        ExternalizedCheckpointRetention::NoExternalizedCheckpoints
    );
    assert!(c.checkpoints_after_tasks_finish);
    assert!(!c.incremental);
    assert_eq!(c.data_inline_threshold, 20 * 1024);
    assert_eq!(c.buffer_timeout, 100 * MICROS_PER_MS);
    assert!(c.buffer_timeout_enabled);
    assert_eq!(c.segment_size, 32 * 1024);
    assert_eq!(c.max_parallelism, None);
    assert!(c.operator_chaining);
    // Checkpointing off: no restart.
    assert_eq!(c.restart_strategy, RestartStrategy::NoRestart);
    assert_eq!(c.web_checkpoints_history, 10);
    assert_eq!(c.rpc_latency, MICROS_PER_MS);
}

#[test]
fn checkpointing_on_defaults_to_exponential_delay() {
    let c = FlinkConfig::from_map(&map(&[("execution.checkpointing.interval", "5s")])).unwrap();
    assert_eq!(c.checkpoint_interval, Some(5 * MICROS_PER_SEC));
    assert_eq!(
        c.restart_strategy,
        RestartStrategy::ExponentialDelay {
            initial_backoff: MICROS_PER_SEC,
            max_backoff: 60 * MICROS_PER_SEC,
            backoff_multiplier_milli: 1500,
            jitter_factor_milli: 100,
            reset_backoff_threshold: 3600 * MICROS_PER_SEC,
            attempts_before_reset_backoff: i32::MAX as u32,
        }
    );
    let c = FlinkConfig::from_map(&map(&[
        ("restart-strategy.type", "fixed-delay"),
        ("restart-strategy.fixed-delay.attempts", "3"),
    ]))
    .unwrap();
    assert_eq!(
        c.restart_strategy,
        RestartStrategy::FixedDelay {
            attempts: 3,
            delay: MICROS_PER_SEC
        }
    );
}

#[test]
fn deprecated_keys_map_to_current_ones() {
    let c = FlinkConfig::from_map(&map(&[
        ("execution.checkpointing.unaligned", "true"),
        ("state.checkpoints.num-retained", "3"),
        ("state.backend.fs.memory-threshold", "1kb"),
        ("execution.buffer-timeout", "10ms"),
        ("restart-strategy", "none"),
        ("jobmanager.web.checkpoints.history", "20"),
    ]))
    .unwrap();
    assert!(c.unaligned_enabled);
    assert_eq!(c.num_retained, 3);
    assert_eq!(c.data_inline_threshold, 1024);
    assert_eq!(c.buffer_timeout, 10 * MICROS_PER_MS);
    assert_eq!(c.restart_strategy, RestartStrategy::NoRestart);
    assert_eq!(c.web_checkpoints_history, 20);

    // Both spellings with different values is reported, naming both.
    let errs = FlinkConfig::from_map(&map(&[
        ("execution.checkpointing.unaligned", "true"),
        ("execution.checkpointing.unaligned.enabled", "false"),
    ]))
    .unwrap_err();
    assert!(errs[0].contains("set twice"), "{errs:?}");
    assert!(
        errs[0].contains("execution.checkpointing.unaligned'"),
        "{errs:?}"
    );
}

#[test]
fn unknown_key_suggests_the_closest() {
    let errs =
        FlinkConfig::from_map(&map(&[("execution.checkpointing.intervall", "5s")])).unwrap_err();
    assert_eq!(
        errs,
        vec!["unknown configuration key 'execution.checkpointing.intervall'; did you mean 'execution.checkpointing.interval'?".to_string()]
    );
    // A near miss of a deprecated name suggests the current name.
    assert_eq!(
        closest_key("state.checkpoint.num-retained"),
        "execution.checkpointing.num-retained"
    );
    assert_eq!(edit_distance("kitten", "sitting"), 3);
}

#[test]
fn bad_values_name_key_value_and_form() {
    let errs = FlinkConfig::from_map(&map(&[
        ("execution.checkpointing.interval", "often"),
        ("execution.checkpointing.mode", "MOSTLY_ONCE"),
        ("execution.checkpointing.unaligned.enabled", "yes"),
        ("restart-strategy.exponential-delay.jitter-factor", "1.5"),
        ("execution.checkpointing.data-inline-threshold", "2mb"),
        ("pipeline.max-parallelism", "0"),
        // Checked even though fixed-delay is not the strategy in use.
        ("restart-strategy.fixed-delay.attempts", "-2"),
    ]))
    .unwrap_err();
    let all = errs.join("\n");
    assert_eq!(errs.len(), 7, "{all}");
    assert!(
        all.contains("'execution.checkpointing.interval': bad value 'often', expected a duration")
    );
    assert!(all.contains("'MOSTLY_ONCE', expected one of EXACTLY_ONCE, AT_LEAST_ONCE"));
    assert!(all.contains("'yes', expected true or false"));
    assert!(all.contains("'1.5', expected a decimal of at least 0.0 and at most 1.0"));
    assert!(all.contains("'2mb', expected a memory size between 0 and 1048576 bytes"));
    assert!(all.contains("'pipeline.max-parallelism': bad value '0'"));
    assert!(all.contains("'restart-strategy.fixed-delay.attempts': bad value '-2'"));
    // The 10 ms minimum interval.
    let errs =
        FlinkConfig::from_map(&map(&[("execution.checkpointing.interval", "5ms")])).unwrap_err();
    assert!(errs[0].contains("at least 10000us"), "{errs:?}");
}

#[test]
fn enums_are_case_insensitive_and_decimals_fixed_point() {
    let c = FlinkConfig::from_map(&map(&[
        ("execution.checkpointing.mode", "at_least_once"),
        ("restart-strategy.type", "exponential-delay"),
        ("restart-strategy.exponential-delay.backoff-multiplier", "2"),
    ]))
    .unwrap();
    assert_eq!(c.checkpointing_mode, CheckpointingMode::AtLeastOnce);
    assert!(matches!(
        c.restart_strategy,
        RestartStrategy::ExponentialDelay {
            backoff_multiplier_milli: 2000,
            ..
        }
    ));
    assert_eq!(parse_thousandths("1.5"), Some(1500));
    assert_eq!(parse_thousandths("0.125"), Some(125));
    assert_eq!(parse_thousandths(".5"), Some(500));
    assert_eq!(parse_thousandths("0.0001"), None);
    assert_eq!(parse_thousandths("-1"), None);
    assert_eq!(parse_thousandths("."), None);
    assert_eq!(format_thousandths(1500), "1.5");
    assert_eq!(format_thousandths(2000), "2.0");
}

#[test]
fn apply_set_flink_keys() {
    let mut s = preset("seed-demo").unwrap();
    apply_set(&mut s, "execution.checkpointing.interval=10s").unwrap();
    assert_eq!(s.config["execution.checkpointing.interval"], "10s");
    // A deprecated key is stored under its current name, replacing the old spelling.
    s.config
        .insert("execution.checkpointing.unaligned".into(), "false".into());
    apply_set(&mut s, "execution.checkpointing.unaligned = true").unwrap();
    assert!(!s.config.contains_key("execution.checkpointing.unaligned"));
    assert_eq!(
        s.config["execution.checkpointing.unaligned.enabled"],
        "true"
    );
    assert!(s.validate().unwrap().config.unaligned_enabled);

    let before = s.clone();
    let e = apply_set(&mut s, "execution.checkpointing.timout=1min").unwrap_err();
    assert!(
        e.contains("did you mean 'execution.checkpointing.timeout'"),
        "{e}"
    );
    let e = apply_set(&mut s, "execution.checkpointing.timeout=soon").unwrap_err();
    assert!(e.contains("bad value 'soon'"), "{e}");
    let e = apply_set(&mut s, "no-equals-sign").unwrap_err();
    assert!(e.contains("not KEY=VALUE"), "{e}");
    assert_eq!(s, before, "a failed --set leaves the scenario unchanged");
}

#[test]
fn apply_set_operator_knobs() {
    let mut s = preset("seed-demo").unwrap();
    apply_set(&mut s, "operator.count-per-key.cost-per-record=5ms").unwrap();
    apply_set(&mut s, "operator.datagen.rate=4000").unwrap();
    apply_set(&mut s, "operator.datagen.record-size=2kb").unwrap();
    apply_set(&mut s, "operator.datagen.keys=32").unwrap();
    apply_set(&mut s, "operator.datagen.hot-keys=3").unwrap();
    apply_set(&mut s, "operator.datagen.max-parallelism=256").unwrap();
    apply_set(&mut s, "operator.discard-sink.parallelism=1").unwrap();
    assert_eq!(s.operators[1].cost_per_record.as_deref(), Some("5ms"));
    assert_eq!(s.operators[0].max_parallelism, Some(256));
    assert_eq!(s.operators[3].parallelism, Some(1));
    match &s.operators[0].kind {
        OperatorKind::Datagen {
            rate,
            record_size,
            keys,
            key_distribution,
            ..
        } => {
            assert_eq!((*rate, *record_size, *keys), (4000, 2048, 32));
            assert_eq!(
                *key_distribution,
                KeyDistribution::Skewed {
                    hot_keys: 3,
                    hot_percent: 80
                }
            );
        }
        other => panic!("{other:?}"),
    }
    // The sink now has parallelism 1 behind a forward edge: validation says so, Flink-style.
    let errs = s.validate().unwrap_err();
    assert!(errs[0]
        .message
        .starts_with("Forward partitioning does not allow change of parallelism"));

    let e = apply_set(&mut s, "operator.nope.parallelism=2").unwrap_err();
    assert!(
        e.contains("unknown operator 'nope'") && e.contains("count-per-key"),
        "{e}"
    );
    let e = apply_set(&mut s, "operator.count-per-key.rate=5").unwrap_err();
    assert_eq!(e, "operator 'count-per-key' (keyed-count) has no knob 'rate'; its knobs are: parallelism, max-parallelism, cost-per-record, state-ttl");
    // state-ttl: a duration of at least 1 ms on a keyed process function, nowhere else.
    apply_set(&mut s, "operator.count-per-key.state-ttl=10s").unwrap();
    assert_eq!(s.operators[1].state_ttl_millis(), Ok(Some(10_000)));
    let e = apply_set(&mut s, "operator.count-per-key.state-ttl=soon").unwrap_err();
    assert!(e.contains("state-ttl: bad value 'soon'"), "{e}");
    let e = apply_set(&mut s, "operator.count-per-key.state-ttl=500us").unwrap_err();
    assert!(e.contains("at least 1ms"), "{e}");
    apply_set(&mut s, "operator.count-per-key.state-ttl=none").unwrap();
    assert_eq!(s.operators[1].state_ttl, None);
    let e = apply_set(&mut s, "operator.datagen.state-ttl=10s").unwrap_err();
    assert!(e.contains("has no knob 'state-ttl'"), "{e}");
    let e = apply_set(&mut s, "operator.datagen.rate=fast").unwrap_err();
    assert!(e.contains("operator.datagen.rate: bad value 'fast'"), "{e}");
    let e = apply_set(&mut s, "operator.datagen.distribution=zipf").unwrap_err();
    assert_eq!(
        e,
        "operator.datagen.distribution: bad value 'zipf', expected uniform or skewed"
    );
    let e = apply_set(&mut s, "operator.datagen.cost-per-record=slow").unwrap_err();
    assert!(e.contains("expected a duration"), "{e}");
}

#[test]
fn yaml_flat_and_nested() {
    let flat = "# checkpointing\nexecution.checkpointing.interval: 5s\nexecution.checkpointing.mode: 'EXACTLY_ONCE'  # quoted\n\nstate.checkpoints.num-retained: \"3\"\n";
    assert_eq!(
        parse_flink_yaml(flat).unwrap(),
        vec![
            (
                "execution.checkpointing.interval".to_string(),
                "5s".to_string()
            ),
            (
                "execution.checkpointing.mode".to_string(),
                "EXACTLY_ONCE".to_string()
            ),
            (
                "state.checkpoints.num-retained".to_string(),
                "3".to_string()
            ),
        ]
    );
    let nested = "
execution:
  checkpointing:
    interval: 5s
    unaligned:
      enabled: true
  buffer-timeout.interval: 10 ms
taskmanager.memory.segment-size: 32kb
";
    assert_eq!(
        parse_flink_yaml(nested).unwrap(),
        vec![
            (
                "execution.checkpointing.interval".to_string(),
                "5s".to_string()
            ),
            (
                "execution.checkpointing.unaligned.enabled".to_string(),
                "true".to_string()
            ),
            (
                "execution.buffer-timeout.interval".to_string(),
                "10 ms".to_string()
            ),
            (
                "taskmanager.memory.segment-size".to_string(),
                "32kb".to_string()
            ),
        ]
    );
    // An indented paste still reads.
    assert_eq!(parse_flink_yaml("  a:\n    b: 1\n  c: 2").unwrap().len(), 2);
}

#[test]
fn yaml_errors_name_the_line() {
    let cases = [
        (
            "a:\n    b: 1\n  c: 2\n",
            "line 3: indentation does not match",
        ),
        ("a:\nb: 1\n", "line 1: key 'a' has no value"),
        ("a:\n", "line 1: key 'a' has no value"),
        ("- x\n", "line 1: a list item needs a key above it"),
        (
            "a:\n  - x\n    - y\n",
            "line 3: nested lists are not supported",
        ),
        ("just text\n", "line 1: expected `key: value`"),
        (
            "a: [1, 2\n",
            "line 1: the list or map '[1, 2' does not close",
        ),
        ("a: [1] 2\n", "line 1: unexpected text after '[1]'"),
        ("a: &anchor 1\n", "line 1: YAML anchors"),
        ("a: |x\n", "line 1: unsupported block scalar header"),
        ("a:\n\tb: 1\n", "line 2: tab in indentation"),
        ("a: 'open\n", "line 1: unterminated quoted value"),
        (
            "a: 1\na: 2\n",
            "line 2: key 'a' appears twice (first on line 1)",
        ),
        (
            "a:\n  b: 1\na.b: 2\n",
            "line 3: key 'a.b' appears twice (first on line 2)",
        ),
    ];
    for (text, expected) in cases {
        let e = parse_flink_yaml(text).unwrap_err();
        assert!(e.starts_with(expected), "{text:?}: {e}");
    }
}

/// seed-demo with every operator but the source left at the default parallelism.
fn seed_with_default_parallelism() -> Scenario {
    let mut s = preset("seed-demo").unwrap();
    for op in s.operators.iter_mut().skip(1) {
        op.parallelism = None;
    }
    s
}

#[test]
fn parallelism_default_applies_to_operators_that_set_none() {
    let mut s = seed_with_default_parallelism();
    // Unset: Flink's default of 1.
    let g = s.validate().unwrap();
    let p: Vec<u32> = g.vertices.iter().map(|v| v.parallelism).collect();
    assert_eq!(p, vec![2, 1]);
    assert_eq!((s.parallelism(0), s.parallelism(1)), (2, 1));

    apply_set(&mut s, "parallelism.default=4").unwrap();
    let g = s.validate().unwrap();
    let p: Vec<u32> = g.vertices.iter().map(|v| v.parallelism).collect();
    // The source keeps its own 2; the forward chain behind it takes 4.
    assert_eq!(p, vec![2, 4]);
    assert_eq!(g.config.default_parallelism, 4);
    assert_eq!(s.default_parallelism(), 4);
    // Slots: just enough for the largest parallelism.
    assert_eq!(g.slots_per_taskmanager, 4);
    // An operator's own parallelism wins; `operator.x.parallelism=` empties it again.
    apply_set(&mut s, "operator.discard-sink.parallelism=3").unwrap();
    let errs = s.validate().unwrap_err();
    assert!(
        errs[0]
            .message
            .contains("downstream operation: discard-sink parallelism: 3"),
        "{errs:?}"
    );
    apply_set(&mut s, "operator.discard-sink.parallelism=").unwrap();
    assert_eq!(s.operators[3].parallelism, None);
    s.validate().unwrap();
    // Unset parallelism stays out of the JSON, so links stay short and keep their meaning.
    assert!(!s.to_json().contains("\"parallelism\":4"));
    assert_eq!(Scenario::from_json(&s.to_json()).unwrap(), s);
}

#[test]
fn parallelism_default_is_checked() {
    for bad in ["0", "-1", "four", "32769"] {
        let mut s = seed_with_default_parallelism();
        let e = apply_set(&mut s, &format!("parallelism.default={bad}")).unwrap_err();
        assert!(e.contains("'parallelism.default': bad value"), "{bad}: {e}");
        s.config.insert("parallelism.default".into(), bad.into());
        assert!(s.validate().unwrap_err()[0]
            .message
            .contains("parallelism.default"));
    }
}

#[test]
fn directories_are_checked_and_printed_as_flink_does() {
    assert_eq!(flink_path("file:///tmp/ckpt/").unwrap(), "file:/tmp/ckpt");
    assert_eq!(flink_path("file:/tmp//ckpt").unwrap(), "file:/tmp/ckpt");
    assert_eq!(
        flink_path("hdfs://nn:8020/flink/checkpoints").unwrap(),
        "hdfs://nn:8020/flink/checkpoints"
    );
    assert_eq!(flink_path(" s3://bucket/a/ ").unwrap(), "s3://bucket/a");
    for (bad, why) in [
        ("/tmp/ckpt", "scheme"),
        ("tmp", "scheme"),
        ("file:///", "root"),
        ("s3://bucket", "root"),
        ("s3://bucket/", "root"),
        ("file:tmp/x", "absolute"),
        ("1ab:/x", "scheme"),
    ] {
        let e = flink_path(bad).unwrap_err();
        assert!(e.contains(why), "{bad}: {e}");
    }
    let info = resolve_key("state.checkpoints.dir").unwrap();
    assert_eq!(info.key, "execution.checkpointing.dir");
    assert!(check_value(info, "/no/scheme")
        .unwrap_err()
        .contains("expected a directory URI"));
}

#[test]
fn checkpoint_and_savepoint_paths_use_the_configured_directories() {
    use crate::sim::{Simulation, UserRequest};
    // (checkpoint paths, savepoint paths) of a run with a savepoint, the job id as <job>.
    let paths = |config: &[(&str, &str)]| {
        let mut s = preset("seed-demo").unwrap();
        for (k, v) in config {
            s.config.insert(k.to_string(), v.to_string());
        }
        let mut sim = Simulation::new(s).unwrap();
        sim.run_until(6 * MICROS_PER_SEC);
        sim.request(UserRequest::Savepoint);
        sim.run_until(20 * MICROS_PER_SEC);
        let job = sim.coordinator.job_id().to_string();
        let short: String = job.chars().take(6).collect();
        let v = serde_json::to_value(crate::stats::checkpointing_statistics(
            sim.coordinator.stats(),
            &[],
        ))
        .unwrap();
        let (mut checkpoints, mut savepoints) = (Vec::new(), Vec::new());
        for h in v["history"].as_array().unwrap() {
            let Some(p) = h["external_path"].as_str() else {
                continue;
            };
            let p = p.replace(&job, "<job>").replace(&short, "<job>");
            if h["is_savepoint"] == true {
                savepoints.push(p);
            } else {
                checkpoints.push(p);
            }
        }
        (checkpoints, savepoints)
    };
    let all_start_with = |paths: &[String], prefix: &str| {
        !paths.is_empty() && paths.iter().all(|p| p.starts_with(prefix))
    };
    let (checkpoints, savepoints) = paths(&[]);
    assert!(
        all_start_with(&checkpoints, "file:/tmp/flink-checkpoints/<job>/chk-"),
        "{checkpoints:?}"
    );
    assert!(
        all_start_with(&savepoints, "file:/tmp/flink-savepoints/savepoint-<job>-"),
        "{savepoints:?}"
    );
    let (checkpoints, savepoints) = paths(&[
        ("state.checkpoints.dir", "file:///data/flink/checkpoints/"),
        (
            "execution.checkpointing.savepoint-dir",
            "s3://bucket/savepoints",
        ),
    ]);
    assert!(
        all_start_with(&checkpoints, "file:/data/flink/checkpoints/<job>/chk-"),
        "{checkpoints:?}"
    );
    assert!(
        all_start_with(&savepoints, "s3://bucket/savepoints/savepoint-<job>-"),
        "{savepoints:?}"
    );
}

#[test]
fn a_storage_profile_sets_latency_and_throughput_and_each_key_overrides_it() {
    let local = FlinkConfig::default();
    assert_eq!(local.storage_write_latency, 3 * MICROS_PER_MS);
    assert_eq!(local.storage_write_throughput, 100 << 20);
    let s3 =
        FlinkConfig::from_map(&map(&[("barrierlab.storage.profile", "object-store")])).unwrap();
    assert_eq!(s3.storage_write_latency, 100 * MICROS_PER_MS);
    assert_eq!(s3.storage_write_throughput, 85 << 20);
    let mixed = FlinkConfig::from_map(&map(&[
        ("barrierlab.storage.profile", "OBJECT-STORE"),
        ("barrierlab.storage.write-latency", "20ms"),
    ]))
    .unwrap();
    assert_eq!(mixed.storage_write_latency, 20 * MICROS_PER_MS);
    assert_eq!(mixed.storage_write_throughput, 85 << 20);
    let bad = FlinkConfig::from_map(&map(&[("barrierlab.storage.profile", "tape")])).unwrap_err();
    assert!(bad[0].contains("local-disk"), "{bad:?}");
}

#[test]
fn buffer_debloating_is_off_by_default_and_reads_flink_s_keys() {
    assert_eq!(FlinkConfig::default().debloat, None);
    let on = FlinkConfig::from_map(&map(&[
        ("taskmanager.network.memory.buffer-debloat.enabled", "true"),
        ("taskmanager.network.memory.buffer-debloat.target", "500ms"),
        ("taskmanager.memory.segment-size", "16kb"),
        ("taskmanager.memory.starting-segment-size", "64kb"),
    ]))
    .unwrap()
    .debloat
    .unwrap();
    assert_eq!(on.target, 500 * MICROS_PER_MS);
    assert_eq!(on.period, 200 * MICROS_PER_MS);
    assert_eq!((on.samples, on.threshold_percent), (20, 25));
    assert_eq!((on.min_size, on.max_size), (256, 16 * 1024));
    // The starting size never exceeds the segment.
    assert_eq!(on.starting_size, 16 * 1024);
}

#[test]
fn a_state_ttl_where_no_state_can_expire_is_refused_with_the_reason() {
    let mut s = crate::scenario::preset("seed-demo").unwrap();
    s.operators[2].state_ttl = Some("10s".into());
    let errs = s.validate().unwrap_err();
    assert!(
        errs.iter().any(|e| e.message.contains(
            "state-ttl applies to a keyed-count's or keyed-list's state; a checkpoint-aware-map has none"
        )),
        "{errs:?}"
    );
    s.operators[2].state_ttl = None;
    s.operators[1].state_ttl = Some("0ms".into());
    let errs = s.validate().unwrap_err();
    assert!(
        errs.iter().any(|e| e.message.contains("at least 1ms")),
        "{errs:?}"
    );
    s.operators[1].state_ttl = Some("later".into());
    let errs = s.validate().unwrap_err();
    assert!(
        errs.iter().any(|e| e.message.contains("bad state-ttl")),
        "{errs:?}"
    );
}
