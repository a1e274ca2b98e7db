//! `json_report()` is `rest_report()` as JSON, and that JSON is, byte for byte, what the untyped
//! assembly it replaced wrote (kept below as the reference): the typed report may not rename,
//! drop, add or reorder a key, or turn an integer into a float.

use serde_json::{json, Value};

use super::{backpressure_level, Simulation, UserRequest};
use crate::scenario::{parse_fail_flag, preset, Fault};
use crate::stats::{
    checkpoint_config_info, checkpoint_statistics_details, checkpointing_statistics,
    task_checkpoint_statistics_with_subtask_details,
};
use crate::task::TimeSplit;
use crate::types::{CheckpointId, MICROS_PER_MS};

fn ratio(part: u64, split: &TimeSplit) -> f64 {
    (part * 1000).checked_div(split.total()).unwrap_or(0) as f64 / 1000.0
}

/// The report as `json_report()` built it before the report was typed.
fn untyped_json_report(sim: &Simulation) -> Value {
    let names = sim.job_vertex_ids();
    let tracker = sim.coordinator.stats();
    let ids: Vec<CheckpointId> = tracker.history().map(|c| c.id).collect();
    let mut details = serde_json::Map::new();
    let mut subtasks = serde_json::Map::new();
    for id in ids {
        if let Ok(d) = checkpoint_statistics_details(tracker, id, &names) {
            details.insert(id.to_string(), serde_json::to_value(d).unwrap());
        }
        let mut per_vertex = serde_json::Map::new();
        for v in &sim.graph.vertices {
            if let Ok(s) = task_checkpoint_statistics_with_subtask_details(tracker, id, v.id) {
                per_vertex.insert(
                    names[v.id as usize].clone(),
                    serde_json::to_value(s).unwrap(),
                );
            }
        }
        subtasks.insert(id.to_string(), Value::Object(per_vertex));
    }
    let config = checkpoint_config_info(
        sim.coordinator.config(),
        "HashMapStateBackend",
        "FileSystemCheckpointStorage",
    )
    .map(|c| serde_json::to_value(c).unwrap())
    .unwrap_or_else(|message| json!({ "errors": [message] }));
    let vertices: Vec<Value> = sim
        .graph
        .vertices
        .iter()
        .map(|v| {
            json!({
                "id": names[v.id as usize],
                "name": v.name,
                "parallelism": v.parallelism,
                "maxParallelism": v.max_parallelism,
                "status": sim.status.flink_name(),
                "start-time": sim.tasks_running_at / 1000,
            })
        })
        .collect();
    let job = json!({
        "jid": sim.coordinator.job_id(),
        "name": sim.scenario.name,
        "state": sim.status.flink_name(),
        "start-time": 0,
        "now": sim.now / 1000,
        "timestamps": { "RUNNING": 0 },
        "first-tasks-running": sim.first_tasks_running_at.map(|t| t / 1000),
        "vertices": vertices,
    });
    let mut backpressure = serde_json::Map::new();
    for v in &sim.graph.vertices {
        let mut worst = 0;
        let subtasks: Vec<Value> = sim
            .vertex_tasks(v.id)
            .map(|t| {
                let split = t.time.recent(5);
                let bp_milli = if split.total() == 0 {
                    0
                } else {
                    split.backpressured * 1000 / split.total()
                };
                worst = worst.max(bp_milli);
                json!({
                    "subtask": t.id.subtask,
                    "attempt-number": 0,
                    "backpressure-level": backpressure_level(bp_milli),
                    "backpressureLevel": backpressure_level(bp_milli),
                    "ratio": ratio(split.backpressured, &split),
                    "idleRatio": ratio(split.idle, &split),
                    "busyRatio": ratio(split.busy, &split),
                    "records-in": t.records_in,
                    "records-out": t.records_out,
                })
            })
            .collect();
        backpressure.insert(
            names[v.id as usize].clone(),
            json!({
                "status": "ok",
                "backpressure-level": backpressure_level(worst),
                "backpressureLevel": backpressure_level(worst),
                "end-timestamp": sim.now / 1000,
                "subtasks": subtasks,
            }),
        );
    }
    json!({
        "job": job,
        "checkpoints": serde_json::to_value(checkpointing_statistics(tracker, &names)).unwrap(),
        "config": config,
        "details": details,
        "subtasks": subtasks,
        "backpressure": backpressure,
        "fingerprint": sim.fingerprint(),
    })
}

fn run(name: &str, faults: Vec<Fault>, until_ms: u64) -> Simulation {
    let mut scenario = preset(name).unwrap();
    scenario.faults.extend(faults);
    let mut sim = Simulation::new(scenario).unwrap();
    sim.run_until(until_ms * MICROS_PER_MS);
    sim
}

/// Runs that between them reach every shape: pending subtasks, failed, restored and
/// unaligned checkpoints, savepoints, ids of two digits (sorting as strings), a FINISHED job and
/// a job without periodic checkpoints (the config is an error body).
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
    ]
}

#[test]
fn json_report_is_the_typed_report_serialized_as_the_untyped_one_was() {
    for (name, sim) in runs() {
        let json = sim.json_report();
        assert_eq!(
            json,
            serde_json::to_value(sim.rest_report()).unwrap(),
            "{name}"
        );
        assert_eq!(
            serde_json::to_string(&json).unwrap(),
            serde_json::to_string(&untyped_json_report(&sim)).unwrap(),
            "{name}"
        );
    }
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
