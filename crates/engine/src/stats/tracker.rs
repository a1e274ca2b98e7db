//! `DefaultCheckpointStatsTracker` with `PendingCheckpointStats`, `CompletedCheckpointStats`,
//! `FailedCheckpointStats`, `TaskStateStats` and `SubtaskStateStats` folded into a few structs.

use crate::coordinator::pending_checkpoint::SubtaskCheckpointMetrics;
use crate::coordinator::properties::CheckpointProperties;
use crate::stats::summary::StatsSummary;
use crate::stats::{ms, DEFAULT_HISTORY_SIZE};
use crate::types::{CheckpointId, Micros, SubtaskId};
use serde::Serialize;
use std::collections::{BTreeMap, VecDeque};

/// `CheckpointStatsStatus` as the REST API spells it.
#[allow(non_camel_case_types, clippy::upper_case_acronyms)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
pub enum CheckpointStatsStatus {
    IN_PROGRESS,
    COMPLETED,
    FAILED,
}

impl CheckpointStatsStatus {
    /// The REST spelling: `IN_PROGRESS`, `COMPLETED`, `FAILED`.
    pub fn as_str(self) -> &'static str {
        match self {
            CheckpointStatsStatus::IN_PROGRESS => "IN_PROGRESS",
            CheckpointStatsStatus::COMPLETED => "COMPLETED",
            CheckpointStatsStatus::FAILED => "FAILED",
        }
    }
}

impl std::fmt::Display for CheckpointStatsStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // `pad` so table columns (`{:<11}`) line up.
        f.pad(self.as_str())
    }
}

/// `SubtaskStateStats`: one subtask's acknowledgement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SubtaskStateStats {
    pub index: u32,
    pub ack_timestamp: Micros,
    pub metrics: SubtaskCheckpointMetrics,
}

impl SubtaskStateStats {
    /// `getEndToEndDuration`: `max(0, ack - trigger)`.
    pub fn end_to_end_duration(&self, trigger_timestamp: Micros) -> Micros {
        self.ack_timestamp.saturating_sub(trigger_timestamp)
    }
}

/// `TaskStateStats`: the subtasks of one job vertex.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TaskStateStats {
    pub vertex: u32,
    pub num_subtasks: u32,
    /// Acknowledged subtasks by subtask index.
    pub subtasks: BTreeMap<u32, SubtaskStateStats>,
}

impl TaskStateStats {
    pub fn num_acknowledged(&self) -> u32 {
        self.subtasks.len() as u32
    }

    pub fn latest_ack_timestamp(&self) -> Option<Micros> {
        self.subtasks.values().map(|s| s.ack_timestamp).max()
    }

    fn sum(&self, f: impl Fn(&SubtaskCheckpointMetrics) -> u64) -> u64 {
        self.subtasks.values().map(|s| f(&s.metrics)).sum()
    }

    pub fn state_size(&self) -> u64 {
        self.sum(|m| m.state_size)
    }

    pub fn checkpointed_size(&self) -> u64 {
        self.sum(|m| m.checkpointed_size)
    }

    pub fn processed_data(&self) -> u64 {
        self.sum(|m| m.processed_bytes)
    }

    pub fn persisted_data(&self) -> u64 {
        self.sum(|m| m.persisted_bytes)
    }
}

/// `AbstractCheckpointStats` and its pending/completed/failed subclasses in one struct.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AbstractCheckpointStats {
    pub id: CheckpointId,
    pub status: CheckpointStatsStatus,
    pub props: CheckpointProperties,
    pub trigger_timestamp: Micros,
    /// The checkpoint was triggered unaligned.
    pub unaligned: bool,
    pub tasks: BTreeMap<u32, TaskStateStats>,
    pub completion_timestamp: Option<Micros>,
    pub external_path: Option<String>,
    /// Completed, then subsumed/discarded from the store.
    pub discarded: bool,
    pub failure_timestamp: Option<Micros>,
    pub failure_message: Option<String>,
}

impl AbstractCheckpointStats {
    pub fn num_subtasks(&self) -> u32 {
        self.tasks.values().map(|t| t.num_subtasks).sum()
    }

    pub fn num_acknowledged(&self) -> u32 {
        self.tasks.values().map(|t| t.num_acknowledged()).sum()
    }

    pub fn latest_ack_timestamp(&self) -> Option<Micros> {
        self.tasks
            .values()
            .filter_map(|t| t.latest_ack_timestamp())
            .max()
    }

    pub fn state_size(&self) -> u64 {
        self.tasks.values().map(|t| t.state_size()).sum()
    }

    pub fn checkpointed_size(&self) -> u64 {
        self.tasks.values().map(|t| t.checkpointed_size()).sum()
    }

