//! `bench-512`, the job `barrierlab bench` and the browser benchmark (`tests/e2e/bench.mjs`)
//! measure the engine with: the largest job the playground is meant to run live.

use super::{preset, EdgeSpec, KeyDistribution, OperatorKind, OperatorSpec, Partitioner, Scenario};

/// 512 subtasks, 1 M records/s of 100-byte records over 10 000 keys:
/// datagen(128) -hash-> count(128) -rebalance-> map(128) -hash-> sink(128), on `taskmanagers`
/// TaskManagers: with one, every channel is local; with more, most are remote (credit-based).
pub fn bench_job(taskmanagers: u32) -> Scenario {
    let op = |name: &str, kind: OperatorKind| OperatorSpec::new(name, kind).with_parallelism(128);
    let mut s = Scenario {
        name: "bench-512".into(),
        description: "The benchmark job (`barrierlab bench`): 512 subtasks, a DataGen source (128 subtasks, 1 M records/s of 100 bytes over 10 000 keys) -hash-> a keyed count -rebalance-> a map -hash-> a discard sink, aligned checkpoints every 5 s.".into(),
        seed: 7,
        operators: vec![
            op(
                "datagen",
                OperatorKind::Datagen {
                    rate: 1_000_000,
                    record_size: 100,
                    keys: 10_000,
                    key_distribution: KeyDistribution::Uniform,
                    bounded: None,
                },
            ),
            op("count", OperatorKind::KeyedCount),
            op("map", OperatorKind::Map),
            op("sink", OperatorKind::DiscardSink),
        ],
        edges: vec![
            EdgeSpec::new("datagen", "count", Partitioner::Hash),
            EdgeSpec::new("count", "map", Partitioner::Rebalance),
            EdgeSpec::new("map", "sink", Partitioner::Hash),
        ],
        ..preset("seed-demo").expect("the seed-demo preset exists")
    };
    s.cluster.taskmanagers = taskmanagers;
    s.cluster.slots_per_taskmanager = Some(128 / s.cluster.taskmanagers);
    s
}

#[cfg(test)]
mod tests {
    /// `tests/fixtures/scale/bench-512.json` is what the browser benchmark opens as a link:
    /// the same job as `barrierlab bench` (regenerate: `BARRIERLAB_UPDATE_BENCH_FIXTURE=1`).
    #[test]
    fn the_fixture_is_the_bench_job() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/fixtures/scale/bench-512.json"
        );
        let json = super::bench_job(1).to_json_pretty();
        if std::env::var_os("BARRIERLAB_UPDATE_BENCH_FIXTURE").is_some() {
            std::fs::write(path, format!("{json}\n")).unwrap();
        }
        let stored = std::fs::read_to_string(path).expect("the bench-512 fixture exists");
        assert_eq!(stored.trim_end(), json, "{path} differs from bench_job(1)");
    }
}
