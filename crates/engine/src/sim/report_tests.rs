//! `json_report()` is `rest_report()` as JSON, and that JSON is pinned: a digest per run of the
//! text the untyped assembly wrote before the report was typed (checked equal when it was
//! replaced). A renamed, dropped, added or reordered key, or an integer turned float, changes a
//! digest. A deliberate change to the REST output re-pins them in a commit of its own.

use super::{Simulation, UserRequest};
use crate::scenario::{parse_fail_flag, preset, Fault};
use crate::trace::Fnv;
use crate::types::MICROS_PER_MS;

fn run(name: &str, faults: Vec<Fault>, until_ms: u64) -> Simulation {
    let mut scenario = preset(name).unwrap();
    scenario.faults.extend(faults);
    let mut sim = Simulation::new(scenario).unwrap();
    sim.run_until(until_ms * MICROS_PER_MS);
    sim
}

/// Runs that between them reach every shape: pending subtasks, failed, restored and
/// unaligned checkpoints, savepoints, ids of two digits (sorting as strings), a FINISHED job, a
/// job without periodic checkpoints (the config is an error body) and a backpressured vertex
/// (after its gauges' first update: before it they read 0).
fn runs() -> Vec<(&'static str, Simulation)> {
    let failures = vec![
        Fault::Decline {
            task: "count-per-key#0".into(),
            checkpoint: 2,
        },
        parse_fail_flag("count-per-key#1@12s").unwrap(),
    ];
    let mut savepoints = run("seed-demo", vec![], 7_000);
    savepoints.request(UserRequest::Savepoint);
    savepoints.run_until(62_000 * MICROS_PER_MS);
    let mut stopped = run("seed-2pc", vec![], 12_000);
    stopped.request(UserRequest::StopWithSavepoint);
    stopped.run_until(20_000 * MICROS_PER_MS);
    let mut scenario = preset("seed-demo").unwrap();
    scenario.config.remove("execution.checkpointing.interval");
    let mut manual = Simulation::new(scenario).unwrap();
    manual.request(UserRequest::Checkpoint);
    manual.run_until(3_000 * MICROS_PER_MS);
    vec![
        ("seed-demo at 0 s", run("seed-demo", vec![], 0)),
        (
            "seed-unaligned at 5.5 s",
            run("seed-unaligned", vec![], 5_500),
        ),
        (
            "two-input-join at 30 s",
            run("two-input-join", vec![], 30_000),
        ),
        (
            "seed-2pc with a decline and a kill",
            run("seed-2pc", failures, 30_000),
        ),
        ("seed-demo with a savepoint", savepoints),
        ("seed-2pc stopped with a savepoint", stopped),
        ("seed-demo without periodic checkpoints", manual),
        (
            "seed-backpressure at 20 s",
            run("seed-backpressure", vec![], 20_000),
        ),
    ]
}

/// The JSON text's digest, as the fingerprints hash it.
fn digest(json: &str) -> String {
    let mut h = Fnv(0);
    h.bytes(json.as_bytes());
    format!("{:016x}", h.0)
}

/// `runs()`'s reports, in order.
const PINNED: [&str; 8] = [
    "a5058e1e468a84f9",
    "580425a0044285b9",
    "d4e645acc88def02",
    "1eaeb75f1ef94f6b",
    "101ed9aa397c7d4a",
    "9f2876700124c516",
    "078ff1e56bdb4e6e",
    "f50f19a3763b7dfc",
];

#[test]
fn json_report_is_the_typed_report_and_its_text_is_pinned() {
    let digests: Vec<String> = runs()
        .iter()
        .map(|(name, sim)| {
            let json = sim.json_report();
            assert_eq!(
                json,
                serde_json::to_value(sim.rest_report()).unwrap(),
                "{name}"
            );
            digest(&serde_json::to_string(&json).unwrap())
        })
        .collect();
    assert_eq!(digests, PINNED, "the REST output changed");
}

#[test]
fn the_runs_reach_the_shapes_they_are_meant_to() {
    let shapes: Vec<String> = runs()
        .iter()
        .map(|(_, sim)| serde_json::to_string(&sim.json_report()).unwrap())
        .collect();
    let all = shapes.concat();
    for needle in [
        r#""className":"pending""#,
        r#""className":"failed""#,
        r#""restored":{"#,
        r#""checkpoint_type":"UNALIGNED_CHECKPOINT""#,
        r#""checkpoint_type":"SAVEPOINT""#,
        r#""checkpoint_type":"SYNC_SAVEPOINT""#,
        r#""10":{"#,
        r#""state":"FINISHED""#,
        r#""config":{"errors":["#,
        r#""backpressure-level":"high""#,
    ] {
        assert!(all.contains(needle), "no run reports {needle}");
    }
}
