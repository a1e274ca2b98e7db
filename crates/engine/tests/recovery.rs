//! Failures, restores and the exactly-once verdict.

use barrierlab_engine::scenario::{parse_fail_flag, preset, Fault, OperatorKind, Scenario};
use barrierlab_engine::sim::{JobStatus, Simulation, UserRequest};
use barrierlab_engine::stats::CheckpointStatsStatus;
use barrierlab_engine::trace::TraceKind;
use barrierlab_engine::types::MICROS_PER_SEC;

fn run(mut s: Scenario, kills: &[&str], seconds: u64) -> Simulation {
    for k in kills {
        s.faults.push(parse_fail_flag(k).unwrap());
    }
    let mut sim = Simulation::new(s).unwrap();
    sim.run_until(seconds * MICROS_PER_SEC);
    sim
}

fn with(mut s: Scenario, key: &str, value: &str) -> Scenario {
    s.config.insert(key.into(), value.into());
    s
}

fn restarts(sim: &Simulation) -> usize {
    sim.trace
        .events()
        .filter(|e| matches!(e.kind, TraceKind::Restored { .. }))
        .count()
}

#[test]
fn two_phase_commit_is_exactly_once_through_kills_aligned_and_unaligned() {
    let aligned = preset("seed-2pc").unwrap();
    let mut unaligned = with(
        aligned.clone(),
        "execution.checkpointing.unaligned.enabled",
        "true",
    );
    unaligned.operators[1].cost_per_record = Some("5ms".into());
    for (name, s) in [("aligned", aligned), ("unaligned", unaligned)] {
        let sim = run(s, &["count-per-key#1@12s", "datagen#0@23s"], 40);
        assert_eq!(restarts(&sim), 2, "{name}");
        let v = sim.verification();
        // Exactly what was committed was expected: the records below the commit basis's cut,
        // less those the cut held in flight (unaligned), which belong to the next transaction.
        assert!(v.expected_records > 0, "{name}: {v:?}");
        assert_eq!(v.expected_records, v.committed_records, "{name}: {v:?}");
        assert_eq!((v.duplicates, v.missing), (0, 0), "{name}: {v:?}");
        let stats = &sim.json_report()["checkpoints"];
        assert_eq!(stats["counts"]["restored"], 2, "{name}");
        assert!(
            stats["latest"]["restored"]["id"].as_u64().is_some(),
            "{name}"
        );
    }
}

#[test]
fn unaligned_restore_replays_channel_state_exactly() {
    // A bounded job under backpressure, unaligned, killed while buffers are full: the final
    // keyed counts must match the input exactly, so channel state was replayed, not lost.
    let mut s = preset("bounded").unwrap();
    s.config.insert(
        "execution.checkpointing.unaligned.enabled".into(),
        "true".into(),
    );
    s.operators[1].cost_per_record = Some("1ms".into());
    let sim = run(s, &["count-per-key#0@9s"], 120);
    assert_eq!(sim.status, JobStatus::Finished);
    let persisted: u64 = sim.checkpoint_rows().iter().map(|r| r.persisted).sum();
    assert!(persisted > 0, "the scenario must persist in-flight data");
    let v = sim.verification();
    assert_eq!((v.duplicates, v.missing), (0, 0), "{v:?}");
    assert_eq!(v.state[0].counted, v.state[0].expected, "{v:?}");
}

#[test]
fn a_non_transactional_sink_duplicates_after_a_restore() {
    let mut s = preset("seed-2pc").unwrap();
    s.operators[3].kind = OperatorKind::CollectSink;
    let clean = run(s.clone(), &[], 30).verification();
    assert_eq!(clean.duplicates, 0, "{clean:?}");
    let killed = run(s, &["count-per-key#1@12s"], 30).verification();
    assert!(
        killed.duplicates > 0,
        "replayed records are written again: {killed:?}"
    );
    assert_eq!(killed.missing, 0, "{killed:?}");
}

