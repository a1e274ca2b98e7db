//! The engine in wasm, in headless Chromium, reproduces the fingerprints computed natively
//! (tests/fixtures/fingerprints.json, asserted natively by the engine's own test).
//! It does so also when continued from a snapshot (the Web Worker's hand-over of a job).
#![cfg(target_arch = "wasm32")]

use barrierlab_engine::sim::divergence::{PinnedRun, MARK_EVERY};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const FIXTURE: &str = include_str!("../../../tests/fixtures/fingerprints.json");

#[wasm_bindgen_test]
fn wasm_runs_match_native_fingerprints() {
    let pinned: serde_json::Value = serde_json::from_str(FIXTURE).unwrap();
    assert_eq!(pinned["marks_every"].as_u64(), Some(MARK_EVERY));
    let runs: Vec<PinnedRun> = serde_json::from_value(pinned["runs"].clone()).unwrap();
    assert!(!runs.is_empty());
    for run in &runs {
        // On a mismatch: where wasm parts from native, and wasm's events there, to diff with
        // `barrierlab run --trace-window` natively.
        if let Some(why) = run.mismatch(&run.run().unwrap()) {
            panic!("wasm against native: {why}");
        }
    }
}

/// The Web Worker hands a running job over as `Simulation::to_snapshot` bytes: in wasm, a run
/// continued from its snapshot half-way ends with the fingerprint pinned natively.
#[wasm_bindgen_test]
fn wasm_runs_continued_from_a_snapshot_match_native_fingerprints() {
    use barrierlab_engine::sim::Simulation;
    use barrierlab_engine::types::MICROS_PER_SEC;
    let pinned: serde_json::Value = serde_json::from_str(FIXTURE).unwrap();
    let runs: Vec<PinnedRun> = serde_json::from_value(pinned["runs"].clone()).unwrap();
    for run in &runs {
        let mut sim = Simulation::new(run.scenario().unwrap()).unwrap();
        sim.run_until(run.seconds * MICROS_PER_SEC / 2);
        let mut back = Simulation::from_snapshot(&sim.to_snapshot()).unwrap();
        drop(sim);
        back.run_until(run.seconds * MICROS_PER_SEC);
        assert_eq!(
            back.fingerprint(),
            run.fingerprint,
            "{} (seed {}, {:?}) continued from its snapshot at {} s",
            run.preset,
            run.seed,
            run.set,
            run.seconds / 2
        );
    }
}

/// The playground's job played in the Web Worker (`worker::play::Player`), the page's copy
/// updated from each of its updates: in wasm, the copy ends with the fingerprint pinned natively.
#[wasm_bindgen_test]
fn wasm_copies_updated_from_the_worker_match_native_fingerprints() {
    use barrierlab_app::speed::Speed;
    use barrierlab_app::travel::TimeTravel;
    use barrierlab_app::worker::play::Player;
    use barrierlab_engine::sim::Simulation;
    use barrierlab_engine::types::MICROS_PER_SEC;
    let pinned: serde_json::Value = serde_json::from_str(FIXTURE).unwrap();
    let runs: Vec<PinnedRun> = serde_json::from_value(pinned["runs"].clone()).unwrap();
    for run in &runs {
        let mut copy = Simulation::new(run.scenario().unwrap()).unwrap();
        // The page's time travel, its snapshots written by the worker.
        let mut travel = TimeTravel::new(&copy);
        let mut player =
            Player::new(1, &copy.to_snapshot(), Speed::Ten, travel.next_due()).unwrap();
        let end = run.seconds * MICROS_PER_SEC;
        // The first slice sets the pace; each after it is given the wall clock that takes the
        // job a simulated second on at 10x, or what is left to the pinned time, so that the
        // copy reaches that time exactly. A slice cut short by a completed checkpoint is made
        // up by the next.
        let (mut wall, mut aim, mut spare) = (0.0, 0, None);
        let first = player.slice(wall, 60_000.0);
        assert!(first.0.is_none());
        while copy.now < end && copy.status.is_live() {
            let step = (end - aim).min(MICROS_PER_SEC);
            wall += (step / 10_000) as f64;
            aim += step;
            let (update, _) = player.slice(wall, 60_000.0);
            if let Some((played, bytes)) = update {
                let (update, snapshot) = played.parts(&bytes);
                // As the page does: each update read into the version before's memory.
                copy.update_from_snapshot_reusing(update, &mut spare)
                    .unwrap();
                travel.record_written(&copy, snapshot.map(<[u8]>::to_vec));
                player.want(travel.next_due());
            }
        }
        assert_eq!(
            (copy.now, copy.fingerprint()),
            (end, run.fingerprint.clone()),
            "{} (seed {}, {:?}) played in the worker's way",
            run.preset,
            run.seed,
            run.set
        );
        // Going back re-runs from a snapshot the worker wrote, to the same end.
        let back = travel.seek(end).unwrap();
        assert_eq!(
            back.fingerprint(),
            run.fingerprint,
            "{} (seed {}) re-run from time travel's snapshots",
            run.preset,
            run.seed
        );
    }
}
