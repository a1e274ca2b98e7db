//! `/jobs/:id/checkpoints/details/:id` and `/jobs/:id/checkpoints/details/:id/subtasks/:vertex`.

use crate::stats::ms;
use crate::stats::rest_checkpoints::{ms_or_minus_one, CheckpointStatistics};
use crate::stats::summary::{StatsSummary, StatsSummaryDto};
use crate::stats::tracker::{CheckpointStatsStatus, CheckpointStatsTracker, SubtaskStateStats};
use crate::types::CheckpointId;
use serde::Serialize;

/// `CheckpointStatisticDetailsHandler`: one checkpoint with per-vertex statistics.
pub fn checkpoint_statistics_details(
    tracker: &CheckpointStatsTracker,
    id: CheckpointId,
    names: &[String],
) -> Result<CheckpointStatistics, String> {
    let cp = tracker
        .get(id)
        .ok_or_else(|| format!("Could not find checkpointing statistics for checkpoint {id}."))?;
    Ok(CheckpointStatistics::generate(cp, true, names))
}

/// `SubtaskCheckpointStatistics.…CheckpointDuration`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckpointDuration {
    pub sync: i64,
    #[serde(rename = "async")]
    pub async_: i64,
}

/// `SubtaskCheckpointStatistics.…CheckpointAlignment`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckpointAlignment {
    pub buffered: u64,
    pub processed: u64,
    pub persisted: u64,
    pub duration: i64,
}

/// `SubtaskCheckpointStatistics`: `CompletedSubtaskCheckpointStatistics` or
/// `PendingSubtaskCheckpointStatistics`, tagged by `className`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SubtaskCheckpointStatistics {
    Completed {
        #[serde(rename = "className")]
        class_name: &'static str,
        index: u32,
        status: &'static str,
        ack_timestamp: i64,
        end_to_end_duration: i64,
        state_size: u64,
        checkpointed_size: u64,
        checkpoint: CheckpointDuration,
        alignment: CheckpointAlignment,
        start_delay: i64,
        unaligned_checkpoint: bool,
        aborted: bool,
    },
    Pending {
        #[serde(rename = "className")]
        class_name: &'static str,
        index: u32,
        status: &'static str,
    },
}

/// `CheckpointDurationSummary`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckpointDurationSummary {
    pub sync: StatsSummaryDto,
    #[serde(rename = "async")]
    pub async_: StatsSummaryDto,
}

/// `CheckpointAlignmentSummary`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckpointAlignmentSummary {
    pub buffered: StatsSummaryDto,
    pub processed: StatsSummaryDto,
    pub persisted: StatsSummaryDto,
    pub duration: StatsSummaryDto,
}

/// `TaskCheckpointStatisticsWithSubtaskDetails.Summary`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskSubtaskSummary {
    pub checkpointed_size: StatsSummaryDto,
    pub state_size: StatsSummaryDto,
    pub end_to_end_duration: StatsSummaryDto,
    pub checkpoint_duration: CheckpointDurationSummary,
    pub alignment: CheckpointAlignmentSummary,
    pub start_delay: StatsSummaryDto,
}

/// `TaskCheckpointStatisticsWithSubtaskDetails`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskCheckpointStatisticsWithSubtaskDetails {
    pub id: u64,
    pub status: CheckpointStatsStatus,
    pub latest_ack_timestamp: i64,
    pub checkpointed_size: u64,
    pub state_size: u64,
    pub end_to_end_duration: i64,
    pub alignment_buffered: u64,
    pub processed_data: u64,
    pub persisted_data: u64,
    pub num_subtasks: u32,
    pub num_acknowledged_subtasks: u32,
    pub summary: TaskSubtaskSummary,
    pub subtasks: Vec<SubtaskCheckpointStatistics>,
}

