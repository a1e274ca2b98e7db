//! Runs the `barrierlab` binary on every replay fixture, in both formats, and on bad scripts.

use std::path::PathBuf;
use std::process::{Command, Output};

const FIXTURES: [&str; 5] = [
    "aligned.json",
    "unaligned.json",
    "aligned-with-timeout.json",
    "at-least-once.json",
    "coordinator.json",
];

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/replay")
        .join(name)
}

fn barrierlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_barrierlab"))
        .args(args)
        .output()
        .expect("the barrierlab binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A scratch file unique to this test, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str, contents: &str) -> Scratch {
        let path =
            std::env::temp_dir().join(format!("barrierlab-replay-{}-{name}", std::process::id()));
        std::fs::write(&path, contents).expect("temp file is writable");
        Scratch(path)
    }

    fn path(&self) -> &str {
        self.0.to_str().expect("temp path is UTF-8")
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn every_fixture_replays_as_text() {
    for name in FIXTURES {
        let path = fixture(name);
        let out = barrierlab(&["replay", path.to_str().unwrap()]);
        assert!(out.status.success(), "{name}: {}", stderr(&out));
        let text = stdout(&out);
        assert!(text.contains("step 0"), "{name}:\n{text}");
        assert!(text.contains("  state "), "{name}:\n{text}");
    }
}

#[test]
fn text_shows_the_key_moments() {
    let run = |name: &str| stdout(&barrierlab(&["replay", fixture(name).to_str().unwrap()]));
    let aligned = run("aligned.json");
    assert!(
        aligned.contains("held: ch0 is blocked upstream"),
        "{aligned}"
    );
    assert!(
        aligned.contains("ch0 resumed: held buffer 4096 B delivered"),
        "{aligned}"
    );
    assert!(aligned.contains("CollectingBarriers"), "{aligned}");
    let unaligned = run("unaligned.json");
    assert!(
        unaligned.contains("PersistInFlight ch1 32768 B into #1"),
        "{unaligned}"
    );
    assert!(
        unaligned.contains("persisted #1 ch1=49152 B"),
        "{unaligned}"
    );
    let timeout = run("aligned-with-timeout.json");
    assert!(
        timeout.contains("alignment timer of #1 fires (due 110ms)"),
        "{timeout}"
    );
    assert!(timeout.contains("SwitchedToUnaligned #1"), "{timeout}");
    let alo = run("at-least-once.json");
    assert!(alo.contains("CheckpointBarrierTracker"), "{alo}");
    assert!(!alo.contains("BlockChannel"), "{alo}");
    let coord = run("coordinator.json");
    assert!(coord.contains("RequestQueued checkpoint"), "{coord}");
    assert!(coord.contains("acked 3/4"), "{coord}");
    assert!(
        coord.contains("CheckpointAborted #4 CHECKPOINT_EXPIRED"),
        "{coord}"
    );
    assert!(coord.contains("latest completed #1"), "{coord}");
    assert!(
        coord.contains("TriggerTasks #7 stop-with-savepoint"),
        "{coord}"
    );
}

#[test]
fn every_fixture_replays_as_json() {
    for name in FIXTURES {
        let path = fixture(name);
        let out = barrierlab(&["replay", "--format", "json", path.to_str().unwrap()]);
        assert!(out.status.success(), "{name}: {}", stderr(&out));
        let report: serde_json::Value =
            serde_json::from_str(&stdout(&out)).expect("--format json prints JSON");
        let machine = name.trim_end_matches(".json");
        assert_eq!(report["machine"], machine, "{name}");
        let steps = report["steps"].as_array().expect("steps");
        assert!(!steps.is_empty());
        for (i, step) in steps.iter().enumerate() {
            assert_eq!(step["step"], i);
            assert!(step["time"].is_u64() && step["input"].is_object());
            assert!(step["effects"].is_array() && step["state"].is_object());
        }
    }
}

#[test]
fn a_missing_file_fails_clearly() {
    let out = barrierlab(&["replay", "/definitely/not/here.json"]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("cannot read replay script /definitely/not/here.json"),
        "{err}"
    );
}

#[test]
fn garbage_fails_with_line_and_column() {
    let file = Scratch::new("garbage.json", "{\n  \"version\": 1,\n  <<<garbage>>>\n");
    let out = barrierlab(&["replay", file.path()]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("not valid JSON") && err.contains("line 3 column 3"),
        "{err}"
    );
    assert!(err.contains(file.path()), "{err}");
    assert!(stdout(&out).is_empty());
}

#[test]
fn an_unknown_step_fails_naming_it() {
    let file = Scratch::new(
        "unknown-step.json",
        r#"{"version":1,"machine":"aligned","channels":2,"steps":[{"advance":"1ms"},{"teleport":{"channel":0}}]}"#,
    );
    let out = barrierlab(&["replay", file.path()]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("step 1") && err.contains("teleport"), "{err}");
}