    pub fn processed_data(&self) -> u64 {
        self.tasks.values().map(|t| t.processed_data()).sum()
    }

    pub fn persisted_data(&self) -> u64 {
        self.tasks.values().map(|t| t.persisted_data()).sum()
    }

    /// Failed: failure − trigger. Otherwise latest ack − trigger; `None` before any ack (REST -1).
    pub fn end_to_end_duration(&self) -> Option<Micros> {
        if let Some(failed) = self.failure_timestamp {
            return Some(failed.saturating_sub(self.trigger_timestamp));
        }
        self.latest_ack_timestamp()
            .map(|ack| ack.saturating_sub(self.trigger_timestamp))
    }

    /// Unaligned when triggered so, or when any subtask switched (aligned-checkpoint timeout).
    pub fn is_unaligned(&self) -> bool {
        self.unaligned
            || self
                .tasks
                .values()
                .any(|t| t.subtasks.values().any(|s| s.metrics.unaligned))
    }
}

/// `RestoredCheckpointStats`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RestoredCheckpointStats {
    pub id: CheckpointId,
    pub restore_timestamp: Micros,
    pub is_savepoint: bool,
    pub external_path: Option<String>,
}

/// `CheckpointStatsCounts`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct CheckpointStatsCounts {
    pub restored: u64,
    pub total: u64,
    pub in_progress: u64,
    pub completed: u64,
    pub failed: u64,
}

/// `CompletedCheckpointStatsSummary`: over all completed checkpoints (durations in ms, the REST
/// unit, so averages round like Flink's).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CompletedCheckpointStatsSummary {
    pub state_size: StatsSummary,
    pub checkpointed_size: StatsSummary,
    pub end_to_end_duration: StatsSummary,
    pub processed_data: StatsSummary,
    pub persisted_data: StatsSummary,
}

/// `CheckpointStatsTracker`.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct CheckpointStatsTracker {
    history_size: usize,
    /// Ids in the history, oldest first (REST shows them newest first).
    history: VecDeque<CheckpointId>,
    /// Stats of checkpoints in the history plus all in-progress ones (those outlive eviction,
    /// like Flink's `PendingCheckpointStats` held by the pending checkpoint).
    entries: BTreeMap<CheckpointId, AbstractCheckpointStats>,
    pub counts: CheckpointStatsCounts,
    pub summary: CompletedCheckpointStatsSummary,
    pub latest_completed: Option<AbstractCheckpointStats>,
    pub latest_savepoint: Option<AbstractCheckpointStats>,
    pub latest_failed: Option<AbstractCheckpointStats>,
    pub latest_restored: Option<RestoredCheckpointStats>,
}

impl Default for CheckpointStatsTracker {
    fn default() -> Self {
        Self::new(DEFAULT_HISTORY_SIZE)
    }
}

impl CheckpointStatsTracker {
    pub fn new(history_size: usize) -> Self {
        Self {
            history_size,
            history: VecDeque::new(),
            entries: BTreeMap::new(),
            counts: CheckpointStatsCounts::default(),
            summary: CompletedCheckpointStatsSummary::default(),
            latest_completed: None,
            latest_savepoint: None,
            latest_failed: None,
            latest_restored: None,
        }
    }

    /// History entries, newest first.
    pub fn history(&self) -> impl Iterator<Item = &AbstractCheckpointStats> {
        self.history
            .iter()
            .rev()
            .filter_map(|id| self.entries.get(id))
    }

    /// A checkpoint's stats if still known (history, in progress, or one of the latest).
    pub fn get(&self, id: CheckpointId) -> Option<&AbstractCheckpointStats> {
        self.entries.get(&id).or_else(|| {
            [
                &self.latest_completed,
                &self.latest_savepoint,
                &self.latest_failed,
            ]
            .into_iter()
            .flatten()
            .find(|s| s.id == id)
        })
    }

    /// `reportPendingCheckpoint`: `subtasks_per_vertex` is the plan's tasks to wait for.
    pub fn report_pending(
        &mut self,
        id: CheckpointId,
        trigger_timestamp: Micros,
        props: CheckpointProperties,
        unaligned: bool,
        subtasks_per_vertex: &BTreeMap<u32, u32>,
    ) {
        let tasks = subtasks_per_vertex
            .iter()
            .map(|(&vertex, &num_subtasks)| {
                (
                    vertex,
                    TaskStateStats {
                        vertex,
                        num_subtasks,
                        subtasks: BTreeMap::new(),
                    },
                )
            })
            .collect();
        let stats = AbstractCheckpointStats {
            id,
            status: CheckpointStatsStatus::IN_PROGRESS,
            props,
            trigger_timestamp,
            unaligned,
            tasks,
            completion_timestamp: None,
            external_path: None,
            discarded: false,
            failure_timestamp: None,
            failure_message: None,
        };
        self.counts.total += 1;
        self.counts.in_progress += 1;
        self.entries.insert(id, stats);
        self.history.push_back(id);
        while self.history.len() > self.history_size {
            if let Some(old) = self.history.pop_front() {
                self.forget_unless_in_progress(old);
            }
        }
    }

