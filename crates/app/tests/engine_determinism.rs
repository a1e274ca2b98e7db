//! The engine in wasm, in headless Chromium, reproduces the fingerprints computed natively
//! (tests/fixtures/fingerprints.json, asserted natively by the engine's own test).
#![cfg(target_arch = "wasm32")]

use barrierlab_engine::scenario::preset;
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
    for run in runs {
        let mut scenario = preset(run["preset"].as_str().unwrap()).unwrap();
        scenario.seed = run["seed"].as_u64().unwrap();
        let mut sim = Simulation::new(scenario).unwrap();
        sim.run_until(run["seconds"].as_u64().unwrap() * MICROS_PER_SEC);
        assert_eq!(
            run["fingerprint"].as_str(),
            Some(sim.fingerprint().as_str()),
            "{run}"
        );
    }
}
