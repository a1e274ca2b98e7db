//! Pins the trace fingerprints of a few runs. The app's wasm test asserts the same values in
//! headless Chromium, so native and wasm runs are proven identical. Each run also pins its
//! running hash every `MARK_EVERY` events: a mismatch names the stretch of events where the run
//! parts from the pinned one, and lists it (madsim's way of finding nondeterminism).
//! After an intended model change: `BARRIERLAB_UPDATE_FINGERPRINTS=1 cargo test -p barrierlab-engine --test fingerprints`.

use barrierlab_engine::sim::divergence::{marks_hex, PinnedRun, MARK_EVERY};

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
    let mut runs: Vec<PinnedRun> = serde_json::from_value(pinned["runs"].clone()).unwrap();
    assert!(!runs.is_empty());
    for run in &mut runs {
        let sim = run.run().unwrap();
        let marks = marks_hex(sim.trace.hash_marks());
        if update {
            run.fingerprint = sim.fingerprint();
            run.marks = marks;
        } else if let Some(why) = run.mismatch(&sim) {
            panic!("{why}");
        } else {
            // The marks are the fingerprint's witnesses: a stale list would mislead the search.
            assert_eq!(run.marks, marks, "{}: stale marks", run.preset);
        }
    }
    if update {
        pinned["runs"] = serde_json::to_value(&runs).unwrap();
        std::fs::write(
            FIXTURE,
            serde_json::to_string_pretty(&pinned).unwrap() + "\n",
        )
        .unwrap();
    }
}
