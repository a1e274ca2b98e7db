//! The export's contract: every preset exports, every kind and partitioner maps to its Flink API,
//! config.yaml carries the scenario's keys as Flink 2.3 spells them, refusals name what they refuse.
//! (That the Java compiles is checked against real Flink jars in `crates/cli/tests/export_javac.rs`.)

use super::java::java_string;
use super::*;
use crate::scenario::{preset, Fault, OperatorKind, Scenario, PRESETS};

const ALL_KINDS: &str = include_str!("../../../../tests/fixtures/export/all-kinds.json");
const MIXED_UNION: &str = include_str!("../../../../tests/fixtures/export/mixed-union.json");

fn file<'a>(files: &'a [ExportedFile], path: &str) -> &'a str {
    files
        .iter()
        .find(|f| f.path == path)
        .map(|f| f.contents.as_str())
        .unwrap_or_else(|| panic!("no {path} in the export"))
}

fn topology(files: &[ExportedFile]) -> &str {
    file(files, "src/main/java/barrierlab/Topology.java")
}

fn export(s: &Scenario) -> Vec<ExportedFile> {
    export_flink_job(s).unwrap_or_else(|e| panic!("{} does not export: {e}", s.name))
}

#[test]
fn every_preset_exports_every_file() {
    for (name, _) in PRESETS {
        let files = export(&preset(name).unwrap());
        for path in [
            "src/main/java/barrierlab/BarrierLabJob.java",
            "src/main/java/barrierlab/Topology.java",
            "src/main/java/barrierlab/Operators.java",
            "src/main/java/barrierlab/Sinks.java",
            "src/main/java/barrierlab/Records.java",
            "src/main/java/barrierlab/Work.java",
            "config.yaml",
            "run.sh",
            "log4j2.properties",
            "README.md",
            "scenario.json",
        ] {
            assert!(!file(&files, path).is_empty(), "{name}: {path} is empty");
        }
        let executable: Vec<&str> = files
            .iter()
            .filter(|f| f.executable)
            .map(|f| f.path.as_str())
            .collect();
        assert_eq!(executable, ["run.sh"], "{name}");
        assert!(topology(&files).contains(&format!("JOB_NAME = \"{name}\"")));
        // The export carries its scenario, so a harness can run the simulator on the same input.
        let back = Scenario::from_json(file(&files, "scenario.json")).unwrap();
        assert_eq!(back, preset(name).unwrap());
    }
}

#[test]
fn seed_job_uses_the_expected_flink_apis() {
    let files = export(&preset("seed-demo").unwrap());
    let java = topology(&files);
    for expected in [
        "new DataGeneratorSource<>(",
        "new Operators.Datagen(0x1L, 0, 2, Long.MAX_VALUE, 16, 0, 0, 1024, Work.of(\"datagen\", start))",
        "RateLimiterStrategy.perSecond(2000)",
        "WatermarkStrategy.noWatermarks(),\n                        \"datagen\")",
        "s0.keyBy(new Records.KeyOf<>(), Types.INT)",
        ".process(new Operators.KeyedCount<>(Work.of(\"count-per-key\", start)), Records.KEYED)",
        "s1.forward()\n                .map(new Operators.CheckpointAwareMap<>(",
        ".sinkTo(new DiscardingSink<>())",
        ".name(\"count-per-key\")",
        ".uid(\"checkpoint-aware-map\")",
        ".setParallelism(2)",
    ] {
        assert!(java.contains(expected), "missing {expected:?} in\n{java}");
    }
    // No explicit cost, max parallelism or chain break in the seed job.
    for absent in [
        ".cost(",
        "setMaxParallelism",
        "startNewChain",
        "disableChaining",
    ] {
        assert!(!java.contains(absent), "unexpected {absent} in\n{java}");
    }
    let operators = file(&files, "src/main/java/barrierlab/Operators.java");
    for expected in [
        "new ValueStateDescriptor<>(\"count\", Types.LONG)",
        "implements CheckpointedFunction, CheckpointListener",
        "extends KeyedProcessFunction<Integer, Tuple2<Integer, V>, Tuple2<Integer, Long>>",
    ] {
        assert!(
            operators.contains(expected),
            "Operators.java lacks {expected}"
        );
    }
    let sinks = file(&files, "src/main/java/barrierlab/Sinks.java");
    for expected in [
        "implements Sink<T>, SupportsCommitter<Txn>",
        "CommittingSinkWriter<T, Txn>",
        "public Collection<Txn> prepareCommit()",
        "SimpleVersionedSerializer<Txn>",
    ] {
        assert!(sinks.contains(expected), "Sinks.java lacks {expected}");
    }
    let main = file(&files, "src/main/java/barrierlab/BarrierLabJob.java");
    for expected in [
        "GlobalConfiguration.loadConfiguration(",
        "new MiniClusterConfiguration.Builder()",
        "setNumTaskManagers(conf.get(TaskManagerOptions.MINI_CLUSTER_NUM_TASK_MANAGERS))",
        "\"BARRIERLAB-JOB \" + job + \" http://127.0.0.1:\"",
        "cluster.cancelJob(job)",
    ] {
        assert!(
            main.contains(expected),
            "BarrierLabJob.java lacks {expected}"
        );
    }
}

