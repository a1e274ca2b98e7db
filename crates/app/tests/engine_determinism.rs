//! The engine in wasm, in headless Chromium, reproduces the fingerprints computed natively
//! (tests/fixtures/fingerprints.json, asserted natively by the engine's own test).
#![cfg(target_arch = "wasm32")]

use barrierlab_engine::scenario::{apply_set, preset};
use barrierlab_engine::sim::divergence::{cli_args, explain, MARK_EVERY};
use barrierlab_engine::sim::Simulation;
use barrierlab_engine::types::MICROS_PER_SEC;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const FIXTURE: &str = include_str!("../../../tests/fixtures/fingerprints.json");

#[wasm_bindgen_test]
fn wasm_runs_match_native_fingerprints() {
    let pinned: serde_json::Value = serde_json::from_str(FIXTURE).unwrap();
    let runs = pinned["runs"].as_array().unwrap();
    assert!(!runs.is_empty());
    assert_eq!(pinned["marks_every"].as_u64(), Some(MARK_EVERY));
    for run in runs {
        let (name, seed) = (
            run["preset"].as_str().unwrap(),
            run["seed"].as_u64().unwrap(),
        );
        let mut scenario = preset(name).unwrap();
        scenario.seed = seed;
        // Optional `--set`s, e.g. two TaskManagers for remote channels.
        let sets: Vec<String> = serde_json::from_value(run["set"].clone()).unwrap_or_default();
        for set in &sets {
            apply_set(&mut scenario, set).unwrap();
        }
        let mut sim = Simulation::new(scenario.clone()).unwrap();
        sim.trace.log_hashes_every(MARK_EVERY);
        sim.run_until(run["seconds"].as_u64().unwrap() * MICROS_PER_SEC);
        if run["fingerprint"].as_str() != Some(sim.fingerprint().as_str()) {
            // Where wasm parts from native, and wasm's events there to diff with
            // `barrierlab run --trace-window` natively.
            let want: Vec<String> = serde_json::from_value(run["marks"].clone()).unwrap();
            panic!(
                "{name} seed {seed}: wasm fingerprint {} against native {}; {}",
                sim.fingerprint(),
                run["fingerprint"],
                explain(
                    &scenario,
                    &want,
                    sim.trace.hash_marks(),
                    &cli_args(name, seed, &sets)
                )
            );
        }
    }
}
