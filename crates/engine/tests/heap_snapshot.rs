//! The heap backend's async phase writes a section for every key group of a subtask's range,
//! empty or not: with many key groups it takes milliseconds even for a few kilobytes of state,
//! as real Flink 2.3 showed (`pipeline.max-parallelism: 4096`, seed job: keyed async 14.5-16 ms
//! mean for 46 KB, against 1-2 ms at the default 128).

use barrierlab_engine::scenario::{apply_set, preset};
use barrierlab_engine::sim::Simulation;
use barrierlab_engine::types::MICROS_PER_SEC;

/// The keyed subtasks' async durations (µs) and checkpointed sizes of checkpoints 2 on.
fn keyed_async(max_parallelism: u32) -> Vec<(u64, u64)> {
    let mut s = preset("seed-demo").expect("preset exists");
    s.seed = 1;
    apply_set(
        &mut s,
        &format!("pipeline.max-parallelism={max_parallelism}"),
    )
    .unwrap();
    let mut sim = Simulation::new(s).expect("valid scenario");
    sim.run_until(22 * MICROS_PER_SEC);
    let mut out = Vec::new();
    for cp in sim.coordinator.stats().history() {
        if cp.completion_timestamp.is_none() || cp.id < 2 {
            continue;
        }
        for task in cp.tasks.values() {
            // The keyed vertex: each of its subtasks holds more than a source's offset state.
            let keyed = task.subtasks.values().all(|s| s.metrics.state_size > 1_000);
            if keyed {
                out.extend(
                    task.subtasks
                        .values()
                        .map(|s| (s.metrics.async_duration, s.metrics.checkpointed_size)),
                );
            }
        }
    }
    out
}

#[test]
fn every_key_group_of_the_range_costs_the_async_phase_time() {
    let few = keyed_async(128);
    let many = keyed_async(4096);
    assert!(few.len() >= 4 && many.len() >= 4, "{few:?} {many:?}");
    // 2048 key groups a subtask: 46 KB, as Flink's file, written in 10 ms or more (Flink's
    // means 14.5-16 ms); the 64 of the default stay within a few ms.
    for &(async_duration, size) in &many {
        assert!((45_000..48_000).contains(&size), "{many:?}");
        assert!(async_duration >= 10_240, "{many:?}");
    }
    for &(async_duration, _) in &few {
        assert!(async_duration < 6_000, "{few:?}");
    }
}