/// Two sources into a union, one behind a slow map: the slow side's barriers arrive seconds
/// after the fast side's. Bounded, so the final state can be checked against the input.
fn skewed_union(mode: &str) -> Scenario {
    use barrierlab_engine::scenario::{EdgeSpec, KeyDistribution, OperatorSpec, Partitioner};
    let dg = |rate, bounded| OperatorKind::Datagen {
        rate,
        record_size: 100,
        keys: 16,
        key_distribution: KeyDistribution::Uniform,
        bounded: Some(bounded),
    };
    let mut s = preset("seed-demo").unwrap();
    s.name = "skewed-union".into();
    s.operators = vec![
        OperatorSpec::new("orders", dg(1000, 12_000)).with_parallelism(2),
        OperatorSpec::new("payments", dg(200, 2_400)).with_parallelism(2),
        OperatorSpec::new("slow-enrich", OperatorKind::Map)
            .with_parallelism(2)
            .with_cost("10ms"),
        OperatorSpec::new("union", OperatorKind::Union).with_parallelism(2),
        OperatorSpec::new("count-per-key", OperatorKind::KeyedCount).with_parallelism(2),
        OperatorSpec::new("sink", OperatorKind::TwoPhaseCommitSink).with_parallelism(2),
    ];
    s.edges = vec![
        EdgeSpec::new("orders", "union", Partitioner::Forward),
        EdgeSpec::new("payments", "slow-enrich", Partitioner::Rebalance),
        EdgeSpec::new("slow-enrich", "union", Partitioner::Forward),
        EdgeSpec::new("union", "count-per-key", Partitioner::Hash),
        EdgeSpec::new("count-per-key", "sink", Partitioner::Forward),
    ];
    let s = with(s, "execution.checkpointing.interval", "2s");
    with(s, "execution.checkpointing.mode", mode)
}

#[test]
fn at_least_once_over_counts_state_after_a_restore() {
    let exactly_once = run(skewed_union("EXACTLY_ONCE"), &["count-per-key#0@7s"], 120);
    assert_eq!(exactly_once.status, JobStatus::Finished);
    let v = exactly_once.verification();
    assert_eq!(v.state[0].counted, v.state[0].expected, "{v:?}");
    assert_eq!((v.duplicates, v.missing), (0, 0), "{v:?}");
    let at_least_once = run(skewed_union("AT_LEAST_ONCE"), &["count-per-key#0@7s"], 120);
    assert_eq!(at_least_once.status, JobStatus::Finished);
    let v = at_least_once.verification();
    assert!(
        v.state[0].counted > v.state[0].expected,
        "post-barrier records counted twice: {v:?}"
    );
    assert_eq!(v.missing, 0, "at least once loses nothing: {v:?}");
}

#[test]
fn bounded_job_finishes_with_a_final_checkpoint_and_commits_everything() {
    let sim = run(preset("bounded").unwrap(), &[], 60);
    assert_eq!(sim.status, JobStatus::Finished);
    let v = sim.verification();
    assert_eq!(v.sinks[0].basis, "end of input");
    assert_eq!(
        (v.expected_records, v.duplicates, v.missing),
        (20_000, 0, 0),
        "{v:?}"
    );
    assert!(sim
        .trace
        .events()
        .any(|e| matches!(e.kind, TraceKind::EndOfData)));
}

#[test]
fn restart_strategies_follow_flink() {
    // Default with checkpointing: exponential delay, 1 s then ×1.5, jitter ±10 %.
    let sim = run(
        preset("seed-demo").unwrap(),
        &[
            "count-per-key#0@5s",
            "count-per-key#0@9s",
            "count-per-key#0@14s",
        ],
        30,
    );
    let delays: Vec<u64> = sim
        .trace
        .events()
        .filter_map(|e| match e.kind {
            TraceKind::RestartScheduled { delay } => Some(delay),
            _ => None,
        })
        .collect();
    assert_eq!(delays.len(), 3, "{delays:?}");
    for (d, base) in delays.iter().zip([1_000_000u64, 1_500_000, 2_250_000]) {
        assert!(d.abs_diff(base) <= base / 10, "{d} vs {base}");
    }
    assert_eq!(sim.status, JobStatus::Running);

    let fixed = with(
        preset("seed-demo").unwrap(),
        "restart-strategy.type",
        "fixed-delay",
    );
    let sim = run(fixed, &["count-per-key#0@5s", "count-per-key#0@9s"], 20);
    assert_eq!(sim.status, JobStatus::Failed, "one attempt by default");

    let none = with(
        preset("seed-demo").unwrap(),
        "restart-strategy.type",
        "none",
    );
    let sim = run(none, &["count-per-key#0@5s"], 20);
    assert_eq!(sim.status, JobStatus::Failed);
}

