//! Checkpoint statistics in Flink's REST shapes.
//!
//! [`CheckpointStatsTracker`] is fed by the coordinator (trigger, ack, completion, failure,
//! restore) and keeps counts, a bounded history, the latest checkpoints and summaries. The
//! `rest_*` modules turn it into the JSON of `/jobs/:id/checkpoints`, `/checkpoints/config`,
//! `/checkpoints/details/:id` and `/checkpoints/details/:id/subtasks/:vertex`. REST times are
//! milliseconds (Flink's unit); internally everything stays in microseconds. [`why`] explains a
//! checkpoint's duration from these statistics and what the barriers met on their way.

pub mod rest_checkpoints;
pub mod rest_config;
pub mod rest_details;
pub mod summary;
pub mod tracker;
pub mod why;

#[cfg(test)]
mod tests;

pub use rest_checkpoints::{
    checkpointing_statistics, CheckpointStatistics, CheckpointStatisticsKind,
    CheckpointingStatistics, RestAPICheckpointType,
};
pub use rest_config::{
    checkpoint_config_info, CheckpointConfigInfo, CheckpointConfigResponse, ErrorResponseBody,
    ProcessingMode,
};
pub use rest_details::{
    checkpoint_statistics_details, task_checkpoint_statistics_with_subtask_details,
    SubtaskCheckpointStatistics, TaskCheckpointStatisticsWithSubtaskDetails,
};
pub use summary::{StatsSummary, StatsSummaryDto};
pub use tracker::{
    AbstractCheckpointStats, CheckpointStatsStatus, CheckpointStatsTracker,
    RestoredCheckpointStats, SubtaskStateStats, TaskStateStats,
};

/// `web.checkpoints.history` default.
pub const DEFAULT_HISTORY_SIZE: usize = 10;

/// Microseconds to REST milliseconds.
pub(crate) fn ms(us: crate::types::Micros) -> i64 {
    (us / crate::types::MICROS_PER_MS) as i64
}
