//! `barrierlab run --why N`: the engine's explanation of one checkpoint.

mod common;

use common::barrierlab;

fn why(preset: &str, id: &str, extra: &[&str]) -> (bool, String, String) {
    let mut args = vec!["run", "--preset", preset, "--seconds", "30", "--why", id];
    args.extend_from_slice(extra);
    barrierlab(&args)
}

#[test]
fn explains_a_backpressured_checkpoint_in_sentences() {
    let (ok, out, err) = why("seed-backpressure", "2", &[]);
    assert!(ok, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with("Checkpoint 2 took 2.32 s end to end"),
        "{out}"
    );
    assert!(out.contains("The start delay phase dominated"), "{out}");
    assert!(out.contains("behind up to 8 data buffers"), "{out}");
    // Only the answer: not the history table.
    assert!(!out.contains("fingerprint"), "{out}");
}

#[test]
fn says_when_nothing_was_slow_and_answers_in_json() {
    let (ok, out, err) = why("seed-unaligned", "2", &["--format", "json"]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["id"], 2);
    assert_eq!(v["slow"], false);
    assert!(v["persisted_data"].as_u64() > Some(0), "{v}");
    let text = v["sentences"].to_string();
    assert!(text.contains("Nothing was slow"), "{text}");
    assert!(text.contains("of in-flight data"), "{text}");
}

#[test]
fn an_unknown_checkpoint_is_an_error() {
    let (ok, out, err) = why("seed-demo", "99", &[]);
    assert!(!ok && out.is_empty());
    assert!(
        err.contains("checkpoint 99 is not in the statistics history"),
        "{err}"
    );
}