#[test]
fn storage_failures_count_against_tolerable_failed_checkpoints() {
    let mut s = preset("seed-demo").unwrap();
    s.faults.push(Fault::StorageFailure {
        from: "3s".into(),
        until: "8s".into(),
    });
    // Default tolerance 0: the first counted failure fails the job over.
    let sim = run(s.clone(), &[], 20);
    assert!(restarts(&sim) >= 1);
    assert!(
        sim.json_report()["checkpoints"]["counts"]["failed"]
            .as_u64()
            .unwrap()
            >= 1
    );
    // Tolerating them: failed checkpoints, no restart.
    let sim = run(
        with(
            s,
            "execution.checkpointing.tolerable-failed-checkpoints",
            "5",
        ),
        &[],
        20,
    );
    assert_eq!(restarts(&sim), 0);
    assert!(
        sim.json_report()["checkpoints"]["counts"]["failed"]
            .as_u64()
            .unwrap()
            >= 1
    );
    assert_eq!(sim.status, JobStatus::Running);
}

#[test]
fn declines_lost_notifications_and_delayed_acks() {
    let mut s = preset("seed-2pc").unwrap();
    s.faults.push(Fault::Decline {
        task: "count-per-key#0".into(),
        checkpoint: 2,
    });
    s.faults.push(Fault::LoseNotification {
        task: "two-phase-commit-sink#1".into(),
        checkpoint: 3,
    });
    s.faults.push(Fault::DelayAcks {
        task: "datagen#1".into(),
        by: "2s".into(),
        from: None,
        until: None,
    });
    let s = with(
        s,
        "execution.checkpointing.tolerable-failed-checkpoints",
        "3",
    );
    let sim = run(s, &[], 40);
    let rows = sim.checkpoint_rows();
    assert_eq!(
        rows.iter().find(|r| r.id == 2).unwrap().status,
        CheckpointStatsStatus::FAILED
    );
    // Delayed acks make every checkpoint take at least two seconds.
    assert!(rows
        .iter()
        .filter(|r| r.status == CheckpointStatsStatus::COMPLETED)
        .all(|r| r.duration.unwrap() >= 2 * MICROS_PER_SEC));
    // The lost notification's transaction is committed with the next checkpoint's.
    let v = sim.verification();
    assert_eq!((v.duplicates, v.missing), (0, 0), "{v:?}");
}

#[test]
fn rescaling_redistributes_key_groups_and_keeps_exactly_once() {
    let mut sim = Simulation::new(preset("seed-2pc").unwrap()).unwrap();
    sim.run_until(12 * MICROS_PER_SEC);
    sim.rescale(&[
        ("count-per-key", 3),
        ("checkpoint-aware-map", 3),
        ("two-phase-commit-sink", 3),
    ])
    .unwrap();
    sim.run_until(30 * MICROS_PER_SEC);
    let keyed: Vec<u64> = sim
        .tasks
        .iter()
        .filter(|t| t.id.vertex == 1)
        .map(|t| {
            t.operators[0]
                .keyed_ref()
                .unwrap()
                .backend
                .counters()
                .entries
        })
        .collect();
    assert_eq!(keyed.len(), 3);
    assert_eq!(keyed.iter().sum::<u64>(), 16, "{keyed:?}");
    let v = sim.verification();
    assert_eq!((v.duplicates, v.missing), (0, 0), "{v:?}");
    assert!(sim
        .rescale(&[("datagen", 3)])
        .unwrap_err()
        .contains("source"));
    assert!(sim
        .rescale(&[("count-per-key", 4)])
        .unwrap_err()
        .contains("orward"));
}

