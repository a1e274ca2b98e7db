//! Ready-made scenarios: the demo job in its measured variants (`flink-model.md` §9) and a few
//! shapes worth exploring.

use std::collections::BTreeMap;

use super::model::{
    Cluster, EdgeSpec, KeyDistribution, OperatorKind, OperatorSpec, Partitioner, Scenario,
    SCENARIO_VERSION,
};

/// Every preset name with a one-line description, in menu order.
pub const PRESETS: &[(&str, &str)] = &[
    ("seed-demo", "The demo job: a DataGen source (2 subtasks, 2000 records/s of 1 KB) -hash-> a keyed count -> a checkpoint-aware map -> a discard sink, aligned checkpoints every 5 s."),
    ("seed-backpressure", "seed-demo with 5 ms per record in count-per-key: backpressure makes aligned checkpoints take seconds."),
    ("seed-unaligned", "seed-backpressure with unaligned checkpoints: fast again, but in-flight data is stored."),
    ("seed-2pc", "seed-demo ending in a two-phase-commit sink that commits on notifyCheckpointComplete."),
    ("two-input-join", "Two datagens, one behind a slow map, merged by a union into a keyed count: alignment waits for the slow side."),
    ("slow-sink", "seed-demo with a sink costing 2 ms per record: backpressure starts at the end of the chain."),
    ("bounded", "seed-2pc with a bounded datagen (20000 records): checkpoints after tasks finish, final commit."),
    ("large-state", "seed-demo at 100 000 records/s of 100 bytes over 1 M keys: heap state grows to ~12 MB, and the async phase with it."),
    ("rocksdb-full", "large-state on RocksDB (state.backend.type: rocksdb): each checkpoint flushes the memtable and uploads every SST file."),
    ("rocksdb-incremental", "rocksdb-full with incremental checkpoints: one new SST file a checkpoint, the compacted level again every fourth."),
    ("state-ttl", "large-state with a 5 s state TTL on count-per-key (StateTtlConfig): the heap's incremental cleanup drops every key not written for 5 s, so the state levels off at ~40 % of the keys."),
    ("state-ttl-rocksdb", "state-ttl on RocksDB with incremental checkpoints: expired keys stay in the SST files until a compaction's TTL filter drops them, every fourth checkpoint."),
    ("list-state", "A keyed ListState: list-per-key appends each of 20 000 records/s (100 bytes, 100 000 keys) to its key's list, with a 10 s state TTL: the lists hold the last 10 s, and the state levels off."),
    ("list-state-rocksdb", "list-state on RocksDB with incremental checkpoints: appends are merge operands, so each checkpoint uploads only the new elements; expired ones go at compaction."),
    ("forst", "rocksdb-incremental on ForSt (state.backend.type: forst): the flush writes the SST file to checkpoint storage, so the async phase uploads nothing."),
];

/// The preset with this name, or `None`.
pub fn preset(name: &str) -> Option<Scenario> {
    let scenario = match name {
        "seed-demo" => seed_demo(),
        "seed-backpressure" => seed_backpressure(),
        "seed-unaligned" => {
            let mut s = seed_backpressure();
            s.config.insert(
                "execution.checkpointing.unaligned.enabled".into(),
                "true".into(),
            );
            s
        }
        "seed-2pc" => seed_2pc(),
        "two-input-join" => two_input_join(),
        "slow-sink" => {
            let mut s = seed_demo();
            set_cost(&mut s, "discard-sink", "2ms");
            s
        }
        "bounded" => {
            let mut s = seed_2pc();
            if let Some(OperatorKind::Datagen { bounded, .. }) =
                s.operators.get_mut(0).map(|o| &mut o.kind)
            {
                *bounded = Some(20_000);
            }
            s
        }
        "large-state" => large_state(None),
        "rocksdb-full" => large_state(Some("false")),
        "rocksdb-incremental" => large_state(Some("true")),
        "state-ttl" => with_ttl(large_state(None), "count-per-key", "5s"),
        "state-ttl-rocksdb" => with_ttl(large_state(Some("true")), "count-per-key", "5s"),
        "list-state" => list_state(None),
        "list-state-rocksdb" => list_state(Some("true")),
        "forst" => {
            let mut s = large_state(Some("true"));
            s.config.insert("state.backend.type".into(), "forst".into());
            s
        }
        _ => return None,
    };
    let description = PRESETS.iter().find(|(n, _)| *n == name).map(|(_, d)| *d)?;
    Some(Scenario {
        name: name.to_string(),
        description: description.to_string(),
        ..scenario
    })
}

/// seed-demo with state that grows: 100 000 records/s of 100 bytes over 1 M keys (the harness's
/// `large-state`, `rocksdb-full`, `rocksdb-incremental` and `forst`). `incremental`: RocksDB, with
/// `execution.checkpointing.incremental` set so.
fn large_state(incremental: Option<&str>) -> Scenario {
    let mut s = seed_demo();
    if let Some(OperatorKind::Datagen {
        rate,
        record_size,
        keys,
        ..
    }) = s.operators.get_mut(0).map(|o| &mut o.kind)
    {
        *rate = 100_000;
        *record_size = 100;
        *keys = 1_000_000;
    }
    if let Some(incremental) = incremental {
        s.config
            .insert("state.backend.type".into(), "rocksdb".into());
        s.config.insert(
            "execution.checkpointing.incremental".into(),
            incremental.into(),
        );
    }
    s
}

