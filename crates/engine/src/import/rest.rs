//! Flink 2.x REST bodies as a collected bundle holds them, typed for reading.
//!
//! These mirror the Serialize-only shapes the simulator reports (`sim::rest_job`,
//! `stats::rest_*`) under Flink's own names, but are written for input: every field Flink may
//! leave out or a later Flink may drop has a default, unknown fields are ignored, enums take
//! values they do not know (`Unknown`), and percentiles that Flink writes as `"NaN"` read as
//! `f64::NAN`. Names (vertex names, plan descriptions) are kept exactly as sent, markup included:
//! they are text, never interpreted.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;

fn minus_one() -> i64 {
    -1
}

/// A JSON number, or the strings `"NaN"`, `"Infinity"`, `"-Infinity"` that Jackson writes for
/// non-finite doubles, or `null` (read as NaN).
pub(crate) fn f64_or_nan<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    struct V;
    impl<'de> Visitor<'de> for V {
        type Value = f64;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a number or \"NaN\"")
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<f64, E> {
            Ok(v)
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<f64, E> {
            Ok(v as f64)
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<f64, E> {
            Ok(v as f64)
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<f64, E> {
            match v {
                "NaN" => Ok(f64::NAN),
                "Infinity" => Ok(f64::INFINITY),
                "-Infinity" => Ok(f64::NEG_INFINITY),
                other => other
                    .parse()
                    .map_err(|_| E::invalid_value(de::Unexpected::Str(other), &self)),
            }
        }
        fn visit_unit<E: de::Error>(self) -> Result<f64, E> {
            Ok(f64::NAN)
        }
        fn visit_none<E: de::Error>(self) -> Result<f64, E> {
            Ok(f64::NAN)
        }
    }
    d.deserialize_any(V)
}

// ------------------------------------------------------------------------------------------
// GET /config
// ------------------------------------------------------------------------------------------

/// `DashboardConfiguration`: the body of `GET /config`, where the Flink version comes from.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct DashboardConfiguration {
    #[serde(rename = "refresh-interval", default)]
    pub refresh_interval: i64,
    #[serde(rename = "timezone-name", default)]
    pub timezone_name: String,
    #[serde(rename = "timezone-offset", default)]
    pub timezone_offset: i64,
    #[serde(rename = "flink-version", default)]
    pub flink_version: String,
    #[serde(rename = "flink-revision", default)]
    pub flink_revision: String,
}

// ------------------------------------------------------------------------------------------
// GET /jobs/:id
// ------------------------------------------------------------------------------------------

/// `JobDetailsInfo`: the body of `GET /jobs/:id`. `state` is Flink's `JobStatus` name
/// (`RUNNING`, `FAILING`, …), kept as text.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct JobDetailsInfo {
    pub jid: String,
    pub name: String,
    #[serde(rename = "isStoppable", default)]
    pub is_stoppable: bool,
    pub state: String,
    #[serde(rename = "job-type", default)]
    pub job_type: Option<String>,
    #[serde(rename = "start-time", default = "minus_one")]
    pub start_time: i64,
    #[serde(rename = "end-time", default = "minus_one")]
    pub end_time: i64,
    #[serde(default)]
    pub duration: i64,
    #[serde(rename = "maxParallelism", default = "minus_one")]
    pub max_parallelism: i64,
    #[serde(default)]
    pub now: i64,
    /// When the job entered each `JobStatus` (ms; 0 = never).
    #[serde(default)]
    pub timestamps: BTreeMap<String, i64>,
    pub vertices: Vec<JobVertexDetailsInfo>,
    #[serde(rename = "status-counts", default)]
    pub status_counts: BTreeMap<String, u32>,
    /// The job graph: vertices and the edges between them with their ship strategies.
    #[serde(default)]
    pub plan: Option<JobPlan>,
}

