//! What a run reports: Flink's REST shapes (checkpoints, config, details, per-subtask details,
//! backpressure) and a compact per-checkpoint history like the seed's §10 table.

use serde::Serialize;
use serde_json::{json, Value};

use super::Simulation;
use crate::stats::{
    checkpoint_config_info, checkpoint_statistics_details, checkpointing_statistics,
    task_checkpoint_statistics_with_subtask_details, CheckpointStatsStatus,
};
use crate::task::TimeSplit;
use crate::types::{CheckpointId, Micros};

/// One vertex's slowest subtask per phase, for one checkpoint.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct VertexPhases {
    pub vertex: String,
    pub max_start_delay: Micros,
    pub max_alignment: Micros,
    pub max_sync: Micros,
    pub max_async: Micros,
    pub persisted: u64,
}

/// One row of the history table.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct CheckpointRow {
    pub id: CheckpointId,
    pub status: CheckpointStatsStatus,
    pub savepoint: bool,
    pub unaligned: bool,
    pub trigger: Micros,
    /// End-to-end duration (completion − trigger); `None` while in progress or failed.
    pub duration: Option<Micros>,
    pub checkpointed_size: u64,
    pub persisted: u64,
    pub acknowledged: u32,
    pub total: u32,
    pub vertices: Vec<VertexPhases>,
}

/// Flink's `JobVertexBackPressureInfo.VertexBackPressureLevel`: OK ≤ 10 %, LOW ≤ 50 %, HIGH.
pub fn backpressure_level(ratio_milli: u64) -> &'static str {
    if ratio_milli <= 100 {
        "ok"
    } else if ratio_milli <= 500 {
        "low"
    } else {
        "high"
    }
}

fn ratio(part: Micros, split: &TimeSplit) -> f64 {
    // Display only: never fed back into the simulation.
    (part * 1000).checked_div(split.total()).unwrap_or(0) as f64 / 1000.0
}

impl Simulation {
    /// Vertex names as Flink's UI shows them, by vertex id.
    pub fn vertex_names(&self) -> Vec<String> {
        self.graph.vertices.iter().map(|v| v.name.clone()).collect()
    }

    /// Each vertex's `JobVertexID` as Flink derives it from the chain head's uid (the exported
    /// job sets every operator's uid to its scenario name), by vertex id.
    pub fn job_vertex_ids(&self) -> Vec<String> {
        self.graph
            .vertices
            .iter()
            .map(|v| {
                let head = v
                    .operators
                    .first()
                    .map(|&o| self.scenario.operators[o].name.as_str());
                crate::scenario::job_vertex_id(head.unwrap_or_default())
            })
            .collect()
    }

    /// `/jobs/:id` in brief: the job's id, name and state, when it and its tasks started
    /// (`vertices[].start-time` is when the subtasks were RUNNING), and the vertices with their
    /// `JobVertexID`s, which key every other REST map.
    pub fn job_info(&self) -> Value {
        let ids = self.job_vertex_ids();
        let running = self.tasks_running_at / 1000;
        let vertices: Vec<Value> = self
            .graph
            .vertices
            .iter()
            .map(|v| {
                json!({
                    "id": ids[v.id as usize],
                    "name": v.name,
                    "parallelism": v.parallelism,
                    "maxParallelism": v.max_parallelism,
                    "status": self.status.flink_name(),
                    "start-time": running,
                })
            })
            .collect();
        json!({
            "jid": self.coordinator.job_id(),
            "name": self.scenario.name,
            "state": self.status.flink_name(),
            "start-time": 0,
            "now": self.now / 1000,
            "timestamps": { "RUNNING": 0 },
            // Not Flink's: when the first deployment's tasks were all RUNNING (the harness
            // measures the first trigger from there).
            "first-tasks-running": self.first_tasks_running_at.map(|t| t / 1000),
            "vertices": vertices,
        })
    }

