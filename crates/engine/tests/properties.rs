//! Property tests over random jobs, modes, fault scripts and seeds.
//!
//! Bounds of the generated jobs: one or two datagens (parallelism 1–3, 200–2000 records/s,
//! 16/100/1000-byte records, 1–32 keys, half of them bounded), a union when there are two, an
//! optional filter (30–100 %), a keyed count (parallelism 1–3, 2 µs–2 ms per record) and a
//! two-phase-commit or plain sink; random partitioners where parallelism allows (broadcast
//! included: every edge but the keyed count's input may copy each record to every downstream
//! subtask, and the checks count each copy); one or two
//! TaskManagers; checkpoints every 0.3–1.5 s in one of four modes (aligned, unaligned,
//! aligned-with-timeout, at-least-once); zero to two kills in the first 5 s; 6 s simulated.
//!
//! Invariants: exactly-once holds with the transactional sink; no record is lost in any mode;
//! checkpoint ids increase; the latest completed checkpoint's keyed state equals the state of a
//! failure-free run cut at that checkpoint's barriers; the same input gives the same fingerprint.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeMap;

use barrierlab_engine::network::ChannelRoute;
use barrierlab_engine::scenario::{
    preset, EdgeSpec, Fault, KeyDistribution, OperatorKind, OperatorSpec, Partitioner, Scenario,
};
use barrierlab_engine::sim::{JobStatus, Simulation};
use barrierlab_engine::task::{filter_passes, Operator};
use barrierlab_engine::trace::TraceKind;
use barrierlab_engine::types::MICROS_PER_SEC;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};

#[derive(Debug, Clone)]
struct Source {
    parallelism: u32,
    rate: u64,
    record_size: u64,
    keys: u32,
    bounded: bool,
}

#[derive(Debug, Clone)]
struct Case {
    sources: Vec<Source>,
    union_parallelism: u32,
    filter: Option<(u32, u32)>,
    count_parallelism: u32,
    count_cost_us: u64,
    two_phase: bool,
    sink_parallelism: u32,
    partitioners: [u8; 4],
    taskmanagers: u32,
    interval_ms: u64,
    mode: u8,
    kills: Vec<(u8, u32, u64)>,
    seed: u64,
}

fn source() -> impl Strategy<Value = Source> {
    (
        1u32..=3,
        100u64..=1000,
        prop::sample::select(vec![16u64, 100, 1000]),
        1u32..=32,
        any::<bool>(),
    )
        .prop_map(|(parallelism, rate, record_size, keys, bounded)| Source {
            parallelism,
            rate,
            record_size,
            keys,
            bounded,
        })
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop::collection::vec(source(), 1..=2),
        1u32..=3,
        prop::option::of((1u32..=3, 30u32..=100)),
        (1u32..=3, 2u64..=2000),
        (any::<bool>(), 1u32..=3),
        any::<[u8; 4]>(),
        (1u32..=2, 300u64..=1500, 0u8..4),
        prop::collection::vec((any::<u8>(), 0u32..3, 500u64..5000), 0..=2),
        any::<u64>(),
    )
        .prop_map(
            |(sources, union_parallelism, filter, count, sink, partitioners, run, kills, seed)| {
                Case {
                    sources,
                    union_parallelism,
                    filter,
                    count_parallelism: count.0,
                    count_cost_us: count.1,
                    two_phase: sink.0,
                    sink_parallelism: sink.1,
                    partitioners,
                    taskmanagers: run.0,
                    interval_ms: run.1,
                    mode: run.2,
                    kills,
                    seed,
                }
            },
        )
}

/// A partitioner for an edge between parallelisms `a` and `b` (forward only when they match).
fn partitioner(choice: u8, a: u32, b: u32) -> Partitioner {
    let all = [
        Partitioner::Forward,
        Partitioner::Rebalance,
        Partitioner::Rescale,
        Partitioner::Hash,
        Partitioner::Broadcast,
    ];
    let p = all[choice as usize % all.len()];
    if p == Partitioner::Forward && a != b {
        Partitioner::Rebalance
    } else {
        p
    }
}

