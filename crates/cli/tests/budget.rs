//! The cost budget on the command line: `--dry-run` prints the estimate, a run beyond the budget
//! is refused with the reason unless `--force`, and `fuzz-scenarios` holds every case to it.

mod common;

use common::barrierlab;

#[test]
fn dry_run_prints_the_estimate_and_runs_nothing() {
    let (ok, stdout, stderr) = barrierlab(&["run", "--preset", "seed-demo", "--dry-run"]);
    assert!(ok, "{stderr}");
    for line in ["record-hops", "events", "channels", "work", "within budget"] {
        assert!(stdout.contains(line), "{line:?} missing:\n{stdout}");
    }
    assert!(
        !stdout.contains("completed"),
        "a dry run runs nothing:\n{stdout}"
    );
}

/// 256 subtasks per operator (65,536 channels over the hash edge) checkpointing every 10 ms: a
/// barrier through every channel a hundred times a second is over the budget.
const HEAVY: [&str; 14] = [
    "--set",
    "operator.datagen.parallelism=256",
    "--set",
    "operator.count-per-key.parallelism=256",
    "--set",
    "operator.checkpoint-aware-map.parallelism=256",
    "--set",
    "operator.discard-sink.parallelism=256",
    "--set",
    "execution.checkpointing.interval=10ms",
    "--seconds",
    "1",
    "--seed",
    "1",
];

#[test]
fn a_run_over_the_budget_is_refused_with_the_reason() {
    let (ok, _, stderr) = barrierlab(&[&["run", "--preset", "seed-demo"][..], &HEAVY].concat());
    assert!(!ok, "refused");
    assert!(stderr.contains("above the budget"), "{stderr}");
    assert!(
        stderr.contains("--force"),
        "says how to run it anyway: {stderr}"
    );
    let (ok, stdout, _) =
        barrierlab(&[&["run", "--preset", "seed-demo", "--dry-run"][..], &HEAVY].concat());
    assert!(ok);
    assert!(stdout.contains("over budget"), "{stdout}");
    let (ok, stdout, stderr) =
        barrierlab(&[&["run", "--preset", "seed-demo", "--force"][..], &HEAVY].concat());
    assert!(ok, "--force runs it: {stderr}");
    assert!(stdout.contains("1 s simulated"), "{stdout}");
}

#[test]
fn a_run_too_long_in_total_is_refused() {
    let (ok, _, stderr) = barrierlab(&["run", "--preset", "seed-demo", "--seconds", "100000h"]);
    assert!(!ok);
    assert!(stderr.contains("per run"), "{stderr}");
}

#[test]
fn validation_names_the_field_and_the_limit() {
    for (set, field, limit) in [
        (
            "operator.datagen.record-size=2147483648",
            "record-size",
            "33554432",
        ),
        ("operator.datagen.rate=1000000000000", "rate", "100000000"),
        ("operator.datagen.keys=4000000000", "keys", "10000000"),
        (
            "operator.count-per-key.cost-per-record=2h",
            "cost-per-record",
            "limit",
        ),
        (
            "operator.datagen.parallelism=100000",
            "parallelism",
            "32768",
        ),
    ] {
        let (ok, _, stderr) = barrierlab(&["run", "--preset", "seed-demo", "--set", set]);
        assert!(!ok, "{set} refused");
        assert!(
            stderr.contains(field) && stderr.contains(limit),
            "{set}: {stderr}"
        );
    }
}

#[test]
fn fuzz_scenarios_reports_outcomes_and_passes() {
    let (ok, stdout, stderr) = barrierlab(&[
        "fuzz-scenarios",
        "--inputs",
        "300",
        "--seed",
        "7",
        "--seconds",
        "1s",
    ]);
    assert!(ok, "{stdout}\n{stderr}");
    assert!(stdout.contains("cases/s"), "{stdout}");
    assert!(stdout.contains("ran"), "some cases run: {stdout}");
    assert!(stdout.contains("refused: validation"), "{stdout}");
    assert!(stdout.contains("no panics, no overruns"), "{stdout}");
}
