//! Tests of the scenario model, validation, chaining and presets.

use super::*;

fn op(name: &str, kind: OperatorKind, p: u32) -> OperatorSpec {
    OperatorSpec::new(name, kind).with_parallelism(p)
}

fn datagen() -> OperatorKind {
    OperatorKind::Datagen {
        rate: 100,
        record_size: 10,
        keys: 4,
        key_distribution: KeyDistribution::Uniform,
        bounded: None,
    }
}

fn scenario(operators: Vec<OperatorSpec>, edges: &[(&str, &str, Partitioner)]) -> Scenario {
    Scenario {
        version: SCENARIO_VERSION,
        name: "t".into(),
        description: String::new(),
        seed: 0,
        cluster: Cluster::default(),
        operators,
        edges: edges
            .iter()
            .map(|(a, b, p)| EdgeSpec::new(a, b, *p))
            .collect(),
        config: Default::default(),
        faults: Vec::new(),
    }
}

/// All validation messages joined, for `contains` checks.
fn errors_of(s: &Scenario) -> String {
    s.validate()
        .unwrap_err()
        .iter()
        .map(|e| e.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn every_preset_round_trips_and_validates() {
    for (name, description) in PRESETS {
        let s = preset(name).unwrap_or_else(|| panic!("preset {name} missing"));
        assert_eq!(s.name, *name);
        assert_eq!(s.description, *description);
        for json in [s.to_json(), s.to_json_pretty()] {
            assert_eq!(Scenario::from_json(&json).unwrap(), s, "{name}");
        }
        if let Err(errs) = s.validate() {
            panic!("preset {name} invalid: {errs:?}");
        }
    }
    assert!(preset("nope").is_none());
}

#[test]
fn seed_demo_is_the_seed_job() {
    let s = preset("seed-demo").unwrap();
    let names: Vec<&str> = s.operators.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "datagen",
            "count-per-key",
            "checkpoint-aware-map",
            "discard-sink"
        ]
    );
    assert!(s.operators.iter().all(|o| o.parallelism == Some(2)));
    assert_eq!(s.seed, 1);
    assert_eq!(s.cluster.taskmanagers, 1);
    // Compact JSON leaves defaults out.
    let json = s.to_json();
    assert!(
        !json.contains("\"parallelism\":1") && !json.contains("faults"),
        "{json}"
    );
    assert!(
        !json.contains("key-distribution") && !json.contains("cluster"),
        "{json}"
    );
}

#[test]
fn seed_demo_chains_after_the_hash_edge() {
    let g = preset("seed-demo").unwrap().validate().unwrap();
    assert_eq!(g.vertices.len(), 2, "{g}");
    let (source, chain) = (&g.vertices[0], &g.vertices[1]);
    assert_eq!(source.name, "Source: datagen");
    assert_eq!(source.operators, vec![0]);
    assert_eq!(
        chain.name,
        "count-per-key -> checkpoint-aware-map -> discard-sink: Writer"
    );
    assert_eq!(chain.operators, vec![1, 2, 3]);
    assert_eq!((chain.parallelism, chain.max_parallelism), (2, 128));
    assert_eq!(source.outputs, chain.inputs);
    assert_eq!(
        chain.inputs,
        vec![JobEdge {
            source_vertex: 0,
            target_vertex: 1,
            partitioner: Partitioner::Hash,
            latency: None,
            scenario_edge: 0
        }]
    );
    assert_eq!((g.taskmanagers, g.slots_per_taskmanager), (1, 2));
    assert_eq!(g.config.checkpoint_interval, Some(5_000_000));
    assert_eq!(g.vertex_of_operator(2).map(|v| v.id), Some(1));
    assert_eq!(g.edges().count(), 1);
}

#[test]
fn chaining_can_be_switched_off_and_2pc_sink_names_writer_and_committer() {
    let mut s = preset("seed-2pc").unwrap();
    let g = s.validate().unwrap();
    assert_eq!(
        g.vertices[1].name,
        "count-per-key -> checkpoint-aware-map -> two-phase-commit-sink: Writer -> two-phase-commit-sink: Committer"
    );
    apply_set(&mut s, "pipeline.operator-chaining.enabled=false").unwrap();
    assert_eq!(s.validate().unwrap().vertices.len(), 4);
}

#[test]
fn union_is_its_own_vertex_and_order_is_topological() {
    let g = preset("two-input-join").unwrap().validate().unwrap();
    let names: Vec<&str> = g.vertices.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "Source: orders",
            "Source: payments -> slow-enrich",
            "union",
            "count-per-key -> discard-sink: Writer"
        ]
    );
    for e in g.edges() {
        assert!(e.source_vertex < e.target_vertex);
    }
    // The union's inputs keep declaration order: orders first.
    let union_inputs: Vec<u32> = g.vertices[2]
        .inputs
        .iter()
        .map(|e| e.source_vertex)
        .collect();
    assert_eq!(union_inputs, [0, 1]);
}