fn build(c: &Case) -> (Scenario, bool) {
    let mut s: Scenario = preset("seed-demo").unwrap();
    s.name = "property".into();
    s.seed = c.seed;
    s.operators.clear();
    s.edges.clear();
    let mut tails: Vec<(String, u32)> = Vec::new();
    for (i, src) in c.sources.iter().enumerate() {
        let name = format!("src{i}");
        s.operators.push(
            OperatorSpec::new(
                &name,
                OperatorKind::Datagen {
                    rate: src.rate,
                    record_size: src.record_size,
                    keys: src.keys,
                    key_distribution: KeyDistribution::Uniform,
                    bounded: src.bounded.then_some(src.rate * 2),
                },
            )
            .with_parallelism(src.parallelism),
        );
        tails.push((name, src.parallelism));
    }
    let edge = |s: &mut Scenario, from: &(String, u32), to: &str, p: u32, k: usize| {
        s.edges.push(EdgeSpec::new(
            &from.0,
            to,
            partitioner(c.partitioners[k], from.1, p),
        ));
    };
    let mut tail = if tails.len() == 2 {
        let p = c.union_parallelism;
        s.operators
            .push(OperatorSpec::new("union", OperatorKind::Union).with_parallelism(p));
        edge(&mut s, &tails[0], "union", p, 0);
        edge(&mut s, &tails[1], "union", p, 1);
        ("union".to_string(), p)
    } else {
        tails[0].clone()
    };
    if let Some((p, keep)) = c.filter {
        s.operators.push(
            OperatorSpec::new("filter", OperatorKind::Filter { keep_percent: keep })
                .with_parallelism(p),
        );
        edge(&mut s, &tail, "filter", p, 2);
        tail = ("filter".into(), p);
    }
    let kp = c.count_parallelism;
    s.operators.push(
        OperatorSpec::new("count", OperatorKind::KeyedCount)
            .with_parallelism(kp)
            .with_cost(&format!("{}us", c.count_cost_us)),
    );
    s.edges
        .push(EdgeSpec::new(&tail.0, "count", Partitioner::Hash));
    let sink = if c.two_phase {
        OperatorKind::TwoPhaseCommitSink
    } else {
        OperatorKind::CollectSink
    };
    s.operators
        .push(OperatorSpec::new("sink", sink).with_parallelism(c.sink_parallelism));
    edge(&mut s, &("count".into(), kp), "sink", c.sink_parallelism, 3);
    s.cluster.taskmanagers = c.taskmanagers;
    s.cluster.slots_per_taskmanager = Some(3);
    s.config.insert(
        "execution.checkpointing.interval".into(),
        format!("{}ms", c.interval_ms),
    );
    let exactly_once = c.mode != 3;
    match c.mode {
        1 => {
            s.config.insert(
                "execution.checkpointing.unaligned.enabled".into(),
                "true".into(),
            );
        }
        2 => {
            s.config.insert(
                "execution.checkpointing.unaligned.enabled".into(),
                "true".into(),
            );
            s.config.insert(
                "execution.checkpointing.aligned-checkpoint-timeout".into(),
                "50ms".into(),
            );
        }
        3 => {
            s.config.insert(
                "execution.checkpointing.mode".into(),
                "AT_LEAST_ONCE".into(),
            );
        }
        _ => {}
    }
    for (op, subtask, at_ms) in &c.kills {
        let index = *op as usize % s.operators.len();
        let spec = &s.operators[index];
        let subtask = subtask % s.parallelism(index);
        s.faults.push(Fault::Kill {
            task: format!("{}#{subtask}", spec.name),
            at: format!("{at_ms}ms"),
        });
    }
    (s, exactly_once)
}

/// How many copies of record `(origin, seq)` entering operator `from` reach operator `to`: one
/// per way between them, none on a way whose filter drops it, and each broadcast edge on a way
/// copies it to every downstream subtask.
fn copies_to(s: &Scenario, from: usize, to: usize, origin: u32, seq: u64) -> u64 {
    if let OperatorKind::Filter { keep_percent } = s.operators[from].kind {
        if !filter_passes(keep_percent, origin, seq) {
            return 0;
        }
    }
    if from == to {
        return 1;
    }
    s.edges
        .iter()
        .filter(|e| e.from == s.operators[from].name)
        .map(|e| {
            let next = s.operator_index(&e.to).unwrap();
            let fan = if e.partitioner == Partitioner::Broadcast {
                u64::from(s.parallelism(next))
            } else {
                1
            };
            fan * copies_to(s, next, to, origin, seq)
        })
        .sum()
}