/// `TaskCheckpointStatisticDetailsHandler` for the vertex with index `vertex`.
pub fn task_checkpoint_statistics_with_subtask_details(
    tracker: &CheckpointStatsTracker,
    id: CheckpointId,
    vertex: u32,
) -> Result<TaskCheckpointStatisticsWithSubtaskDetails, String> {
    let cp = tracker
        .get(id)
        .ok_or_else(|| format!("Could not find checkpointing statistics for checkpoint {id}."))?;
    let task = cp
        .tasks
        .get(&vertex)
        .ok_or_else(|| format!("There is no checkpoint statistics for task {vertex}."))?;
    let trigger = cp.trigger_timestamp;
    let subtasks = (0..task.num_subtasks)
        .map(|i| match task.subtasks.get(&i) {
            Some(s) => completed_subtask(s, trigger),
            None => SubtaskCheckpointStatistics::Pending {
                class_name: "pending",
                index: i,
                status: "pending_or_failed",
            },
        })
        .collect();
    let latest = task.latest_ack_timestamp();
    Ok(TaskCheckpointStatisticsWithSubtaskDetails {
        id: cp.id,
        status: cp.status,
        latest_ack_timestamp: ms_or_minus_one(latest),
        checkpointed_size: task.checkpointed_size(),
        state_size: task.state_size(),
        end_to_end_duration: ms_or_minus_one(latest.map(|a| a.saturating_sub(trigger))),
        alignment_buffered: 0,
        processed_data: task.processed_data(),
        persisted_data: task.persisted_data(),
        num_subtasks: task.num_subtasks,
        num_acknowledged_subtasks: task.num_acknowledged(),
        summary: subtask_summary(task.subtasks.values(), trigger),
        subtasks,
    })
}

fn completed_subtask(s: &SubtaskStateStats, trigger: u64) -> SubtaskCheckpointStatistics {
    let m = &s.metrics;
    SubtaskCheckpointStatistics::Completed {
        class_name: "completed",
        index: s.index,
        status: "completed",
        ack_timestamp: ms(s.ack_timestamp),
        end_to_end_duration: ms(s.end_to_end_duration(trigger)),
        state_size: m.state_size,
        checkpointed_size: m.checkpointed_size,
        checkpoint: CheckpointDuration {
            sync: ms(m.sync_duration),
            async_: ms(m.async_duration),
        },
        alignment: CheckpointAlignment {
            buffered: 0,
            processed: m.processed_bytes,
            persisted: m.persisted_bytes,
            duration: ms(m.alignment_duration),
        },
        start_delay: ms(m.start_delay),
        unaligned_checkpoint: m.unaligned,
        aborted: false,
    }
}

/// `TaskStateStats.TaskStateStatsSummary`: Flink keeps no histogram here, so min, max and average
/// are exact and every percentile is NaN (`"NaN"` in the JSON), as the REST API shows them.
fn subtask_summary<'a>(
    subtasks: impl Iterator<Item = &'a SubtaskStateStats>,
    trigger: u64,
) -> TaskSubtaskSummary {
    let mut checkpointed = StatsSummary::default();
    let mut state = StatsSummary::default();
    let mut e2e = StatsSummary::default();
    let mut sync = StatsSummary::default();
    let mut async_ = StatsSummary::default();
    let mut processed = StatsSummary::default();
    let mut persisted = StatsSummary::default();
    let mut alignment = StatsSummary::default();
    let mut start_delay = StatsSummary::default();
    for s in subtasks {
        let m = &s.metrics;
        checkpointed.add(m.checkpointed_size);
        state.add(m.state_size);
        e2e.add(ms(s.end_to_end_duration(trigger)) as u64);
        sync.add(ms(m.sync_duration) as u64);
        async_.add(ms(m.async_duration) as u64);
        processed.add(m.processed_bytes);
        persisted.add(m.persisted_bytes);
        alignment.add(ms(m.alignment_duration) as u64);
        start_delay.add(ms(m.start_delay) as u64);
    }
    TaskSubtaskSummary {
        checkpointed_size: checkpointed.to_dto_without_histogram(),
        state_size: state.to_dto_without_histogram(),
        end_to_end_duration: e2e.to_dto_without_histogram(),
        checkpoint_duration: CheckpointDurationSummary {
            sync: sync.to_dto_without_histogram(),
            async_: async_.to_dto_without_histogram(),
        },
        alignment: CheckpointAlignmentSummary {
            buffered: StatsSummaryDto::zero(),
            processed: processed.to_dto_without_histogram(),
            persisted: persisted.to_dto_without_histogram(),
            duration: alignment.to_dto_without_histogram(),
        },
        start_delay: start_delay.to_dto_without_histogram(),
    }
}
