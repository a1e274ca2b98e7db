//! `/jobs/:id/checkpoints`: `CheckpointingStatistics`, plus the `CheckpointStatistics` and
//! `TaskCheckpointStatistics` shapes shared with the details endpoint.

use crate::coordinator::properties::CheckpointKind;
use crate::stats::ms;
use crate::stats::summary::StatsSummaryDto;
use crate::stats::tracker::{
    AbstractCheckpointStats, CheckpointStatsStatus, CheckpointStatsTracker, TaskStateStats,
};
use serde::Serialize;
use std::collections::BTreeMap;

/// Display name of a vertex: the caller's name, or `vertex-<index>` when none was given.
pub fn vertex_name(names: &[String], vertex: u32) -> String {
    names
        .get(vertex as usize)
        .cloned()
        .unwrap_or_else(|| format!("vertex-{vertex}"))
}

/// Optional microsecond value to REST milliseconds, `-1` when absent (Flink's convention).
pub(crate) fn ms_or_minus_one(v: Option<crate::types::Micros>) -> i64 {
    v.map(ms).unwrap_or(-1)
}

/// `TaskCheckpointStatistics`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskCheckpointStatistics {
    pub id: u64,
    pub status: CheckpointStatsStatus,
    pub latest_ack_timestamp: i64,
    pub checkpointed_size: u64,
    pub state_size: u64,
    pub end_to_end_duration: i64,
    /// Hardcoded 0 in Flink (kept for REST compatibility).
    pub alignment_buffered: u64,
    pub processed_data: u64,
    pub persisted_data: u64,
    pub num_subtasks: u32,
    pub num_acknowledged_subtasks: u32,
}

impl TaskCheckpointStatistics {
    pub fn from_stats(cp: &AbstractCheckpointStats, task: &TaskStateStats) -> Self {
        let latest = task.latest_ack_timestamp();
        Self {
            id: cp.id,
            status: cp.status,
            latest_ack_timestamp: ms_or_minus_one(latest),
            checkpointed_size: task.checkpointed_size(),
            state_size: task.state_size(),
            end_to_end_duration: ms_or_minus_one(
                latest.map(|a| a.saturating_sub(cp.trigger_timestamp)),
            ),
            alignment_buffered: 0,
            processed_data: task.processed_data(),
            persisted_data: task.persisted_data(),
            num_subtasks: task.num_subtasks,
            num_acknowledged_subtasks: task.num_acknowledged(),
        }
    }
}

/// The subclass-specific fields of `CheckpointStatistics`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum CheckpointStatisticsKind {
    Completed {
        external_path: Option<String>,
        discarded: bool,
    },
    Failed {
        failure_timestamp: i64,
        failure_message: Option<String>,
    },
    InProgress {},
}

/// `CheckpointStatistics` (`Completed…`, `Failed…`, `PendingCheckpointStatistics`), tagged by
/// `className` like Flink's Jackson type info.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckpointStatistics {
    #[serde(rename = "className")]
    pub class_name: &'static str,
    pub id: u64,
    pub status: CheckpointStatsStatus,
    pub is_savepoint: bool,
    /// Flink spells this one in camelCase.
    #[serde(rename = "savepointFormat")]
    pub savepoint_format: Option<&'static str>,
    pub trigger_timestamp: i64,
    pub latest_ack_timestamp: i64,
    pub checkpointed_size: u64,
    pub state_size: u64,
    pub end_to_end_duration: i64,
    pub alignment_buffered: u64,
    pub processed_data: u64,
    pub persisted_data: u64,
    pub num_subtasks: u32,
    pub num_acknowledged_subtasks: u32,
    pub checkpoint_type: RestAPICheckpointType,
    pub tasks: BTreeMap<String, TaskCheckpointStatistics>,
    #[serde(flatten)]
    pub kind: CheckpointStatisticsKind,
}

/// `CheckpointStatistics.RestAPICheckpointType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum RestAPICheckpointType {
    Checkpoint,
    UnalignedCheckpoint,
    Savepoint,
    SyncSavepoint,
}

/// `RestAPICheckpointType.valueOf(checkpointType, isUnalignedCheckpoint)`.
pub fn rest_checkpoint_type(cp: &AbstractCheckpointStats) -> RestAPICheckpointType {
    match cp.props.kind {
        CheckpointKind::SyncSavepoint => RestAPICheckpointType::SyncSavepoint,
        CheckpointKind::Savepoint => RestAPICheckpointType::Savepoint,
        CheckpointKind::Checkpoint if cp.is_unaligned() => {
            RestAPICheckpointType::UnalignedCheckpoint
        }
        CheckpointKind::Checkpoint => RestAPICheckpointType::Checkpoint,
    }
}

