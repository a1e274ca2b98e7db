//! The `barrierlab run` contract that tests, docs and people rely on.

mod common;

use common::barrierlab;

fn json(args: &[&str]) -> serde_json::Value {
    let (ok, stdout, stderr) = barrierlab(args);
    assert!(ok, "{stderr}");
    serde_json::from_str(&stdout).expect("--format json prints JSON")
}

#[test]
fn json_report_has_flink_rest_shapes() {
    let v = json(&[
        "run",
        "--preset",
        "seed-demo",
        "--seconds",
        "12",
        "--format",
        "json",
    ]);
    for key in [
        "checkpoints",
        "config",
        "details",
        "subtasks",
        "backpressure",
        "fingerprint",
    ] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    let counts = &v["checkpoints"]["counts"];
    for key in ["restored", "total", "in_progress", "completed", "failed"] {
        assert!(counts.get(key).is_some(), "counts.{key}");
    }
    let summary = &v["checkpoints"]["summary"]["end_to_end_duration"];
    for key in ["min", "max", "avg", "p50", "p90", "p95", "p99", "p999"] {
        assert!(
            summary.get(key).is_some(),
            "summary.end_to_end_duration.{key}"
        );
    }
    assert_eq!(v["config"]["mode"], "exactly_once");
    assert_eq!(v["config"]["interval"], 5000);
    let id = v["checkpoints"]["latest"]["completed"]["id"]
        .as_u64()
        .expect("a completed checkpoint");
    // Maps are keyed by JobVertexID, as Flink derives it from the source's uid "datagen"; the
    // job's vertices name them.
    let source = "5eadbd25f5e5ea36e1d79110004cc6d7";
    let vertices = v["job"]["vertices"].as_array().expect("job.vertices");
    assert!(vertices
        .iter()
        .any(|x| x["id"] == source && x["name"] == "Source: datagen"));
    assert!(v["details"][id.to_string()]["tasks"].get(source).is_some());
    // Timestamps are epoch milliseconds from --start-time (2026-01-01T00:00:00Z by default).
    assert!(v["details"][id.to_string()]["trigger_timestamp"].as_u64() > Some(1_767_225_600_000));
    let summary = &v["subtasks"][id.to_string()][source]["summary"]["start_delay"];
    assert_eq!(summary["p50"], "NaN", "Flink keeps no histogram per vertex");
    let sub = &v["subtasks"][id.to_string()][source]["subtasks"][0];
    for key in [
        "ack_timestamp",
        "end_to_end_duration",
        "state_size",
        "checkpointed_size",
        "start_delay",
        "unaligned_checkpoint",
    ] {
        assert!(sub.get(key).is_some(), "subtask detail {key}: {sub}");
    }
    assert!(sub["checkpoint"].get("sync").is_some() && sub["alignment"].get("persisted").is_some());
    assert_eq!(v["fingerprint"].as_str().map(str::len), Some(16));
}

#[test]
fn set_takes_flink_keys_and_operator_knobs() {
    let fast = json(&[
        "run",
        "--preset",
        "seed-demo",
        "--seconds",
        "12",
        "--format",
        "json",
        "--set",
        "execution.checkpointing.interval=2s",
    ]);
    assert_eq!(fast["config"]["interval"], 2000);
    assert!(fast["checkpoints"]["counts"]["completed"].as_u64().unwrap() >= 5);
    let slow = json(&[
        "run",
        "--preset",
        "seed-demo",
        "--seconds",
        "16",
        "--format",
        "json",
        "--set",
        "operator.count-per-key.cost-per-record=5ms",
    ]);
    let bp = &slow["backpressure"]["5eadbd25f5e5ea36e1d79110004cc6d7"]["backpressure-level"];
    assert_eq!(bp, "high", "5 ms per record backpressures the source");
}

#[test]
fn same_seed_same_output() {
    let a = barrierlab(&[
        "run",
        "--preset",
        "seed-unaligned",
        "--seconds",
        "8",
        "--seed",
        "4",
    ]);
    let b = barrierlab(&[
        "run",
        "--preset",
        "seed-unaligned",
        "--seconds",
        "8",
        "--seed",
        "4",
    ]);
    assert!(a.0 && b.0);
    assert_eq!(a.1, b.1);
}