/// `JobDetailsInfo.JobVertexDetailsInfo`. `id` is the `JobVertexID` that keys every other map
/// of the bundle; `name` is the chain's name as the Web UI shows it (`A -> B -> C`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct JobVertexDetailsInfo {
    pub id: String,
    pub name: String,
    #[serde(rename = "slotSharingGroupId", default)]
    pub slot_sharing_group_id: Option<String>,
    #[serde(rename = "maxParallelism", default = "minus_one")]
    pub max_parallelism: i64,
    pub parallelism: u32,
    /// `ExecutionState` name.
    #[serde(default)]
    pub status: String,
    #[serde(rename = "start-time", default = "minus_one")]
    pub start_time: i64,
    #[serde(rename = "end-time", default = "minus_one")]
    pub end_time: i64,
    #[serde(default)]
    pub duration: i64,
    /// Subtasks per `ExecutionState`.
    #[serde(default)]
    pub tasks: BTreeMap<String, u32>,
    #[serde(default)]
    pub metrics: Option<IOMetricsInfo>,
}

/// `IOMetricsInfo`: a vertex's I/O totals since it started.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct IOMetricsInfo {
    #[serde(rename = "read-bytes", default)]
    pub read_bytes: u64,
    #[serde(rename = "read-bytes-complete", default)]
    pub read_bytes_complete: bool,
    #[serde(rename = "write-bytes", default)]
    pub write_bytes: u64,
    #[serde(rename = "write-bytes-complete", default)]
    pub write_bytes_complete: bool,
    #[serde(rename = "read-records", default)]
    pub read_records: u64,
    #[serde(rename = "read-records-complete", default)]
    pub read_records_complete: bool,
    #[serde(rename = "write-records", default)]
    pub write_records: u64,
    #[serde(rename = "write-records-complete", default)]
    pub write_records_complete: bool,
    #[serde(
        rename = "accumulated-backpressured-time",
        default,
        deserialize_with = "f64_or_nan"
    )]
    pub accumulated_backpressured_time: f64,
    #[serde(
        rename = "accumulated-idle-time",
        default,
        deserialize_with = "f64_or_nan"
    )]
    pub accumulated_idle_time: f64,
    #[serde(
        rename = "accumulated-busy-time",
        default,
        deserialize_with = "f64_or_nan"
    )]
    pub accumulated_busy_time: f64,
}

/// `JobPlanInfo.Plan`: the job graph as `/jobs/:id` embeds it under `plan`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct JobPlan {
    #[serde(default)]
    pub jid: String,
    #[serde(default)]
    pub name: String,
    #[serde(rename = "type", default)]
    pub job_type: Option<String>,
    #[serde(default)]
    pub nodes: Vec<PlanNode>,
}

/// `JobPlanInfo.Plan.Node`: one job vertex. `description` is HTML as Flink writes it
/// (`count-per-key<br/>+- checkpoint-aware-map<br/>`), kept as text.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct PlanNode {
    pub id: String,
    #[serde(default)]
    pub parallelism: u32,
    #[serde(default)]
    pub operator: String,
    #[serde(default)]
    pub operator_strategy: String,
    #[serde(default)]
    pub description: String,
    /// The vertex's inputs, one per upstream edge; absent on sources.
    #[serde(default)]
    pub inputs: Vec<PlanNodeInput>,
}

/// `JobPlanInfo.Plan.Node.Input`: an edge from `id` into the node. `ship_strategy` is the
/// partitioner's name as Flink prints it (`HASH`, `FORWARD`, `REBALANCE`, `RESCALE`,
/// `BROADCAST`, `GLOBAL`, `SHUFFLE`, …).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct PlanNodeInput {
    pub id: String,
    #[serde(default)]
    pub num: u32,
    #[serde(default)]
    pub ship_strategy: String,
    #[serde(default)]
    pub exchange: String,
    #[serde(default)]
    pub local_strategy: Option<String>,
    #[serde(default)]
    pub caching: Option<String>,
}