fn with_ttl(mut s: Scenario, operator: &str, ttl: &str) -> Scenario {
    if let Some(op) = s.operators.iter_mut().find(|o| o.name == operator) {
        op.state_ttl = Some(ttl.to_string());
    }
    s
}

/// seed-demo with a keyed list instead of the count: 20 000 records/s of 100 bytes over
/// 100 000 keys, appended to `list-per-key`'s `ListState<Long>` with a 10 s TTL.
fn list_state(incremental: Option<&str>) -> Scenario {
    let mut s = large_state(incremental);
    if let Some(OperatorKind::Datagen { rate, keys, .. }) =
        s.operators.get_mut(0).map(|o| &mut o.kind)
    {
        *rate = 20_000;
        *keys = 100_000;
    }
    if let Some(op) = s.operators.get_mut(1) {
        op.name = "list-per-key".into();
        op.kind = OperatorKind::KeyedList;
        op.state_ttl = Some("10s".into());
    }
    for e in &mut s.edges {
        for end in [&mut e.from, &mut e.to] {
            if end == "count-per-key" {
                *end = "list-per-key".into();
            }
        }
    }
    s
}

/// The seed's source: 2 subtasks, 2000 records/s in total, 1 KB records, 16 integer keys.
fn seed_datagen(name: &str) -> OperatorSpec {
    OperatorSpec::new(
        name,
        OperatorKind::Datagen {
            rate: 2000,
            record_size: 1024,
            keys: 16,
            key_distribution: KeyDistribution::Uniform,
            bounded: None,
        },
    )
    .with_parallelism(2)
}

/// The seed's checkpoint settings: every 5 s, exactly-once, retained on cancellation.
fn seed_config() -> BTreeMap<String, String> {
    [
        ("execution.checkpointing.interval", "5s"),
        ("execution.checkpointing.mode", "EXACTLY_ONCE"),
        (
            "execution.checkpointing.externalized-checkpoint-retention",
            "RETAIN_ON_CANCELLATION",
        ),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}

fn seed_with_sink(sink: OperatorSpec) -> Scenario {
    let sink_name = sink.name.clone();
    Scenario {
        version: SCENARIO_VERSION,
        name: String::new(),
        description: String::new(),
        seed: 1,
        // The seed ran on a local cluster: one TaskManager, so every channel is local.
        cluster: Cluster::default(),
        operators: vec![
            seed_datagen("datagen"),
            OperatorSpec::new("count-per-key", OperatorKind::KeyedCount).with_parallelism(2),
            OperatorSpec::new("checkpoint-aware-map", OperatorKind::CheckpointAwareMap)
                .with_parallelism(2),
            sink,
        ],
        edges: vec![
            EdgeSpec::new("datagen", "count-per-key", Partitioner::Hash),
            EdgeSpec::new(
                "count-per-key",
                "checkpoint-aware-map",
                Partitioner::Forward,
            ),
            EdgeSpec::new("checkpoint-aware-map", &sink_name, Partitioner::Forward),
        ],
        config: seed_config(),
        faults: Vec::new(),
    }
}

fn seed_demo() -> Scenario {
    seed_with_sink(OperatorSpec::new("discard-sink", OperatorKind::DiscardSink).with_parallelism(2))
}

fn seed_backpressure() -> Scenario {
    let mut s = seed_demo();
    // ~200 records/s per subtask against ~1000 arriving (flink-model.md §9).
    set_cost(&mut s, "count-per-key", "5ms");
    s
}

fn seed_2pc() -> Scenario {
    seed_with_sink(
        OperatorSpec::new("two-phase-commit-sink", OperatorKind::TwoPhaseCommitSink)
            .with_parallelism(2),
    )
}

fn two_input_join() -> Scenario {
    let mut payments = seed_datagen("payments");
    if let OperatorKind::Datagen { rate, .. } = &mut payments.kind {
        *rate = 400;
    }
    Scenario {
        version: SCENARIO_VERSION,
        name: String::new(),
        description: String::new(),
        seed: 1,
        cluster: Cluster::default(),
        operators: vec![
            seed_datagen("orders"),
            payments,
            // 1 ms per record caps the slow side at ~1000 records/s per subtask.
            OperatorSpec::new("slow-enrich", OperatorKind::Map)
                .with_parallelism(2)
                .with_cost("1ms"),
            OperatorSpec::new("union", OperatorKind::Union).with_parallelism(2),
            OperatorSpec::new("count-per-key", OperatorKind::KeyedCount).with_parallelism(2),
            OperatorSpec::new("discard-sink", OperatorKind::DiscardSink).with_parallelism(2),
        ],
        edges: vec![
            EdgeSpec::new("orders", "union", Partitioner::Forward),
            EdgeSpec::new("payments", "slow-enrich", Partitioner::Forward),
            EdgeSpec::new("slow-enrich", "union", Partitioner::Forward),
            EdgeSpec::new("union", "count-per-key", Partitioner::Hash),
            EdgeSpec::new("count-per-key", "discard-sink", Partitioner::Forward),
        ],
        config: seed_config(),
        faults: Vec::new(),
    }
}

fn set_cost(s: &mut Scenario, operator: &str, cost: &str) {
    if let Some(op) = s.operators.iter_mut().find(|o| o.name == operator) {
        op.cost_per_record = Some(cost.to_string());
    }
}
