//! Pins the trace fingerprints of a few runs. The app's wasm test asserts the same values in
//! headless Chromium, so native and wasm runs are proven identical. Each run also pins its
//! running hash every `MARK_EVERY` events: a mismatch names the stretch of events where the run
//! parts from the pinned one, and lists it (madsim's way of finding nondeterminism).
//! After an intended model change: `BARRIERLAB_UPDATE_FINGERPRINTS=1 cargo test -p barrierlab-engine --test fingerprints`.

use barrierlab_engine::scenario::{apply_set, preset};
use barrierlab_engine::sim::divergence::{cli_args, explain, marks_hex, MARK_EVERY};
use barrierlab_engine::sim::Simulation;
use barrierlab_engine::types::MICROS_PER_SEC;

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/fixtures/fingerprints.json"
);

#[test]
fn fingerprints_match_the_pinned_values() {
    let text = std::fs::read_to_string(FIXTURE).expect("tests/fixtures/fingerprints.json exists");
    let mut pinned: serde_json::Value = serde_json::from_str(&text).unwrap();
    let update = std::env::var_os("BARRIERLAB_UPDATE_FINGERPRINTS").is_some();
    if update {
        pinned["marks_every"] = MARK_EVERY.into();
    }
    assert_eq!(
        pinned["marks_every"].as_u64(),
        Some(MARK_EVERY),
        "re-pin the fixture"
    );
    let runs = pinned["runs"].as_array_mut().unwrap();
    assert!(!runs.is_empty());
    for run in runs.iter_mut() {
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
        let seconds = run["seconds"].as_u64().unwrap();
        let mut sim = Simulation::new(scenario.clone()).unwrap();
        sim.trace.log_hashes_every(MARK_EVERY);
        sim.run_until(seconds * MICROS_PER_SEC);
        if update {
            run["fingerprint"] = sim.fingerprint().into();
            run["marks"] = marks_hex(sim.trace.hash_marks()).into();
        } else if run["fingerprint"].as_str() != Some(sim.fingerprint().as_str()) {
            let want: Vec<String> = serde_json::from_value(run["marks"].clone()).unwrap();
            panic!(
                "{name} seed {seed}, {seconds} s: fingerprint {} (pinned {}); {}",
                sim.fingerprint(),
                run["fingerprint"],
                explain(
                    &scenario,
                    &want,
                    sim.trace.hash_marks(),
                    &cli_args(name, seed, &sets)
                )
            );
        } else {
            // The marks are the fingerprint's witnesses: a stale list would mislead the search.
            assert_eq!(
                run["marks"],
                serde_json::json!(marks_hex(sim.trace.hash_marks()))
            );
        }
    }
    if update {
        std::fs::write(
            FIXTURE,
            serde_json::to_string_pretty(&pinned).unwrap() + "\n",
        )
        .unwrap();
    }
}