// ------------------------------------------------------------------------------------------
// GET /jobs/:id/checkpoints, /checkpoints/details/:cid, /checkpoints/details/:cid/subtasks/:vid
// ------------------------------------------------------------------------------------------

/// `CheckpointStatsStatus`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[allow(non_camel_case_types)]
pub enum CheckpointStatsStatus {
    IN_PROGRESS,
    COMPLETED,
    FAILED,
    /// A status this reader does not know.
    #[serde(other)]
    Unknown,
}

/// `CheckpointStatistics.RestAPICheckpointType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum RestAPICheckpointType {
    Checkpoint,
    UnalignedCheckpoint,
    Savepoint,
    SyncSavepoint,
    /// A type this reader does not know.
    #[serde(other)]
    Unknown,
}

/// `StatsSummaryDto`: min, max and average are exact; the percentiles are NaN where Flink keeps
/// no histogram (per-subtask summaries).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct StatsSummaryDto {
    #[serde(deserialize_with = "f64_or_nan")]
    pub min: f64,
    #[serde(deserialize_with = "f64_or_nan")]
    pub max: f64,
    #[serde(deserialize_with = "f64_or_nan")]
    pub avg: f64,
    #[serde(default = "nan", deserialize_with = "f64_or_nan")]
    pub p50: f64,
    #[serde(default = "nan", deserialize_with = "f64_or_nan")]
    pub p90: f64,
    #[serde(default = "nan", deserialize_with = "f64_or_nan")]
    pub p95: f64,
    #[serde(default = "nan", deserialize_with = "f64_or_nan")]
    pub p99: f64,
    #[serde(default = "nan", deserialize_with = "f64_or_nan")]
    pub p999: f64,
}

fn nan() -> f64 {
    f64::NAN
}

/// `CheckpointingStatistics.Counts`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Counts {
    #[serde(default)]
    pub restored: u64,
    #[serde(default)]
    pub total: u64,
    #[serde(default)]
    pub in_progress: u64,
    #[serde(default)]
    pub completed: u64,
    #[serde(default)]
    pub failed: u64,
}

/// `CheckpointingStatistics.Summary`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct CheckpointStatisticsSummary {
    pub checkpointed_size: Option<StatsSummaryDto>,
    pub state_size: Option<StatsSummaryDto>,
    pub end_to_end_duration: Option<StatsSummaryDto>,
    pub alignment_buffered: Option<StatsSummaryDto>,
    pub processed_data: Option<StatsSummaryDto>,
    pub persisted_data: Option<StatsSummaryDto>,
}

/// `CheckpointingStatistics.RestoredCheckpointStatistics`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct RestoredCheckpointStatistics {
    pub id: u64,
    #[serde(default = "minus_one")]
    pub restore_timestamp: i64,
    #[serde(default)]
    pub is_savepoint: bool,
    #[serde(default)]
    pub external_path: Option<String>,
}

/// `CheckpointingStatistics.LatestCheckpoints`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct LatestCheckpoints {
    #[serde(default)]
    pub completed: Option<CheckpointStatistics>,
    #[serde(default)]
    pub savepoint: Option<CheckpointStatistics>,
    #[serde(default)]
    pub failed: Option<CheckpointStatistics>,
    #[serde(default)]
    pub restored: Option<RestoredCheckpointStatistics>,
}

/// `CheckpointingStatistics`: the body of `GET /jobs/:id/checkpoints`; `history` is newest
/// first and holds at most `web.checkpoints.history` entries (default 10), without `tasks`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct CheckpointingStatistics {
    pub counts: Counts,
    #[serde(default)]
    pub summary: Option<CheckpointStatisticsSummary>,
    #[serde(default)]
    pub latest: Option<LatestCheckpoints>,
    #[serde(default)]
    pub history: Vec<CheckpointStatistics>,
}