#[test]
fn every_kind_and_partitioner_maps_to_its_api() {
    let s = Scenario::from_json(ALL_KINDS).unwrap();
    let kinds: Vec<&str> = s.operators.iter().map(|o| o.kind.type_name()).collect();
    for kind in [
        "datagen",
        "map",
        "filter",
        "union",
        "keyed-count",
        "keyed-list",
        "keyed-window-sum",
        "checkpoint-aware-map",
        "discard-sink",
        "collect-sink",
        "two-phase-commit-sink",
    ] {
        assert!(kinds.contains(&kind), "the fixture lacks {kind}");
    }
    let files = export(&s);
    let java = topology(&files);
    for expected in [
        // skewed + bounded datagen: 4 hot keys take 80 %, 200000 records in total
        "new Operators.Datagen(0x7L, 0, 2, 200000L, 64, 4, 80, 256,",
        "200000L,\n                                RateLimiterStrategy.perSecond(1000)",
        "Work.of(\"enrich\", start).cost(50000L).slow(5000L, 1000000L)",
        ".filter(new Operators.Filter<>(50,",
        ".connect(s1.rebalance())",
        "new Operators.Union<>(false,",
        "Work.of(\"count\", start).kill(1, 10000L), 30000L), Records.KEYED)",
        ".process(new Operators.KeyedList<>(Work.of(\"buffer\", start), 5000L), Records.BYTES)",
        ".window(TumblingProcessingTimeWindows.of(Duration.ofMillis(2000)))",
        ".aggregate(new Operators.WindowAdd<>(w6), new Operators.WindowEmit(w6), Types.LONG, Records.KEYED)",
        "new Operators.CheckpointAwareMap<>(",
        ".sinkTo(new Sinks.TwoPhaseCommit<>(",
        "s6.rescale()\n                .sinkTo(new Sinks.Collect<>(",
        "s6.broadcast()",
        ".keyBy(new Records.KeyOf<>(), Types.INT)",
        ".forward()",
        ".sinkTo(new DiscardingSink<>())",
        // one operator sets max parallelism 256, so every operator gets its resolved value
        ".setMaxParallelism(256)",
        ".setMaxParallelism(128)",
        "latency 2ms is a simulator knob, not exported",
    ] {
        assert!(java.contains(expected), "missing {expected:?} in\n{java}");
    }
    // Both datagens' vertex ids feed their keys: orders is vertex 0, clicks vertex 1.
    assert!(java.contains("new Operators.Datagen(0x7L, 1, 1, Long.MAX_VALUE, 16, 0, 0, 64,"));
    let readme = file(&files, "README.md");
    assert!(readme.contains("kill `count#1` at 10000 ms"));
    assert!(readme.contains("edge `clicks` -> `merge`: latency 2ms"));
    assert!(readme.contains("`barrierlab.network-latency`"));
}

/// ForSt keeps its state on the primary storage only for the async state API, so its keyed
/// operators are exported on it; on the other backends they stay synchronous.
#[test]
fn forst_exports_keyed_operators_on_the_async_state_api() {
    let mut s = Scenario::from_json(ALL_KINDS).unwrap();
    s.config.insert("state.backend.type".into(), "forst".into());
    let files = export(&s);
    let java = topology(&files);
    assert!(
        java.contains(
            ".enableAsyncState()\n                .process(new Operators.AsyncKeyedCount<>("
        ),
        "{java}"
    );
    assert!(
        java.contains(".enableAsyncState()\n                .window("),
        "{java}"
    );
    assert!(file(&files, "config.yaml").contains("state.backend.type: forst"));
    let java = topology(&export(&Scenario::from_json(ALL_KINDS).unwrap())).to_string();
    assert!(
        !java.contains("enableAsyncState") && !java.contains("AsyncKeyedCount"),
        "{java}"
    );
}

