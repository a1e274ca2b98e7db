//! The engine in wasm, in headless Chromium, reproduces the fingerprints computed natively
//! (tests/fixtures/fingerprints.json, asserted natively by the engine's own test).
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