/// `TaskCheckpointStatistics`: one vertex's part of a checkpoint.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct TaskCheckpointStatistics {
    pub id: u64,
    pub status: CheckpointStatsStatus,
    #[serde(default = "minus_one")]
    pub latest_ack_timestamp: i64,
    #[serde(default)]
    pub checkpointed_size: u64,
    #[serde(default)]
    pub state_size: u64,
    #[serde(default = "minus_one")]
    pub end_to_end_duration: i64,
    #[serde(default)]
    pub alignment_buffered: u64,
    #[serde(default)]
    pub processed_data: u64,
    #[serde(default)]
    pub persisted_data: u64,
    #[serde(default)]
    pub num_subtasks: u32,
    #[serde(default)]
    pub num_acknowledged_subtasks: u32,
}

/// `CheckpointStatistics` (`CompletedCheckpointStatistics`, `FailedCheckpointStatistics`,
/// `PendingCheckpointStatistics`, told apart by `className`): the body of
/// `GET /jobs/:id/checkpoints/details/:cid`, and each entry of the history. `tasks` is keyed by
/// `JobVertexID` and empty in the history.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct CheckpointStatistics {
    #[serde(rename = "className", default)]
    pub class_name: String,
    pub id: u64,
    pub status: CheckpointStatsStatus,
    #[serde(default)]
    pub is_savepoint: bool,
    #[serde(rename = "savepointFormat", default)]
    pub savepoint_format: Option<String>,
    pub trigger_timestamp: i64,
    #[serde(default = "minus_one")]
    pub latest_ack_timestamp: i64,
    #[serde(default)]
    pub checkpointed_size: u64,
    #[serde(default)]
    pub state_size: u64,
    #[serde(default = "minus_one")]
    pub end_to_end_duration: i64,
    #[serde(default)]
    pub alignment_buffered: u64,
    #[serde(default)]
    pub processed_data: u64,
    #[serde(default)]
    pub persisted_data: u64,
    #[serde(default)]
    pub num_subtasks: u32,
    #[serde(default)]
    pub num_acknowledged_subtasks: u32,
    pub checkpoint_type: Option<RestAPICheckpointType>,
    #[serde(default)]
    pub tasks: BTreeMap<String, TaskCheckpointStatistics>,
    /// Completed only.
    #[serde(default)]
    pub external_path: Option<String>,
    /// Completed only.
    #[serde(default)]
    pub discarded: Option<bool>,
    /// Failed only (ms, or -1).
    #[serde(default)]
    pub failure_timestamp: Option<i64>,
    /// Failed only.
    #[serde(default)]
    pub failure_message: Option<String>,
}

/// `SubtaskCheckpointStatistics.…CheckpointDuration`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct CheckpointDuration {
    pub sync: i64,
    #[serde(rename = "async")]
    pub async_: i64,
}

/// `SubtaskCheckpointStatistics.…CheckpointAlignment`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct CheckpointAlignment {
    #[serde(default)]
    pub buffered: u64,
    #[serde(default)]
    pub processed: u64,
    #[serde(default)]
    pub persisted: u64,
    pub duration: i64,
}

/// `SubtaskCheckpointStatistics`: `CompletedSubtaskCheckpointStatistics` (`className`
/// `completed`, every field present) or `PendingSubtaskCheckpointStatistics` (`pending`: only
/// `index` and `status`). One struct with optional fields rather than an enum: cheap to read in
/// bulk, and a subtask of a shape this reader does not know still reads.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct SubtaskCheckpointStatistics {
    #[serde(rename = "className", default)]
    pub class_name: String,
    pub index: u32,
    /// `completed` or `pending_or_failed`.
    #[serde(default)]
    pub status: String,
    #[serde(default)]
    pub ack_timestamp: Option<i64>,
    #[serde(default)]
    pub end_to_end_duration: Option<i64>,
    #[serde(default)]
    pub state_size: Option<u64>,
    #[serde(default)]
    pub checkpointed_size: Option<u64>,
    #[serde(default)]
    pub checkpoint: Option<CheckpointDuration>,
    #[serde(default)]
    pub alignment: Option<CheckpointAlignment>,
    #[serde(default)]
    pub start_delay: Option<i64>,
    #[serde(default)]
    pub unaligned_checkpoint: Option<bool>,
    #[serde(default)]
    pub aborted: Option<bool>,
}