#[test]
fn mixed_union_and_forward_fan_out() {
    let files = export(&Scenario::from_json(MIXED_UNION).unwrap());
    let java = topology(&files);
    // The union of BYTES and KEYED leaves as BYTES.
    assert!(java.contains("DataStream<Tuple2<Integer, byte[]>> s3 = s1.forward()\n                .connect(s2.forward())\n                .map(new Operators.Union<>(true,"), "{java}");
    // src fans out: Flink would chain the forward edge into raw, the engine does not.
    let raw = java.split("// map 'raw'").nth(1).unwrap();
    assert!(
        raw.split(';').next().unwrap().contains(".startNewChain()"),
        "{java}"
    );
    // A discard sink with a cost needs a writer of its own.
    assert!(java.contains(".sinkTo(new Sinks.Discard<>(Work.of(\"out\", start).cost(10000L)))"));
    let yaml = file(&files, "config.yaml");
    assert!(
        yaml.contains(
            "restart-strategy.type: disable  # scenario: restart-strategy.type: no-restart"
        ),
        "{yaml}"
    );
}

#[test]
fn forward_fan_out_into_sinks_disables_their_chaining() {
    let mut s = preset("seed-demo").unwrap();
    s.operators.push(
        crate::scenario::OperatorSpec::new("second-sink", OperatorKind::CollectSink)
            .with_parallelism(2),
    );
    s.edges.push(crate::scenario::EdgeSpec::new(
        "checkpoint-aware-map",
        "second-sink",
        crate::scenario::Partitioner::Forward,
    ));
    let files = export(&s);
    let java = topology(&files);
    assert_eq!(java.matches(".disableChaining()").count(), 2, "{java}");

    // A committing sink keeps Writer -> Committer chained: its input is a rescale edge instead.
    let mut s = preset("seed-2pc").unwrap();
    s.operators.push(
        crate::scenario::OperatorSpec::new("second-sink", OperatorKind::DiscardSink)
            .with_parallelism(2),
    );
    s.edges.push(crate::scenario::EdgeSpec::new(
        "checkpoint-aware-map",
        "second-sink",
        crate::scenario::Partitioner::Forward,
    ));
    let java = topology(&export(&s)).to_string();
    assert!(
        java.contains("s2.rescale()\n                .sinkTo(new Sinks.TwoPhaseCommit<>("),
        "{java}"
    );
    assert_eq!(java.matches(".disableChaining()").count(), 1, "{java}");
}

#[test]
fn config_yaml_has_every_flink_key_in_flink_spelling() {
    let s = Scenario::from_json(ALL_KINDS).unwrap();
    let yaml = file(&export(&s), "config.yaml").to_string();
    for line in [
        "execution.checkpointing.interval: 2s\n",
        // deprecated names as Flink 2.3 spells them, the scenario's spelling in a comment
        "execution.checkpointing.unaligned.enabled: true  # scenario: execution.checkpointing.unaligned: true\n",
        "execution.checkpointing.num-retained: 3  # scenario: state.checkpoints.num-retained: 3\n",
        // Flink 2.3 does not know the unit `us`
        "execution.checkpointing.aligned-checkpoint-timeout: 500 micros  # scenario: execution.checkpointing.aligned-checkpoint-timeout: 500us\n",
        "restart-strategy.type: fixed-delay\n",
        "restart-strategy.fixed-delay.attempts: 3\n",
        "restart-strategy.fixed-delay.delay: 1s\n",
        "# barrierlab.network-latency: 1ms  (Barrier Lab:",
        "minicluster.number-of-taskmanagers: 2  #",
        "taskmanager.numberOfTaskSlots: 1  #",
        "state.backend.type: hashmap",
        "execution.checkpointing.dir: 'file:///tmp/barrierlab-checkpoints/export-all-kinds'\n",
    ] {
        assert!(yaml.contains(line), "missing {line:?} in\n{yaml}");
    }
    // Model knobs only as comments.
    assert!(!yaml.lines().any(|l| l.starts_with("barrierlab.")));

    let files = export_flink_job_with(
        &s,
        &ExportOptions {
            checkpoint_dir: Some("file:///x/y z/checkpoints".into()),
        },
    )
    .unwrap();
    assert!(file(&files, "config.yaml")
        .contains("execution.checkpointing.dir: 'file:///x/y z/checkpoints'\n"));

    let seed = file(&export(&preset("seed-demo").unwrap()), "config.yaml").to_string();
    for line in [
        "execution.checkpointing.interval: 5s\n",
        "execution.checkpointing.mode: EXACTLY_ONCE\n",
        "execution.checkpointing.externalized-checkpoint-retention: RETAIN_ON_CANCELLATION\n",
        "minicluster.number-of-taskmanagers: 1",
        "taskmanager.numberOfTaskSlots: 2",
    ] {
        assert!(seed.contains(line), "missing {line:?} in\n{seed}");
    }
}