#[test]
fn default_max_parallelism_follows_flink() {
    assert_eq!(default_max_parallelism(1), 128);
    assert_eq!(default_max_parallelism(2), 128);
    assert_eq!(default_max_parallelism(100), 256);
    assert_eq!(default_max_parallelism(1000), 2048);
    assert_eq!(default_max_parallelism(30000), 32768);
    assert_eq!(default_max_parallelism(u32::MAX), 32768);
}

#[test]
fn empty_topology() {
    let e = errors_of(&scenario(vec![], &[]));
    assert!(e.contains("topology: the topology is empty"), "{e}");
}

#[test]
fn duplicate_names_and_dangling_edges() {
    let s = scenario(
        vec![op("a", datagen(), 1), op("a", OperatorKind::DiscardSink, 1)],
        &[("a", "sink", Partitioner::Forward)],
    );
    let e = errors_of(&s);
    assert!(e.contains("operator 'a': duplicate operator name"), "{e}");
    assert!(
        e.contains("edge 'a' -> 'sink': unknown target operator 'sink' (operators: a)"),
        "{e}"
    );
}

#[test]
fn cycles_are_named() {
    let s = scenario(
        vec![
            op("src", datagen(), 1),
            op("u", OperatorKind::Union, 1),
            op("m1", OperatorKind::Map, 1),
            op("m2", OperatorKind::Map, 1),
            op("sink", OperatorKind::DiscardSink, 1),
        ],
        &[
            ("src", "u", Partitioner::Forward),
            ("u", "m1", Partitioner::Forward),
            ("m1", "m2", Partitioner::Forward),
            ("m2", "u", Partitioner::Forward),
            ("m2", "sink", Partitioner::Forward),
        ],
    );
    let e = errors_of(&s);
    assert!(
        e.contains("topology: the job graph has a cycle: u -> m1 -> m2 -> u"),
        "{e}"
    );
}

#[test]
fn parallelism_limits() {
    let mut zero = op("src", datagen(), 0);
    zero.max_parallelism = None;
    let mut too_wide = op("m", OperatorKind::Map, 200);
    too_wide.max_parallelism = Some(100);
    let mut too_many_groups = op("sink", OperatorKind::DiscardSink, 1);
    too_many_groups.max_parallelism = Some(40000);
    let s = scenario(
        vec![zero, too_wide, too_many_groups],
        &[
            ("src", "m", Partitioner::Rebalance),
            ("m", "sink", Partitioner::Rebalance),
        ],
    );
    let e = errors_of(&s);
    assert!(
        e.contains("operator 'src': parallelism must be at least 1"),
        "{e}"
    );
    assert!(
        e.contains("operator 'm': parallelism 200 is greater than its max parallelism 100"),
        "{e}"
    );
    assert!(
        e.contains("operator 'sink': max-parallelism 40000 is above Flink's upper bound 32768"),
        "{e}"
    );
    // pipeline.max-parallelism applies to operators that set none.
    let mut s = scenario(
        vec![
            op("src", datagen(), 4),
            op("sink", OperatorKind::DiscardSink, 4),
        ],
        &[("src", "sink", Partitioner::Forward)],
    );
    s.config
        .insert("pipeline.max-parallelism".into(), "2".into());
    assert!(errors_of(&s).contains("parallelism 4 is greater than its max parallelism 2"));
}

#[test]
fn forward_edges_keep_parallelism() {
    let s = scenario(
        vec![
            op("src", datagen(), 2),
            op("sink", OperatorKind::DiscardSink, 1),
        ],
        &[("src", "sink", Partitioner::Forward)],
    );
    assert_eq!(
        errors_of(&s),
        "edge 'src' -> 'sink': Forward partitioning does not allow change of parallelism. Upstream operation: src parallelism: 2, downstream operation: sink parallelism: 1 You must use another partitioning strategy, such as hash, rebalance, rescale or broadcast."
    );
}

#[test]
fn keyed_operators_need_hash_inputs() {
    let s = scenario(
        vec![
            op("src", datagen(), 1),
            op("count", OperatorKind::KeyedCount, 1),
            op("sink", OperatorKind::DiscardSink, 1),
        ],
        &[
            ("src", "count", Partitioner::Rebalance),
            ("count", "sink", Partitioner::Forward),
        ],
    );
    assert_eq!(
        errors_of(&s),
        "edge 'src' -> 'count': 'count' is a keyed operator (keyed-count): its input must use the hash partitioner (keyBy), not rebalance"
    );
}

