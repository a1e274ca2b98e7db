//! What a run reports: Flink's REST shapes (checkpoints, config, details, per-subtask details,
//! backpressure), typed as [`RestReport`], and a compact per-checkpoint history like the seed's
//! §10 table.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{json, Value};

use super::rest_job::{JobDetailsInfo, JobVertexBackPressureInfo};
use super::Simulation;
use crate::stats::{
    checkpoint_config_info, checkpoint_statistics_details, checkpointing_statistics,
    task_checkpoint_statistics_with_subtask_details, CheckpointConfigResponse,
    CheckpointStatistics, CheckpointStatsStatus, CheckpointingStatistics,
    TaskCheckpointStatisticsWithSubtaskDetails,
};
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

/// The whole run in Flink's REST shapes, typed: what [`Simulation::json_report`] serializes.
/// Maps are keyed as the REST API keys them: by checkpoint id, then by `JobVertexID`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RestReport {
    /// `/jobs/:id` in brief.
    pub job: JobDetailsInfo,
    /// `/jobs/:id/checkpoints`.
    pub checkpoints: CheckpointingStatistics,
    /// `/jobs/:id/checkpoints/config`.
    pub config: CheckpointConfigResponse,
    /// `/jobs/:id/checkpoints/details/:cid` for every checkpoint in the history.
    pub details: BTreeMap<CheckpointId, CheckpointStatistics>,
    /// `/jobs/:id/checkpoints/details/:cid/subtasks/:vid` for every checkpoint in the history
    /// and every vertex it has statistics for.
    pub subtasks:
        BTreeMap<CheckpointId, BTreeMap<String, TaskCheckpointStatisticsWithSubtaskDetails>>,
    /// `/jobs/:id/vertices/:vid/backpressure` over the last 5 s.
    pub backpressure: BTreeMap<String, JobVertexBackPressureInfo>,
    /// `/jobs/:id/vertices/:vid/subtasks/:n/metrics` per subtask, for the metrics the engine
    /// models beyond the ones above: the buffer debloater's gauges. Left out when there are none.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub metrics: BTreeMap<String, Vec<Vec<super::rest_job::Metric>>>,
    /// Not Flink's: the run's trace fingerprint.
    pub fingerprint: String,
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

    /// [`Self::json_report`] with every timestamp as epoch milliseconds, the job having started
    /// at `epoch_ms` (Flink's REST API reports wall-clock times; the simulation counts from 0).
    /// Absent times (`-1`) stay absent.
    pub fn json_report_at(&self, epoch_ms: u64) -> Value {
        let mut report = self.json_report();
        shift_timestamps(&mut report, epoch_ms as i64);
        report
    }

    /// The whole run in Flink's REST shapes.
    pub fn rest_report(&self) -> RestReport {
        let names = self.job_vertex_ids();
        let tracker = self.coordinator.stats();
        let mut details = BTreeMap::new();
        let mut subtasks = BTreeMap::new();
        for id in tracker.history().map(|c| c.id) {
            if let Ok(d) = checkpoint_statistics_details(tracker, id, &names) {
                details.insert(id, d);
            }
            let per_vertex = self
                .graph
                .vertices
                .iter()
                .filter_map(|v| {
                    task_checkpoint_statistics_with_subtask_details(tracker, id, v.id)
                        .ok()
                        .map(|s| (names[v.id as usize].clone(), s))
                })
                .collect();
            subtasks.insert(id, per_vertex);
        }
        let config = checkpoint_config_info(
            self.coordinator.config(),
            self.graph.config.state_backend.flink_class(),
            "FileSystemCheckpointStorage",
        );
        RestReport {
            job: self.job_info(),
            checkpoints: checkpointing_statistics(tracker, &names),
            config: config.into(),
            details,
            subtasks,
            backpressure: self.backpressure(),
            metrics: self.subtask_metrics(),
            fingerprint: self.fingerprint(),
        }
    }

    /// [`Self::rest_report`] as JSON:
    /// `{"job", "checkpoints", "config", "details": {id: …}, "subtasks": {id: {vertex: …}}, "backpressure", "fingerprint"}`.
    /// Through `Value` on purpose: its maps (serde_json without `preserve_order`) sort every
    /// object's keys, checkpoint ids as strings, which is the order this JSON has always had.
    pub fn json_report(&self) -> Value {
        // Only a map key that is neither a string nor a number could fail; ids and names are.
        serde_json::to_value(self.rest_report()).expect("a REST report serializes")
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