/// Count per key in the latest retained checkpoint, and what a failure-free run cut at its
/// barriers would have counted: the copies of the records below the sources' offsets that reach
/// `count`, minus the copies the checkpoint's channel state still owes `count` (each held copy
/// counted from the operator it enters, so one held before a broadcast edge owes several).
fn checkpoint_state_matches_the_cut(sim: &Simulation) -> Result<(), String> {
    let Some((&id, state)) = sim.completed_state.iter().next_back() else {
        return Ok(());
    };
    let scenario = &sim.scenario;
    let count_op = scenario.operator_index("count").unwrap();
    let count_vertex = sim.graph.vertex_of_operator(count_op).unwrap();
    let pos = count_vertex
        .operators
        .iter()
        .position(|o| *o == count_op)
        .unwrap();
    // A count subtask that had finished is in the checkpoint as finished, without state.
    if state
        .values()
        .any(|s| s.task.vertex == count_vertex.id && s.finished)
    {
        return Ok(());
    }
    let mut actual: BTreeMap<i32, i64> = BTreeMap::new();
    for snap in state.values().filter(|s| s.task.vertex == count_vertex.id) {
        for (p, k) in &snap.keyed {
            if *p != pos {
                continue;
            }
            for kg in &k.key_groups {
                for entries in &kg.states {
                    for e in entries {
                        if let barrierlab_engine::state::StateKey::Int(key) = e.key {
                            *actual.entry(key).or_default() += e.value;
                        }
                    }
                }
            }
        }
    }
    // The operator a held copy enters: the head of its channel's consumer vertex.
    let head = |vertex: u32| sim.graph.vertices[vertex as usize].operators[0];
    let mut owed: BTreeMap<(u32, u64), u64> = BTreeMap::new();
    for snap in state.values() {
        let vertex = &sim.graph.vertices[snap.task.vertex as usize];
        let out = snap
            .output_channel_records
            .iter()
            .map(|(o, _, recs)| (head(vertex.outputs[*o].target_vertex), recs));
        let inp = snap
            .input_channel_records
            .iter()
            .map(|(_, recs)| (head(vertex.id), recs));
        for (enters, recs) in out.chain(inp) {
            for r in recs {
                let n = copies_to(scenario, enters, count_op, r.origin, r.seq);
                if n > 0 {
                    *owed.entry((r.origin, r.seq)).or_default() += n;
                }
            }
        }
    }
    let offsets = &sim.checkpoint_offsets[&id];
    let mut expected: BTreeMap<i32, i64> = BTreeMap::new();
    for t in sim.tasks.iter() {
        let Some(Operator::Datagen(dg)) = t.operators.first() else {
            continue;
        };
        let src_op = head(t.id.vertex);
        for seq in 0..offsets.get(&dg.origin).copied().unwrap_or(0) {
            let r = dg.record(seq);
            let copies = copies_to(scenario, src_op, count_op, r.origin, r.seq);
            let held = owed.remove(&(r.origin, r.seq)).unwrap_or(0);
            let Some(n) = copies.checked_sub(held) else {
                return Err(format!(
                    "checkpoint {id}: record {}/{} makes {copies} copies at count, its channel state owes {held}",
                    r.origin, r.seq
                ));
            };
            if n > 0 {
                *expected.entry(r.key).or_default() += n as i64;
            }
        }
    }
    if !owed.is_empty() {
        return Err(format!(
            "checkpoint {id}: channel state holds records past the sources' offsets: {owed:?}"
        ));
    }
    if actual == expected {
        Ok(())
    } else {
        Err(format!(
            "checkpoint {id}: state {actual:?}, cut {expected:?}"
        ))
    }
}

fn check(c: &Case) -> Result<(), TestCaseError> {
    let (scenario, exactly_once) = build(c);
    let mut sim = Simulation::new(scenario.clone())
        .map_err(|e| TestCaseError::fail(format!("invalid: {e}")))?;
    sim.run_until(6 * MICROS_PER_SEC);
    let mut again = Simulation::new(scenario).unwrap();
    again.run_until(6 * MICROS_PER_SEC);
    prop_assert_eq!(
        sim.fingerprint(),
        again.fingerprint(),
        "same input, same run"
    );

    let ids: Vec<u64> = sim
        .trace
        .events()
        .filter_map(|e| match e.kind {
            TraceKind::CheckpointTriggered { id, .. } => Some(id),
            _ => None,
        })
        .collect();
    prop_assert!(
        ids.windows(2).all(|w| w[0] < w[1]),
        "ids increase: {:?}",
        ids
    );

    // The dense routes are the channels' own, and each subpartition's consumer reads it back,
    // also after restarts redeployed the job.
    for (g, channel) in sim.net.channels.iter().enumerate() {
        prop_assert_eq!(sim.net.routes[g], ChannelRoute::of(channel));
    }
    for (pid, p) in sim.net.partitions.iter().enumerate() {
        for sub in 0..p.subpartitions().len() {
            let route = sim.net.routes[p.consumer(sub) as usize];
            prop_assert_eq!(
                (route.partition, route.subpartition),
                (pid as u32, sub as u32)
            );
        }
    }

    let v = sim.verification();
    prop_assert_eq!(v.missing, 0, "no record lost: {:?}", v);
    if exactly_once && c.two_phase && sim.status != JobStatus::Failed {
        prop_assert_eq!(v.duplicates, 0, "exactly once: {:?}", v);
    }
    if exactly_once {
        checkpoint_state_matches_the_cut(&sim).map_err(TestCaseError::fail)?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(Config {
        cases: 1000,
        rng_seed: RngSeed::Fixed(0x0b4c_7b3d),
        failure_persistence: None,
        ..Config::default()
    })]
    #[test]
    fn random_jobs_keep_their_guarantees(c in case()) {
        check(&c)?;
    }
}