impl SubtaskCheckpointStatistics {
    /// Whether the subtask acknowledged the checkpoint (its figures are there).
    pub fn is_completed(&self) -> bool {
        self.ack_timestamp.is_some()
    }
}

/// `TaskCheckpointStatisticsWithSubtaskDetails.CheckpointDuration` (the summary's).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct CheckpointDurationSummary {
    pub sync: StatsSummaryDto,
    #[serde(rename = "async")]
    pub async_: StatsSummaryDto,
}

/// `TaskCheckpointStatisticsWithSubtaskDetails.CheckpointAlignment` (the summary's).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct CheckpointAlignmentSummary {
    #[serde(default)]
    pub buffered: Option<StatsSummaryDto>,
    #[serde(default)]
    pub processed: Option<StatsSummaryDto>,
    #[serde(default)]
    pub persisted: Option<StatsSummaryDto>,
    pub duration: StatsSummaryDto,
}

/// `TaskCheckpointStatisticsWithSubtaskDetails.Summary`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct TaskCheckpointSummary {
    pub checkpointed_size: StatsSummaryDto,
    pub state_size: StatsSummaryDto,
    pub end_to_end_duration: StatsSummaryDto,
    pub checkpoint_duration: CheckpointDurationSummary,
    pub alignment: CheckpointAlignmentSummary,
    pub start_delay: StatsSummaryDto,
}

/// `TaskCheckpointStatisticsWithSubtaskDetails`: the body of
/// `GET /jobs/:id/checkpoints/details/:cid/subtasks/:vid`, one entry per subtask by index.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct TaskCheckpointStatisticsWithSubtaskDetails {
    /// The fields it shares with `TaskCheckpointStatistics`, which Flink's class extends.
    #[serde(flatten)]
    pub task: TaskCheckpointStatistics,
    #[serde(default)]
    pub summary: Option<TaskCheckpointSummary>,
    pub subtasks: Vec<SubtaskCheckpointStatistics>,
}

// ------------------------------------------------------------------------------------------
// GET /jobs/:id/checkpoints/config
// ------------------------------------------------------------------------------------------

/// `CheckpointConfigInfo.ExternalizedCheckpointInfo`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct ExternalizedCheckpointInfo {
    #[serde(default)]
    pub enabled: bool,
    #[serde(default)]
    pub delete_on_cancellation: bool,
}

/// `CheckpointConfigInfo`: the body of `GET /jobs/:id/checkpoints/config`. `mode` is
/// `exactly_once` or `at_least_once`; durations are milliseconds.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct CheckpointConfigInfo {
    pub mode: String,
    pub interval: i64,
    pub timeout: i64,
    #[serde(default)]
    pub min_pause: i64,
    #[serde(default)]
    pub max_concurrent: i64,
    #[serde(default)]
    pub externalization: Option<ExternalizedCheckpointInfo>,
    #[serde(default)]
    pub state_backend: String,
    #[serde(default)]
    pub checkpoint_storage: String,
    #[serde(default)]
    pub unaligned_checkpoints: bool,
    #[serde(default)]
    pub tolerable_failed_checkpoints: i64,
    #[serde(default)]
    pub aligned_checkpoint_timeout: i64,
    #[serde(default)]
    pub checkpoints_after_tasks_finish: bool,
    #[serde(default)]
    pub state_changelog_enabled: bool,
    #[serde(default)]
    pub changelog_periodic_materialization_interval: i64,
    #[serde(default)]
    pub changelog_storage: String,
}

// ------------------------------------------------------------------------------------------
// GET /jobs/:id/vertices/:vid/backpressure and the metrics endpoints
// ------------------------------------------------------------------------------------------

