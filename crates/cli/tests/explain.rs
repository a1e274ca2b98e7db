//! `barrierlab explain FILE`: a real job's checkpoints explained from a recorded bundle.

mod common;

use common::barrierlab;

fn fixture(name: &str) -> String {
    format!(
        "{}/../../tests/fixtures/collect/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

const CHAIN_1: &str = "count-per-key -> checkpoint-aware-map -> discard-sink: Writer #1";

#[test]
fn explains_the_recorded_backpressured_job() {
    let (ok, out, err) = barrierlab(&["explain", &fixture("seed-backpressure.json")]);
    assert!(ok, "{err}");
    assert!(err.is_empty(), "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with("Job 'seed-backpressure' (b7066dc5"),
        "{out}"
    );
    assert!(
        out.contains("Checkpoint 4 took 2.73 s end to end, 54 % of the 5 s interval"),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "Its last acknowledgement came from {CHAIN_1}: start delay 2.72 s, alignment 0 ms, sync 0 ms, async 1 ms, acknowledgement 6 ms. The start delay phase dominated"
        )),
        "{out}"
    );
    assert!(
        out.contains("Upstream is back-pressured: Source: datagen (backpressureLevel high, ratio up to 1.00, HASH)"),
        "{out}"
    );
    assert!(out.contains("Checkpoint 6 was still in progress"), "{out}");
    assert!(
        out.contains(&format!("Still waiting for {CHAIN_1}")),
        "{out}"
    );
    let summary = lines.last().unwrap();
    assert!(
        summary.starts_with(&format!(
            "Summary: start delay dominated 2 of 2 checkpoints, each at {CHAIN_1}."
        )),
        "{summary}"
    );
    assert!(
        summary.contains("execution.checkpointing.unaligned.enabled"),
        "{summary}"
    );
}

#[test]
fn one_checkpoint_and_the_refusals() {
    let path = fixture("seed-backpressure.json");
    let (ok, out, err) = barrierlab(&["explain", &path, "--checkpoint", "5"]);
    assert!(ok, "{err}");
    assert!(out.contains("Checkpoint 5 took 2.85 s"), "{out}");
    assert!(!out.contains("Checkpoint 4"), "{out}");
    assert!(!out.contains("Summary"), "{out}");

    let (ok, _, err) = barrierlab(&["explain", &path, "--checkpoint", "3"]);
    assert!(!ok);
    assert!(
        err.contains("no details of checkpoint 3; it has checkpoint(s) 4, 5, 6"),
        "{err}"
    );

    let (ok, out, err) = barrierlab(&["explain", &fixture("no-checkpoints-yet.json")]);
    assert!(!ok);
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains("the bundle holds no checkpoint details"),
        "{err}"
    );

    let dir = std::env::temp_dir().join(format!("barrierlab-explain-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cut = dir.join("cut.json");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&cut, &text[..text.len() / 2]).unwrap();
    let (ok, _, err) = barrierlab(&["explain", cut.to_str().unwrap()]);
    assert!(!ok);
    assert!(err.contains("the JSON stops early"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