#[test]
fn config_yaml_writes_the_checkpoint_directory_once() {
    let mut s = preset("seed-demo").unwrap();
    s.config
        .insert("state.checkpoints.dir".into(), "file:///data/ckpt".into());
    s.config.insert("parallelism.default".into(), "2".into());
    // The playground's export keeps the scenario's directory.
    let yaml = file(&export(&s), "config.yaml").to_string();
    assert_eq!(
        yaml.matches("execution.checkpointing.dir:").count(),
        1,
        "{yaml}"
    );
    assert!(
        yaml.contains("execution.checkpointing.dir: 'file:/data/ckpt'\n"),
        "{yaml}"
    );
    assert!(yaml.contains("parallelism.default: 2\n"), "{yaml}");
    assert!(!yaml.contains("state.checkpoints.dir"), "{yaml}");
    // The CLI's directory wins; the scenario's is kept as a comment.
    let files = export_flink_job_with(
        &s,
        &ExportOptions {
            checkpoint_dir: Some("file:///out/checkpoints".into()),
        },
    )
    .unwrap();
    let yaml = file(&files, "config.yaml");
    assert_eq!(
        yaml.matches("execution.checkpointing.dir:").count(),
        2,
        "{yaml}"
    );
    assert!(yaml.contains(
        "execution.checkpointing.dir: 'file:///out/checkpoints'  # scenario: execution.checkpointing.dir: file:///data/ckpt\n"
    ), "{yaml}");
}

#[test]
fn refusals_name_what_they_refuse() {
    let mut s = preset("seed-demo").unwrap();
    s.faults.push(Fault::Decline {
        task: "count-per-key#1".into(),
        checkpoint: 3,
    });
    s.faults.push(Fault::StorageFailure {
        from: "1s".into(),
        until: "2s".into(),
    });
    s.faults.push(Fault::Kill {
        task: "count-per-key#1".into(),
        at: "5s".into(),
    });
    if let OperatorKind::Datagen { record_size, .. } = &mut s.operators[0].kind {
        *record_size = 4;
    }
    let err = export_flink_job(&s).unwrap_err();
    assert!(
        err.starts_with("cannot export scenario 'seed-demo' as a Flink job:"),
        "{err}"
    );
    assert!(err.contains("fault #1 {\"decline\":{\"task\":\"count-per-key#1\",\"checkpoint\":3}}: not exportable: a plain job cannot make a task decline"), "{err}");
    assert!(err.contains("fault #2 {\"storage-failure\""), "{err}");
    assert!(!err.contains("fault #3"), "kills are exportable: {err}");
    assert!(
        err.contains("operator 'datagen': record-size 4 is below 8 bytes"),
        "{err}"
    );

    let mut w = preset("seed-demo").unwrap();
    w.operators[1].kind = OperatorKind::KeyedWindowSum {
        window: "1500us".into(),
    };
    let err = export_flink_job(&w).unwrap_err();
    assert!(
        err.contains(
            "operator 'count-per-key': window '1500us' is not a whole number of milliseconds"
        ),
        "{err}"
    );

    // Invalid scenarios fail validation first, with validation's message.
    let mut bad = preset("seed-demo").unwrap();
    bad.edges[0].partitioner = crate::scenario::Partitioner::Rebalance;
    let err = export_flink_job(&bad).unwrap_err();
    assert!(
        err.contains("its input must use the hash partitioner"),
        "{err}"
    );
}

#[test]
fn names_become_safe_java_literals() {
    assert_eq!(java_string("a\"b\\c"), r#""a\"b\\c""#);
    assert_eq!(java_string("x\ny\u{1}"), r#""x\ny\001""#);
    assert_eq!(java_string("zähler"), "\"zähler\"");
    let mut s = preset("seed-demo").unwrap();
    s.name = "odd \"name\" */ \\u000a".into();
    let java = topology(&export(&s)).to_string();
    assert!(
        java.contains(r#"JOB_NAME = "odd \"name\" */ \\u000a";"#),
        "{java}"
    );
    assert!(!java.contains("*/ \\u000a'"), "{java}");
}

#[test]
fn directory_names_read_like_the_scenario_name() {
    use super::slug;
    assert_eq!(slug("seed-2pc"), "seed-2pc");
    assert_eq!(
        slug("custom: seed-2pc + 1 fault"),
        "custom-seed-2pc-1-fault"
    );
    assert_eq!(slug("my_job (v2)"), "my_job-v2");
    assert_eq!(slug(" :: "), "scenario");
}