#[test]
fn table_format_reads_like_the_seed_table() {
    let (ok, stdout, _) = barrierlab(&[
        "run",
        "--preset",
        "seed-backpressure",
        "--seconds",
        "30",
        "--seed",
        "1",
    ]);
    assert!(ok);
    assert!(stdout.contains("COMPLETED"));
    assert!(stdout.contains("start delay / alignment / sync / async"));
    assert!(stdout.contains("fingerprint "));
}

#[test]
fn bad_input_gets_a_clear_message_and_a_failing_exit() {
    let (ok, _, err) = barrierlab(&["run", "--preset", "no-such-job"]);
    assert!(!ok && err.contains("unknown preset 'no-such-job'") && err.contains("seed-demo"));
    let (ok, _, err) = barrierlab(&[
        "run",
        "--preset",
        "seed-demo",
        "--set",
        "execution.checkpointing.intervall=5s",
    ]);
    assert!(
        !ok && err.contains("did you mean 'execution.checkpointing.interval'"),
        "{err}"
    );
    let (ok, _, err) = barrierlab(&[
        "run",
        "--preset",
        "seed-demo",
        "--set",
        "operator.nope.parallelism=2",
    ]);
    assert!(!ok && err.contains("nope"), "{err}");
    let dir = std::env::temp_dir().join(format!("barrierlab-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let garbage = dir.join("garbage.json");
    std::fs::write(&garbage, "{\"version\": 1, \"operators\": [").unwrap();
    let (ok, _, err) = barrierlab(&["run", garbage.to_str().unwrap()]);
    assert!(!ok && err.contains("garbage.json"), "{err}");
    let cyclic = dir.join("cyclic.json");
    let mut s: serde_json::Value = serde_json::from_str(
        &barrierlab_engine::scenario::preset("seed-demo")
            .unwrap()
            .to_json(),
    )
    .unwrap();
    s["edges"].as_array_mut().unwrap().push(
        serde_json::json!({"from": "discard-sink", "to": "datagen", "partitioner": "forward"}),
    );
    std::fs::write(&cyclic, s.to_string()).unwrap();
    let (ok, _, err) = barrierlab(&["run", cyclic.to_str().unwrap()]);
    assert!(!ok && !err.is_empty() && !err.contains("panicked"), "{err}");
    let (ok, _, err) = barrierlab(&["run", "--preset", "seed-demo", "--seconds", "soon"]);
    assert!(!ok && err.contains("--seconds"), "{err}");
}

#[test]
fn trace_window_lists_events_with_the_pinned_running_hash() {
    // The fingerprint fixture's first mark of seed-demo, seed 1: the listing ends on it, so a
    // native listing can be diffed with what a failed (wasm) fingerprint test prints.
    let fixture: serde_json::Value =
        serde_json::from_str(include_str!("../../../tests/fixtures/fingerprints.json")).unwrap();
    let every = fixture["marks_every"].as_u64().unwrap();
    let run = &fixture["runs"][0];
    assert_eq!(run["preset"], "seed-demo");
    let (seed, mark) = (run["seed"].to_string(), run["marks"][0].as_str().unwrap());
    let window = format!("{}..{every}", every - 3);
    let (ok, stdout, stderr) = barrierlab(&[
        "run",
        "--preset",
        "seed-demo",
        "--seed",
        &seed,
        "--trace-window",
        &window,
    ]);
    assert!(ok, "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    assert!(
        lines[0].starts_with(&format!("#{} t=", every - 2)),
        "{}",
        lines[0]
    );
    assert!(lines[2].ends_with(&format!("-> {mark}")), "{}", lines[2]);

    for bad in ["5..2", "x..3", "0..20001"] {
        let (ok, _, stderr) = barrierlab(&["run", "--preset", "seed-demo", "--trace-window", bad]);
        assert!(!ok && stderr.contains("--trace-window"), "{bad}: {stderr}");
    }
}

/// `barrierlab run … | head`: a reader that stops early ends the run quietly, as it ends `cat`
/// (SIGPIPE), never in a panic about a broken pipe.
#[cfg(unix)]
#[test]
fn a_reader_that_stops_early_ends_the_run_without_a_panic() {
    use std::io::Read;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_barrierlab"))
        .args(["run", "--preset", "seed-demo", "--seconds", "300"])
        .args(["--trace-window", "0..10000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut first = [0u8; 64];
    child
        .stdout
        .take()
        .expect("piped")
        .read_exact(&mut first)
        .expect("some output");
    // The pipe's reader is gone (dropped above); the writer finds out on its next write.
    let out = child.wait_with_output().expect("it ends");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(!out.status.success(), "a closed pipe is not a success");
}
