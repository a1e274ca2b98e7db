//! "Why was checkpoint N slow?" is computed from the engine's own record of the checkpoint, so it
//! is the same however the run was stepped and whenever it is asked.

use barrierlab_engine::scenario::preset;
use barrierlab_engine::sim::Simulation;
use barrierlab_engine::stats::why::{explain, Why, KEEP_CHECKPOINTS};
use barrierlab_engine::stats::CheckpointStatsStatus;
use barrierlab_engine::types::{Micros, MICROS_PER_MS, MICROS_PER_SEC};

const HORIZON: Micros = 30 * MICROS_PER_SEC;

fn why(sim: &Simulation, id: u64) -> Why {
    explain(sim, id, str::to_string).unwrap_or_else(|| panic!("checkpoint {id} is explained"))
}

fn run(name: &str, until: Micros) -> Simulation {
    let mut sim = Simulation::new(preset(name).unwrap()).unwrap();
    sim.run_until(until);
    sim
}

/// Runs `name` to the horizon in slices of `step` and explains each of `ids` at the end of the
/// first slice that finds it completed (so at different simulated times for different steps).
fn explained_while_running(name: &str, step: Micros, ids: &[u64]) -> Vec<Why> {
    let mut sim = Simulation::new(preset(name).unwrap()).unwrap();
    let mut found: Vec<Option<Why>> = vec![None; ids.len()];
    let mut t = 0;
    while t < HORIZON {
        t = (t + step).min(HORIZON);
        sim.run_until(t);
        for (slot, &id) in found.iter_mut().zip(ids) {
            let done = sim
                .coordinator
                .stats()
                .get(id)
                .is_some_and(|c| c.status == CheckpointStatsStatus::COMPLETED);
            if slot.is_none() && done {
                *slot = Some(why(&sim, id));
            }
        }
    }
    found
        .into_iter()
        .zip(ids)
        .map(|(w, id)| w.unwrap_or_else(|| panic!("{name}: checkpoint {id} never completed")))
        .collect()
}

#[test]
fn the_answer_does_not_depend_on_how_the_run_was_sliced() {
    for name in ["seed-backpressure", "seed-unaligned"] {
        let ids = [1, 2, 3];
        let whole = explained_while_running(name, HORIZON, &ids);
        for step in [MICROS_PER_MS, 10 * MICROS_PER_SEC] {
            assert_eq!(
                explained_while_running(name, step, &ids),
                whole,
                "{name} in slices of {step} µs"
            );
        }
    }
}

#[test]
fn a_healthy_checkpoint_says_nothing_was_slow() {
    let sim = run("seed-demo", HORIZON);
    let w = why(&sim, 2);
    assert!(!w.slow, "{w:#?}");
    assert!(w.sentences[0].starts_with("Nothing was slow"), "{w:#?}");
    assert!(
        w.sentences.iter().all(|s| !s.contains("dominated")),
        "a healthy checkpoint blames no phase: {w:#?}"
    );
}

#[test]
fn an_unaligned_checkpoint_mentions_its_persisted_in_flight_data() {
    let sim = run("seed-unaligned", HORIZON);
    let w = why(&sim, 2);
    let stats = sim.coordinator.stats().get(2).unwrap();
    assert!(w.persisted > 100 * 1024, "{w:#?}");
    assert_eq!(w.persisted, stats.persisted_data());
    let text = w.sentences.join(" ");
    assert!(text.contains("KB of in-flight data"), "{text}");
    assert!(text.contains("Source: datagen's output buffers"), "{text}");
    assert!(text.contains("input channels"), "{text}");
}

#[test]
fn backpressure_names_the_start_delay_behind_queued_buffers() {
    let sim = run("seed-backpressure", HORIZON);
    for id in [2, 3] {
        let w = why(&sim, id);
        assert!(w.slow, "{w:#?}");
        assert_eq!(w.dominant, "start delay", "{w:#?}");
        let n = w.buffers_ahead.expect("the engine noted the queue");
        assert!(n > 0, "{w:#?}");
        let text = w.sentences.join(" ");
        assert!(
            text.contains(&format!("behind up to {n} data buffers")),
            "{text}"
        );
        assert!(text.contains("cannot overtake data"), "{text}");
    }
}

#[test]
fn the_log_stays_bounded_on_a_long_run() {
    let sim = run("seed-unaligned", 600 * MICROS_PER_SEC);
    let newest = sim.coordinator.stats().history().next().unwrap().id;
    assert!(newest > 2 * KEEP_CHECKPOINTS, "{newest} checkpoints");
    // Per checkpoint: one entry per consumer subtask and per subtask that persisted data.
    let per_checkpoint = 2 * sim.tasks.len();
    assert!(
        sim.barrier_log.len() <= KEEP_CHECKPOINTS as usize * per_checkpoint,
        "{} entries",
        sim.barrier_log.len()
    );
    let noted = |id: u64| {
        (0..sim.tasks.len() as u32).any(|t| sim.barrier_log.queued_ahead(id, t).is_some())
    };
    assert!(noted(newest) && !noted(newest - KEEP_CHECKPOINTS));
}

#[test]
fn the_first_checkpoint_says_it_ran_on_cold_jvms_and_only_it() {
    let sim = run("seed-demo", 12 * MICROS_PER_SEC);
    let first = why(&sim, 1).sentences.join(" ");
    assert!(first.contains("It ran on cold TaskManager JVMs"), "{first}");
    assert!(
        first.contains("its trigger, sync phase, async phase"),
        "{first}"
    );
    // 27 + 11 + 12 + 5 + 8 ms of defaults on the one TaskManager.
    assert!(first.contains("up to 63 ms along its path"), "{first}");
    let second = why(&sim, 2).sentences.join(" ");
    assert!(!second.contains("cold"), "{second}");

    // A warm JVM (every warm-up cost 0): nothing to say.
    let mut scenario = preset("seed-demo").unwrap();
    for path in ["trigger", "sync", "async", "keyed-sync", "keyed-async"] {
        scenario
            .config
            .insert(format!("barrierlab.warm-up.{path}"), "0".into());
    }
    let mut warm = Simulation::new(scenario).unwrap();
    warm.run_until(12 * MICROS_PER_SEC);
    let first = why(&warm, 1).sentences.join(" ");
    assert!(!first.contains("cold"), "{first}");
}