#[test]
fn savepoint_stop_and_restore() {
    let mut sim = Simulation::new(preset("seed-2pc").unwrap()).unwrap();
    sim.run_until(8 * MICROS_PER_SEC);
    sim.request(UserRequest::StopWithSavepoint);
    sim.run_until(12 * MICROS_PER_SEC);
    assert_eq!(sim.status, JobStatus::Finished);
    let savepoint = sim
        .checkpoint_rows()
        .into_iter()
        .find(|r| r.savepoint)
        .expect("a savepoint");
    assert!(sim.restore_from(999).unwrap_err().contains("not retained"));
    sim.restore_from(savepoint.id).unwrap();
    sim.run_until(30 * MICROS_PER_SEC);
    assert_eq!(sim.status, JobStatus::Running);
    let restored = &sim.json_report()["checkpoints"]["latest"]["restored"];
    assert_eq!(restored["id"].as_u64(), Some(savepoint.id));
    assert_eq!(restored["is_savepoint"], true);
    let v = sim.verification();
    assert_eq!((v.duplicates, v.missing), (0, 0), "{v:?}");
}

#[test]
fn faults_with_bad_names_are_rejected_clearly() {
    let mut s = preset("seed-demo").unwrap();
    s.faults.push(parse_fail_flag("nope#0@1s").unwrap());
    assert!(Simulation::new(s)
        .unwrap_err()
        .contains("unknown operator 'nope'"));
    let mut s = preset("seed-demo").unwrap();
    s.faults.push(parse_fail_flag("datagen#5@1s").unwrap());
    assert!(Simulation::new(s).unwrap_err().contains("parallelism 2"));
}

#[test]
fn a_failover_after_restoring_a_savepoint_comes_back_to_the_savepoint() {
    let mut sim = Simulation::new(preset("seed-2pc").unwrap()).unwrap();
    sim.run_until(12 * MICROS_PER_SEC);
    sim.request(UserRequest::StopWithSavepoint);
    sim.run_until(13 * MICROS_PER_SEC);
    let savepoint = sim
        .checkpoint_rows()
        .into_iter()
        .find(|r| r.savepoint)
        .unwrap()
        .id;
    sim.restore_from(savepoint).unwrap();
    sim.run_until(13_500_000);
    // Before any new checkpoint completes, a rescale (like a failover) restores the savepoint.
    sim.rescale(&[
        ("count-per-key", 3),
        ("checkpoint-aware-map", 3),
        ("two-phase-commit-sink", 3),
    ])
    .unwrap();
    sim.run_until(30 * MICROS_PER_SEC);
    let v = sim.verification();
    assert_eq!((v.duplicates, v.missing), (0, 0), "{v:?}");
}

/// The verdict counts what the external system holds: take one committed record away and
/// commit another twice, and it reports exactly one missing and one duplicate, in the sink's
/// line and in the totals.
#[test]
fn the_verdict_counts_a_lost_and_a_doubled_record() {
    let mut sim = run(preset("seed-2pc").unwrap(), &[], 20);
    let clean = sim.verification();
    assert_eq!((clean.duplicates, clean.missing), (0, 0), "{clean:?}");
    let sink = sim.external.sinks.values_mut().next().unwrap();
    let mut committed = sink.written.keys().copied();
    let (lost, doubled) = (committed.next().unwrap(), committed.next().unwrap());
    sink.written.remove(&lost);
    *sink.written.get_mut(&doubled).unwrap() += 1;
    let v = sim.verification();
    assert_eq!((v.duplicates, v.missing), (1, 1), "{v:?}");
    let s = &v.sinks[0];
    assert_eq!((s.duplicates, s.missing), (1, 1));
    assert_eq!(v.expected_records, clean.expected_records);
    assert_eq!(v.expected_records, s.expected_records);
    assert_eq!(v.committed_records, s.committed_records);
    // Later checkpoints fold the early records into the sink's final verdict: it keeps both.
    let folded_before = sim.external.sinks.values().next().unwrap().folded.expected;
    sim.run_until(45 * MICROS_PER_SEC);
    assert!(sim.external.sinks.values().next().unwrap().folded.expected > folded_before);
    let later = sim.verification();
    assert_eq!((later.duplicates, later.missing), (1, 1), "{later:?}");
}