    /// `reportSubtaskStats`: ignored unless the checkpoint is in progress and the subtask is part
    /// of it and has not reported yet.
    pub fn report_subtask(
        &mut self,
        id: CheckpointId,
        subtask: SubtaskId,
        ack_timestamp: Micros,
        metrics: SubtaskCheckpointMetrics,
    ) -> bool {
        let Some(stats) = self.entries.get_mut(&id) else {
            return false;
        };
        if stats.status != CheckpointStatsStatus::IN_PROGRESS {
            return false;
        }
        let Some(task) = stats.tasks.get_mut(&subtask.vertex) else {
            return false;
        };
        if subtask.subtask >= task.num_subtasks || task.subtasks.contains_key(&subtask.subtask) {
            return false;
        }
        task.subtasks.insert(
            subtask.subtask,
            SubtaskStateStats {
                index: subtask.subtask,
                ack_timestamp,
                metrics,
            },
        );
        true
    }

    /// `reportCompletedCheckpoint`.
    pub fn report_completed(
        &mut self,
        id: CheckpointId,
        completion_timestamp: Micros,
        external_path: String,
    ) {
        let Some(mut stats) = self.take_in_progress(id) else {
            return;
        };
        stats.status = CheckpointStatsStatus::COMPLETED;
        stats.completion_timestamp = Some(completion_timestamp);
        stats.external_path = Some(external_path);
        self.counts.completed += 1;
        self.summary.state_size.add(stats.state_size());
        self.summary
            .checkpointed_size
            .add(stats.checkpointed_size());
        self.summary
            .end_to_end_duration
            .add(ms(stats.end_to_end_duration().unwrap_or(0)) as u64);
        self.summary.processed_data.add(stats.processed_data());
        self.summary.persisted_data.add(stats.persisted_data());
        if stats.props.is_savepoint() {
            self.latest_savepoint = Some(stats.clone());
        } else {
            self.latest_completed = Some(stats.clone());
        }
        self.put_back(stats);
    }

    /// `reportFailedCheckpoint`.
    pub fn report_failed(&mut self, id: CheckpointId, failure_timestamp: Micros, message: &str) {
        let Some(mut stats) = self.take_in_progress(id) else {
            return;
        };
        stats.status = CheckpointStatsStatus::FAILED;
        stats.failure_timestamp = Some(failure_timestamp);
        stats.failure_message = Some(message.to_string());
        self.counts.failed += 1;
        self.latest_failed = Some(stats.clone());
        self.put_back(stats);
    }

    /// `reportFailedCheckpointsWithoutInProgress`: a request failed before it got an id.
    pub fn report_failed_without_in_progress(&mut self) {
        self.counts.total += 1;
        self.counts.failed += 1;
    }

    /// `reportRestoredCheckpoint`.
    pub fn report_restored(&mut self, restored: RestoredCheckpointStats) {
        self.counts.restored += 1;
        self.latest_restored = Some(restored);
    }

    /// The completed checkpoint left the store (subsumed): the UI marks it discarded.
    pub fn mark_discarded(&mut self, id: CheckpointId) {
        if let Some(s) = self.entries.get_mut(&id) {
            s.discarded = true;
        }
        for s in [&mut self.latest_completed, &mut self.latest_savepoint]
            .into_iter()
            .flatten()
        {
            if s.id == id {
                s.discarded = true;
            }
        }
    }

    fn take_in_progress(&mut self, id: CheckpointId) -> Option<AbstractCheckpointStats> {
        match self.entries.get(&id) {
            Some(s) if s.status == CheckpointStatsStatus::IN_PROGRESS => {
                self.counts.in_progress = self.counts.in_progress.saturating_sub(1);
                self.entries.remove(&id)
            }
            _ => None,
        }
    }

    /// Back into `entries` only while the id is still in the history window.
    fn put_back(&mut self, stats: AbstractCheckpointStats) {
        if self.history.contains(&stats.id) {
            self.entries.insert(stats.id, stats);
        }
    }

    fn forget_unless_in_progress(&mut self, id: CheckpointId) {
        if self
            .entries
            .get(&id)
            .is_some_and(|s| s.status != CheckpointStatsStatus::IN_PROGRESS)
        {
            self.entries.remove(&id);
        }
    }
}