impl CheckpointStatistics {
    /// `generateCheckpointStatistics(stats, includeTaskCheckpointStatistics)`.
    pub fn generate(cp: &AbstractCheckpointStats, include_tasks: bool, names: &[String]) -> Self {
        let tasks = if include_tasks {
            cp.tasks
                .values()
                .map(|t| {
                    (
                        vertex_name(names, t.vertex),
                        TaskCheckpointStatistics::from_stats(cp, t),
                    )
                })
                .collect()
        } else {
            BTreeMap::new()
        };
        let (class_name, kind) = match cp.status {
            CheckpointStatsStatus::COMPLETED => (
                "completed",
                CheckpointStatisticsKind::Completed {
                    external_path: cp.external_path.clone(),
                    discarded: cp.discarded,
                },
            ),
            CheckpointStatsStatus::FAILED => (
                "failed",
                CheckpointStatisticsKind::Failed {
                    failure_timestamp: ms_or_minus_one(cp.failure_timestamp),
                    failure_message: cp.failure_message.clone(),
                },
            ),
            CheckpointStatsStatus::IN_PROGRESS => {
                ("in_progress", CheckpointStatisticsKind::InProgress {})
            }
        };
        Self {
            class_name,
            id: cp.id,
            status: cp.status,
            is_savepoint: cp.props.is_savepoint(),
            // SavepointFormatType.DEFAULT is CANONICAL; checkpoints have no format.
            savepoint_format: cp.props.is_savepoint().then_some("CANONICAL"),
            trigger_timestamp: ms(cp.trigger_timestamp),
            latest_ack_timestamp: ms_or_minus_one(cp.latest_ack_timestamp()),
            checkpointed_size: cp.checkpointed_size(),
            state_size: cp.state_size(),
            end_to_end_duration: ms_or_minus_one(cp.end_to_end_duration()),
            alignment_buffered: 0,
            processed_data: cp.processed_data(),
            persisted_data: cp.persisted_data(),
            num_subtasks: cp.num_subtasks(),
            num_acknowledged_subtasks: cp.num_acknowledged(),
            checkpoint_type: rest_checkpoint_type(cp),
            tasks,
            kind,
        }
    }
}

/// `CheckpointingStatistics.Counts`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Counts {
    pub restored: u64,
    pub total: u64,
    pub in_progress: u64,
    pub completed: u64,
    pub failed: u64,
}

/// `CheckpointingStatistics.Summary` (`CheckpointStatisticsSummary`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    pub checkpointed_size: StatsSummaryDto,
    pub state_size: StatsSummaryDto,
    pub end_to_end_duration: StatsSummaryDto,
    pub alignment_buffered: StatsSummaryDto,
    pub processed_data: StatsSummaryDto,
    pub persisted_data: StatsSummaryDto,
}

/// `CheckpointingStatistics.RestoredCheckpointStatistics`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RestoredCheckpointStatistics {
    pub id: u64,
    pub restore_timestamp: i64,
    pub is_savepoint: bool,
    pub external_path: Option<String>,
}

/// `CheckpointingStatistics.LatestCheckpoints`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LatestCheckpoints {
    pub completed: Option<CheckpointStatistics>,
    pub savepoint: Option<CheckpointStatistics>,
    pub failed: Option<CheckpointStatistics>,
    pub restored: Option<RestoredCheckpointStatistics>,
}

/// `CheckpointingStatistics`: the body of `GET /jobs/:id/checkpoints`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckpointingStatistics {
    pub counts: Counts,
    pub summary: Summary,
    pub latest: LatestCheckpoints,
    pub history: Vec<CheckpointStatistics>,
}

/// `CheckpointingStatisticsHandler`: history newest first, no per-task details.
pub fn checkpointing_statistics(
    tracker: &CheckpointStatsTracker,
    names: &[String],
) -> CheckpointingStatistics {
    let c = tracker.counts;
    let s = &tracker.summary;
    let generate = |cp: &Option<AbstractCheckpointStats>| {
        cp.as_ref()
            .map(|cp| CheckpointStatistics::generate(cp, false, names))
    };
    CheckpointingStatistics {
        counts: Counts {
            restored: c.restored,
            total: c.total,
            in_progress: c.in_progress,
            completed: c.completed,
            failed: c.failed,
        },
        summary: Summary {
            checkpointed_size: s.checkpointed_size.to_dto(),
            state_size: s.state_size.to_dto(),
            end_to_end_duration: s.end_to_end_duration.to_dto(),
            alignment_buffered: StatsSummaryDto::zero(),
            processed_data: s.processed_data.to_dto(),
            persisted_data: s.persisted_data.to_dto(),
        },
        latest: LatestCheckpoints {
            completed: generate(&tracker.latest_completed),
            savepoint: generate(&tracker.latest_savepoint),
            failed: generate(&tracker.latest_failed),
            restored: tracker
                .latest_restored
                .as_ref()
                .map(|r| RestoredCheckpointStatistics {
                    id: r.id,
                    restore_timestamp: ms(r.restore_timestamp),
                    is_savepoint: r.is_savepoint,
                    external_path: r.external_path.clone(),
                }),
        },
        history: tracker
            .history()
            .map(|cp| CheckpointStatistics::generate(cp, false, names))
            .collect(),
    }
}