    /// Checkpoints in the statistics history, oldest first.
    pub fn checkpoint_rows(&self) -> Vec<CheckpointRow> {
        let names = self.vertex_names();
        let mut rows: Vec<CheckpointRow> = self
            .coordinator
            .stats()
            .history()
            .map(|cp| {
                let vertices = cp
                    .tasks
                    .iter()
                    .map(|(v, t)| VertexPhases {
                        vertex: names.get(*v as usize).cloned().unwrap_or_default(),
                        max_start_delay: t
                            .subtasks
                            .values()
                            .map(|s| s.metrics.start_delay)
                            .max()
                            .unwrap_or(0),
                        max_alignment: t
                            .subtasks
                            .values()
                            .map(|s| s.metrics.alignment_duration)
                            .max()
                            .unwrap_or(0),
                        max_sync: t
                            .subtasks
                            .values()
                            .map(|s| s.metrics.sync_duration)
                            .max()
                            .unwrap_or(0),
                        max_async: t
                            .subtasks
                            .values()
                            .map(|s| s.metrics.async_duration)
                            .max()
                            .unwrap_or(0),
                        persisted: t.persisted_data(),
                    })
                    .collect();
                CheckpointRow {
                    id: cp.id,
                    status: cp.status,
                    savepoint: cp.props.kind != crate::coordinator::CheckpointKind::Checkpoint,
                    unaligned: cp.unaligned,
                    trigger: cp.trigger_timestamp,
                    duration: cp
                        .completion_timestamp
                        .map(|c| c.saturating_sub(cp.trigger_timestamp)),
                    checkpointed_size: cp.checkpointed_size(),
                    persisted: cp.persisted_data(),
                    acknowledged: cp.num_acknowledged(),
                    total: cp.num_subtasks(),
                    vertices,
                }
            })
            .collect();
        rows.sort_by_key(|r| r.id);
        rows
    }

    /// `/jobs/:id/vertices/:vid/backpressure` for every vertex, over the last `window` seconds.
    pub fn backpressure(&self, window: usize) -> Value {
        let ids = self.job_vertex_ids();
        let mut out = serde_json::Map::new();
        for v in &self.graph.vertices {
            let mut worst = 0;
            let subtasks: Vec<Value> = self
                .vertex_tasks(v.id)
                .map(|t| {
                    let split = t.time.recent(window);
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
            out.insert(
                ids[v.id as usize].clone(),
                json!({
                    "status": "ok",
                    "backpressure-level": backpressure_level(worst),
                    "backpressureLevel": backpressure_level(worst),
                    "end-timestamp": self.now / 1000,
                    "subtasks": subtasks,
                }),
            );
        }
        Value::Object(out)
    }

    /// [`Self::json_report`] with every timestamp as epoch milliseconds, the job having started
    /// at `epoch_ms` (Flink's REST API reports wall-clock times; the simulation counts from 0).
    /// Absent times (`-1`) stay absent.
    pub fn json_report_at(&self, epoch_ms: u64) -> Value {
        let mut report = self.json_report();
        shift_timestamps(&mut report, epoch_ms as i64);
        report
    }

    /// The whole run in Flink's REST shapes:
    /// `{"checkpoints", "config", "details": {id: …}, "subtasks": {id: {vertex: …}}, "backpressure", "fingerprint"}`.
    pub fn json_report(&self) -> Value {
        let names = self.job_vertex_ids();
        let tracker = self.coordinator.stats();
        let ids: Vec<CheckpointId> = tracker.history().map(|c| c.id).collect();
        let mut details = serde_json::Map::new();
        let mut subtasks = serde_json::Map::new();
        for id in ids {
            if let Ok(d) = checkpoint_statistics_details(tracker, id, &names) {
                details.insert(
                    id.to_string(),
                    serde_json::to_value(d).unwrap_or(Value::Null),
                );
            }
            let mut per_vertex = serde_json::Map::new();
            for v in &self.graph.vertices {
                if let Ok(s) = task_checkpoint_statistics_with_subtask_details(tracker, id, v.id) {
                    per_vertex.insert(
                        names[v.id as usize].clone(),
                        serde_json::to_value(s).unwrap_or(Value::Null),
                    );
                }
            }
            subtasks.insert(id.to_string(), Value::Object(per_vertex));
        }
        let config = checkpoint_config_info(
            self.coordinator.config(),
            "HashMapStateBackend",
            "FileSystemCheckpointStorage",
        )
        .map(|c| serde_json::to_value(c).unwrap_or(Value::Null))
        .unwrap_or_else(|message| json!({ "errors": [message] }));
        json!({
            "job": self.job_info(),
            "checkpoints": serde_json::to_value(checkpointing_statistics(tracker, &names)).unwrap_or(Value::Null),
            "config": config,
            "details": details,
            "subtasks": subtasks,
            "backpressure": self.backpressure(5),
            "fingerprint": self.fingerprint(),
        })
    }
}

/// The REST fields that hold points in time (all other numbers are durations, sizes or counts).
const TIMESTAMP_KEYS: &[&str] = &[
    "trigger_timestamp",
    "latest_ack_timestamp",
    "ack_timestamp",
    "failure_timestamp",
    "restore_timestamp",
    "end-timestamp",
    "start-time",
    "now",
    "RUNNING",
];

fn shift_timestamps(value: &mut Value, by: i64) {
    match value {
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                match v.as_i64() {
                    Some(t) if t >= 0 && TIMESTAMP_KEYS.contains(&key.as_str()) => {
                        *v = json!(t + by);
                    }
                    _ => shift_timestamps(v, by),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| shift_timestamps(v, by)),
        _ => {}
    }
}
