//! Pins the trace fingerprints of a few runs. The app's wasm test asserts the same values in
//! headless Chromium, so native and wasm runs are proven identical.
//! After an intended model change: `BARRIERLAB_UPDATE_FINGERPRINTS=1 cargo test -p barrierlab-engine --test fingerprints`.

use barrierlab_engine::scenario::preset;
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
    let runs = pinned["runs"].as_array_mut().unwrap();
    assert!(!runs.is_empty());
    for run in runs.iter_mut() {
        let mut scenario = preset(run["preset"].as_str().unwrap()).unwrap();
        scenario.seed = run["seed"].as_u64().unwrap();
        let mut sim = Simulation::new(scenario).unwrap();
        sim.run_until(run["seconds"].as_u64().unwrap() * MICROS_PER_SEC);
        if update {
            run["fingerprint"] = sim.fingerprint().into();
        } else {
            assert_eq!(
                run["fingerprint"].as_str(),
                Some(sim.fingerprint().as_str()),
                "{run}"
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