/// `JobVertexBackPressureInfo.VertexBackPressureLevel`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VertexBackPressureLevel {
    Ok,
    Low,
    High,
    #[serde(other)]
    Unknown,
}

/// `JobVertexBackPressureInfo.SubtaskBackPressureInfo`. Flink writes the level twice
/// (`backpressureLevel` and `backpressure-level`); this reads the first.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct SubtaskBackPressureInfo {
    pub subtask: u32,
    #[serde(rename = "attempt-number", default)]
    pub attempt_number: Option<u32>,
    #[serde(rename = "backpressureLevel", default)]
    pub backpressure_level: Option<VertexBackPressureLevel>,
    /// The back-pressured share of the last second (0–1).
    #[serde(default, deserialize_with = "f64_or_nan")]
    pub ratio: f64,
    #[serde(rename = "idleRatio", default, deserialize_with = "f64_or_nan")]
    pub idle_ratio: f64,
    #[serde(rename = "busyRatio", default, deserialize_with = "f64_or_nan")]
    pub busy_ratio: f64,
}

/// `JobVertexBackPressureInfo`: the body of `GET /jobs/:id/vertices/:vid/backpressure`.
/// `status` is `ok`, or `deprecated` when Flink had no metrics for the vertex yet (then the
/// rest is absent).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct JobVertexBackPressureInfo {
    pub status: String,
    #[serde(rename = "backpressureLevel", default)]
    pub backpressure_level: Option<VertexBackPressureLevel>,
    #[serde(rename = "end-timestamp", default)]
    pub end_timestamp: Option<i64>,
    #[serde(default)]
    pub subtasks: Vec<SubtaskBackPressureInfo>,
}

/// One entry of `GET /jobs/:id/vertices/:vid/subtasks/:n/metrics?get=…`: Flink sends values as
/// strings (`"792.0"`, `"208"`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Metric {
    pub id: String,
    #[serde(default)]
    pub value: String,
}

impl Metric {
    /// The value as a number, when it is one.
    pub fn value_f64(&self) -> Option<f64> {
        self.value.trim().parse().ok()
    }
}

/// One entry of `GET /jobs/:id/vertices/:vid/subtasks/metrics?get=…`
/// (`AggregatedMetric`): the metric over the vertex's subtasks.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct AggregatedMetric {
    pub id: String,
    #[serde(default, deserialize_with = "opt_f64_or_nan")]
    pub min: Option<f64>,
    #[serde(default, deserialize_with = "opt_f64_or_nan")]
    pub max: Option<f64>,
    #[serde(default, deserialize_with = "opt_f64_or_nan")]
    pub avg: Option<f64>,
    #[serde(default, deserialize_with = "opt_f64_or_nan")]
    pub sum: Option<f64>,
    #[serde(default, deserialize_with = "opt_f64_or_nan")]
    pub skew: Option<f64>,
}

fn opt_f64_or_nan<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    f64_or_nan(d).map(Some)
}

/// The metrics `collect` asks every subtask for: how the task spent each second (busy,
/// back-pressured, idle) and its throughput. `numBytesOutPerSecond` is there too: sources have
/// no bytes in.
pub const COLLECTED_METRICS: &[&str] = &[
    "busyTimeMsPerSecond",
    "backPressuredTimeMsPerSecond",
    "idleTimeMsPerSecond",
    "numRecordsInPerSecond",
    "numRecordsOutPerSecond",
    "numBytesInPerSecond",
    "numBytesOutPerSecond",
];

/// The first input gate's `BufferDebloater` size: registered only when buffer debloating is on
/// (and only on subtasks with inputs), so its presence is how a bundle tells that it was.
pub const DEBLOATED_BUFFER_SIZE: &str = "Shuffle.Netty.Input.0.debloatedBufferSize";

/// Metrics `collect` also asks for whose absence is an answer, not a gap: never waited for,
/// never reported missing.
pub const OPTIONAL_METRICS: &[&str] = &[DEBLOATED_BUFFER_SIZE];
