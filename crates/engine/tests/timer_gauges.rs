//! The REST API's busy, idle and backpressured ratios are Flink's `TimerGauge`s
//! (task/timer_gauge.rs): zero until the view's first update, then a mean over up to 60 s whose
//! first slot spans 5-10 s but counts as 5. Measured on Flink 2.3: two-input-join's payments chain
//! (1 ms a record at 200 records/s a subtask, 0.20-0.23 busy by its accumulated busy time)
//! read busy 0 for 20 s and 0.05-0.12 after; seed-backpressure's 7-key subtask, 0.77 busy by its
//! accumulated time once the queues have drained, read 0.82-0.86.

use barrierlab_engine::scenario::preset;
use barrierlab_engine::sim::Simulation;
use barrierlab_engine::types::MICROS_PER_SEC;

fn run(name: &str, seed: u64, seconds: u64) -> Simulation {
    let mut s = preset(name).unwrap();
    s.seed = seed;
    let mut sim = Simulation::new(s).unwrap();
    sim.run_until(seconds * MICROS_PER_SEC);
    sim
}

/// Per subtask of `vertex` (by position): the REST busy ratio and the busy share of the time
/// since the task started, as Flink's accumulated busy time gives it.
fn busy(sim: &Simulation, vertex: u32) -> Vec<(f64, f64)> {
    let ids = sim.job_vertex_ids();
    let rest = &sim.backpressure()[&ids[vertex as usize]];
    sim.tasks
        .iter()
        .filter(|t| t.id.vertex == vertex)
        .zip(&rest.subtasks)
        .map(|(t, s)| {
            let total = t.time.total;
            (
                s.busy_ratio,
                total.busy as f64 / (total.busy + total.idle + total.backpressured) as f64,
            )
        })
        .collect()
}

#[test]
fn every_subtask_reads_busy_until_the_gauges_first_update() {
    // The first update is the ViewUpdater's second tick after the tasks register (~0.9 s).
    let sim = run("two-input-join", 1, 5);
    for (id, info) in sim.backpressure() {
        for s in &info.subtasks {
            assert_eq!(
                (s.busy_ratio, s.idle_ratio),
                (1.0, 0.0),
                "{id}#{}",
                s.subtask
            );
        }
    }
}

#[test]
fn a_gauge_overstates_idle_time_while_its_first_slot_is_in_the_window() {
    let mut excess = Vec::new();
    for seed in 1..=6 {
        let sim = run("two-input-join", seed, 32);
        for (gauge, accumulated) in busy(&sim, 1) {
            assert!(
                (0.19..0.22).contains(&accumulated),
                "seed {seed}: {accumulated}"
            );
            // The first slot holds 5-10 s of idle time over 5 s: never less idle than it was.
            assert!(
                gauge <= accumulated + 0.01,
                "seed {seed}: {gauge} > {accumulated}"
            );
            excess.push(accumulated - gauge);
        }
    }
    let most = excess.iter().cloned().fold(0.0, f64::max);
    assert!(most > 0.08, "the gauge lags by at most {most:.3}");
}

#[test]
fn a_subtask_busy_from_the_start_reads_busier_than_it_is_for_a_minute() {
    // seed-backpressure's 7-key subtask: busy while the queues drain (its first ~10 s), then
    // starved to 7/9 of the 9-key subtask's rate.
    for seed in 1..=4 {
        let sim = run("seed-backpressure", seed, 32);
        let seven = sim
            .tasks
            .iter()
            .find(|t| t.id.vertex == 1 && t.id.subtask == 0)
            .unwrap();
        let recent = seven.time.recent(10);
        let now = recent.busy as f64 / recent.total() as f64;
        let (gauge, _) = busy(&sim, 1)[0];
        assert!((0.74..0.80).contains(&now), "seed {seed}: last 10 s {now}");
        assert!((0.81..0.88).contains(&gauge), "seed {seed}: gauge {gauge}");
    }
    // After a minute and a half the first slot has left the window.
    let sim = run("seed-backpressure", 1, 90);
    let (gauge, _) = busy(&sim, 1)[0];
    assert!((0.74..0.80).contains(&gauge), "{gauge}");
}