#[test]
fn roles_sources_sinks_and_unions() {
    let s = scenario(
        vec![
            op("src", datagen(), 1),
            op("src2", datagen(), 1),
            op("u", OperatorKind::Union, 1),
            op("lonely", OperatorKind::Map, 1),
            op("sink", OperatorKind::DiscardSink, 1),
        ],
        &[
            ("src", "src2", Partitioner::Forward),
            ("src2", "u", Partitioner::Forward),
            ("u", "sink", Partitioner::Forward),
            ("sink", "lonely", Partitioner::Forward),
        ],
    );
    let e = errors_of(&s);
    assert!(
        e.contains("operator 'src2': a source (datagen) cannot have inputs"),
        "{e}"
    );
    assert!(
        e.contains("operator 'u': a union takes exactly two inputs, but has 1"),
        "{e}"
    );
    assert!(
        e.contains("operator 'sink': a sink (discard-sink) cannot have outputs"),
        "{e}"
    );
    assert!(
        e.contains("operator 'lonely': its output goes nowhere"),
        "{e}"
    );

    let s = scenario(
        vec![
            op("m", OperatorKind::Map, 1),
            op("sink", OperatorKind::DiscardSink, 1),
        ],
        &[("m", "sink", Partitioner::Forward)],
    );
    assert!(errors_of(&s)
        .contains("operator 'm': has no input: a map needs an edge from an upstream operator"));
}

#[test]
fn knob_and_config_errors_surface_in_validate() {
    let mut src = op("src", datagen(), 1);
    src.cost_per_record = Some("quick".into());
    let mut s = scenario(
        vec![src, op("sink", OperatorKind::DiscardSink, 1)],
        &[("src", "sink", Partitioner::Forward)],
    );
    s.edges[0].latency = Some("far".into());
    s.config
        .insert("execution.checkpointing.intreval".into(), "5s".into());
    s.cluster.slots_per_taskmanager = Some(0);
    let e = errors_of(&s);
    assert!(e.contains("operator 'src': bad cost-per-record"), "{e}");
    assert!(e.contains("edge 'src' -> 'sink': bad latency"), "{e}");
    assert!(e.contains("config: unknown configuration key 'execution.checkpointing.intreval'; did you mean 'execution.checkpointing.interval'?"), "{e}");
    assert!(
        e.contains("cluster: slots-per-taskmanager must be at least 1"),
        "{e}"
    );
}

#[test]
fn serde_rejects_unknown_kinds_fields_and_garbage() {
    let base = preset("seed-demo").unwrap().to_json();
    let cases = [
        ("", "invalid scenario JSON"),
        ("{", "invalid scenario JSON"),
        ("[1,2,3]", "invalid scenario JSON"),
        ("\u{0}\u{1}garbage", "invalid scenario JSON"),
        (
            &base.replace("keyed-count", "keyed-cuont"),
            "unknown variant `keyed-cuont`",
        ),
        (
            &base.replace("\"seed\"", "\"sede\""),
            "unknown field `sede`",
        ),
        (
            &base.replace("record-size", "record_size"),
            "unknown field `record_size`",
        ),
        (
            &base.replace("\"hash\"", "\"hashed\""),
            "unknown variant `hashed`",
        ),
        (
            &base.replace("\"version\":1", "\"version\":2"),
            "unsupported scenario version 2",
        ),
    ];
    for (json, expected) in cases {
        let e = Scenario::from_json(json).unwrap_err();
        assert!(e.contains(expected), "{json}: {e}");
    }
    // Unit variants also refuse stray fields, so a knob on the wrong kind is not silently dropped.
    let stray = base.replace(
        "{\"type\":\"keyed-count\"}",
        "{\"type\":\"keyed-count\",\"rate\":5}",
    );
    assert_ne!(stray, base);
    assert!(Scenario::from_json(&stray)
        .unwrap_err()
        .contains("unknown field `rate`"));
    let stray = base.replace(
        "\"keys\":16",
        "\"keys\":16,\"key-distribution\":{\"type\":\"uniform\",\"hot-keys\":2}",
    );
    assert!(Scenario::from_json(&stray)
        .unwrap_err()
        .contains("unknown field `hot-keys`"));
}

#[test]
fn faults_and_defaults_travel_in_json() {
    let json = r#"{"name":"x","operators":[{"name":"s","kind":{"type":"datagen","rate":1,"record-size":1,"keys":1,"key-distribution":{"type":"skewed","hot-keys":1,"hot-percent":90},"bounded":5}},{"name":"k","kind":{"type":"discard-sink"}}],"edges":[{"from":"s","to":"k","partitioner":"forward","latency":"2ms"}],"faults":[{"kill":{"task":"k#0","at":"10s"}}]}"#;
    let s = Scenario::from_json(json).unwrap();
    assert_eq!(s.version, 1);
    assert_eq!(s.faults.len(), 1);
    assert_eq!(s.operators[0].parallelism, None);
    assert_eq!(s.parallelism(0), 1);
    let g = s.validate().unwrap();
    assert_eq!(g.vertices.len(), 1);
    assert_eq!(g.vertices[0].name, "Source: s -> k: Writer");
    assert_eq!(Scenario::from_json(&s.to_json()).unwrap(), s);
}