/// A keyed count feeding a two-phase-commit sink of parallelism 2 over a broadcast edge and a
/// slow one over rebalance, unaligned: the cut holds copies before the broadcast edge (each owes
/// both of the broadcast sink's subtasks) and copies on the way to the slow sink only (they owe
/// the broadcast sink nothing). What each sink committed is exactly what its cut expects, with
/// no failure and across a kill of the count.
#[test]
fn copies_held_as_channel_state_owe_each_sink_what_reaches_it_from_where_they_are() {
    use barrierlab_engine::scenario::{EdgeSpec, KeyDistribution, OperatorSpec, Partitioner};
    let mut s = preset("seed-2pc").unwrap();
    s.operators = vec![
        OperatorSpec::new(
            "src",
            OperatorKind::Datagen {
                rate: 1000,
                record_size: 100,
                keys: 4,
                key_distribution: KeyDistribution::Uniform,
                bounded: None,
            },
        )
        .with_parallelism(1),
        OperatorSpec::new("count", OperatorKind::KeyedCount).with_parallelism(1),
        OperatorSpec::new("all", OperatorKind::TwoPhaseCommitSink).with_parallelism(2),
        OperatorSpec::new("one", OperatorKind::TwoPhaseCommitSink)
            .with_parallelism(1)
            .with_cost("2ms"),
    ];
    s.edges = vec![
        EdgeSpec::new("src", "count", Partitioner::Hash),
        EdgeSpec::new("count", "all", Partitioner::Broadcast),
        EdgeSpec::new("count", "one", Partitioner::Rebalance),
    ];
    s.config
        .insert("execution.checkpointing.interval".into(), "500ms".into());
    let s = with(s, "execution.checkpointing.unaligned.enabled", "true");
    for kills in [&[][..], &["count#0@3s"][..]] {
        let sim = run(s.clone(), kills, 8);
        assert_eq!(restarts(&sim), kills.len(), "{kills:?}");
        let (count, one) = (
            s.operator_index("count").unwrap(),
            s.operator_index("one").unwrap(),
        );
        let (&basis, held) = sim.checkpoint_in_flight.iter().next_back().unwrap();
        assert!(held.iter().any(|r| r.operator == count), "{kills:?}");
        assert!(held.iter().any(|r| r.operator == one), "{kills:?}");
        let v = sim.verification();
        for sink in &v.sinks {
            assert_eq!(sink.basis, format!("checkpoint {basis}"), "{kills:?}");
            assert!(sink.expected_records > 0, "{kills:?}: {v:?}");
            assert_eq!(
                sink.expected_records, sink.committed_records,
                "{kills:?}: {v:?}"
            );
        }
        assert_eq!((v.duplicates, v.missing), (0, 0), "{kills:?}: {v:?}");
    }
}

/// The sizes Flink 2.3.0 wrote for the exported `seed-2pc` job killed at 12 s, read from its
/// checkpoints' `_metadata`: each keyed subtask's state plus the committer's collector (363 bytes:
/// a 247-byte header and one checkpoint's transaction), 5818 for the vertex; from the first
/// checkpoint after the restore on, each writer also keeps its cleared legacy committer state
/// (247 bytes of header), 6312.
#[test]
fn a_restored_committing_sink_keeps_the_writers_legacy_state() {
    let sim = run(preset("seed-2pc").unwrap(), &["count-per-key#1@12s"], 32);
    assert_eq!(restarts(&sim), 1);
    let restored_at = sim
        .trace
        .events()
        .find(|e| matches!(e.kind, TraceKind::Restored { .. }))
        .map(|e| e.time)
        .unwrap();
    let sink_vertex = sim
        .graph
        .vertices
        .iter()
        .position(|v| v.name.contains("Committer"))
        .unwrap() as u32;
    let mut before = Vec::new();
    let mut after = Vec::new();
    for cp in sim.coordinator.stats().history() {
        if cp.status != CheckpointStatsStatus::COMPLETED {
            continue;
        }
        let size = cp.tasks[&sink_vertex].checkpointed_size();
        if cp.trigger_timestamp < restored_at {
            before.push(size);
        } else {
            after.push(size);
        }
    }
    assert!(
        !before.is_empty() && !after.is_empty(),
        "{before:?} {after:?}"
    );
    // The keyed count's 16 keys are split 7 / 9 as in Flink: 2533 + 2559 bytes.
    assert!(
        before.iter().all(|&b| b == 2533 + 2559 + 2 * 363),
        "{before:?}"
    );
    assert!(
        after.iter().all(|&a| a == 2533 + 2559 + 2 * (363 + 247)),
        "{after:?}"
    );
}
