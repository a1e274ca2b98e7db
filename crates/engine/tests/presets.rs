//! Every preset runs cleanly: valid, checkpoints complete, no warnings in the trace.

use barrierlab_engine::scenario::{preset, Scenario, PRESETS};
use barrierlab_engine::sim::{JobStatus, Simulation, UserRequest};
use barrierlab_engine::stats::CheckpointStatsStatus;
use barrierlab_engine::trace::TraceKind;
use barrierlab_engine::types::MICROS_PER_SEC;

#[test]
fn every_preset_runs_without_warnings_and_completes_checkpoints() {
    for (name, _) in PRESETS {
        let mut sim = Simulation::new(preset(name).unwrap()).unwrap();
        sim.run_until(20 * MICROS_PER_SEC);
        let warnings: Vec<_> = sim
            .trace
            .events()
            .filter(|e| matches!(e.kind, TraceKind::Warning { .. }))
            .collect();
        assert!(warnings.is_empty(), "{name}: {warnings:?}");
        let completed = sim.coordinator.stats().counts.completed;
        assert!(completed >= 1, "{name}: no checkpoint completed");
        assert_ne!(sim.status, JobStatus::Failed, "{name}");
    }
}

#[test]
fn a_savepoint_is_aligned_even_in_an_unaligned_job() {
    let mut sim = Simulation::new(preset("seed-unaligned").unwrap()).unwrap();
    sim.run_until(3 * MICROS_PER_SEC);
    sim.request(UserRequest::Savepoint);
    sim.run_until(30 * MICROS_PER_SEC);
    let savepoint = sim
        .checkpoint_rows()
        .into_iter()
        .find(|r| r.savepoint)
        .expect("a savepoint was taken");
    assert_eq!(savepoint.status, CheckpointStatsStatus::COMPLETED);
    assert!(!savepoint.unaligned);
    assert_eq!(savepoint.persisted, 0);
    // Aligned under backpressure: it waits behind the in-flight data.
    assert!(savepoint.duration.unwrap() > MICROS_PER_SEC);
}

#[test]
fn two_phase_commit_sink_commits_on_notify() {
    let mut sim = Simulation::new(preset("seed-2pc").unwrap()).unwrap();
    sim.run_until(20 * MICROS_PER_SEC);
    let commits = sim
        .trace
        .events()
        .filter(|e| matches!(e.kind, TraceKind::Commit { .. }))
        .count();
    let completed = sim.coordinator.stats().counts.completed as usize;
    // Every completed checkpoint is committed by both sink subtasks (the last may be in flight).
    assert!(
        commits >= 2 * (completed - 1),
        "{commits} commits for {completed} checkpoints"
    );
}

#[test]
fn invalid_scenarios_are_rejected_with_a_message() {
    let mut s: Scenario = preset("seed-demo").unwrap();
    s.edges.push(barrierlab_engine::scenario::EdgeSpec::new(
        "discard-sink",
        "datagen",
        barrierlab_engine::scenario::Partitioner::Forward,
    ));
    let err = Simulation::new(s).expect_err("a cycle is rejected");
    assert!(!err.is_empty());
}

#[test]
fn aligned_checkpoint_timeout_switches_to_unaligned_under_backpressure() {
    let mut s = preset("seed-unaligned").unwrap();
    s.config.insert(
        "execution.checkpointing.aligned-checkpoint-timeout".into(),
        "1s".into(),
    );
    let mut sim = Simulation::new(s).unwrap();
    sim.run_until(30 * MICROS_PER_SEC);
    let rows: Vec<_> = sim
        .checkpoint_rows()
        .into_iter()
        .filter(|r| r.status == CheckpointStatsStatus::COMPLETED)
        .collect();
    assert!(rows.len() >= 4);
    for r in &rows[1..] {
        let d = r.duration.unwrap();
        // Around the timeout: aligned for a second, then the barriers overtake.
        assert!(
            (MICROS_PER_SEC..2 * MICROS_PER_SEC).contains(&d),
            "checkpoint {} took {d}us",
            r.id
        );
        assert!(r.persisted > 0, "checkpoint {} persisted nothing", r.id);
    }
}
