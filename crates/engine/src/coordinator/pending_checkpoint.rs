//! `PendingCheckpoint`: a triggered checkpoint waiting for its acknowledgements.

use crate::coordinator::completed_store::{CompletedCheckpoint, OperatorStateHandle};
use crate::coordinator::properties::CheckpointProperties;
use crate::types::{CheckpointId, Micros, SubtaskId};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// `PendingCheckpoint.TaskAcknowledgeResult`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum TaskAcknowledgeResult {
    Success,
    /// The subtask already acknowledged this checkpoint.
    Duplicate,
    /// The subtask is not part of this checkpoint (or the id was never issued).
    Unknown,
    /// The checkpoint is gone (expired/aborted/subsumed): the ack's state must be discarded.
    Discarded,
}

/// What a task reports with its ack (`CheckpointMetrics` + `TaskStateSnapshot` sizes). Durations in
/// microseconds, sizes in bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubtaskCheckpointMetrics {
    pub sync_duration: Micros,
    pub async_duration: Micros,
    pub alignment_duration: Micros,
    pub start_delay: Micros,
    /// Bytes consumed during alignment (`processed_data`).
    pub processed_bytes: u64,
    /// In-flight bytes written as channel state (`persisted_data`).
    pub persisted_bytes: u64,
    pub state_size: u64,
    pub checkpointed_size: u64,
    /// The subtask took this checkpoint unaligned (from the start or after the aligned timeout).
    pub unaligned: bool,
}

/// One acknowledgement as collected by the pending checkpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SubtaskAck {
    pub ack_timestamp: Micros,
    pub metrics: SubtaskCheckpointMetrics,
    /// Opaque key the simulator uses to find the stored state of this subtask.
    pub handle_key: u64,
}

/// `PendingCheckpoint`.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct PendingCheckpoint {
    pub id: CheckpointId,
    pub props: CheckpointProperties,
    pub trigger_timestamp: Micros,
    pub unaligned: bool,
    /// `notYetAcknowledgedTasks` (the plan's tasks to wait for).
    not_yet_acknowledged: BTreeSet<SubtaskId>,
    acknowledged: BTreeMap<SubtaskId, SubtaskAck>,
    /// The plan's tasks to commit to (notify complete / aborted).
    pub tasks_to_commit: Vec<SubtaskId>,
    /// `notYetAcknowledgedOperatorCoordinators`, by name.
    coordinators_not_yet_acknowledged: BTreeSet<String>,
    /// The master side (storage location, master hooks) is still being triggered
    /// (`notYetAcknowledgedMasterStates`); only with asynchronous triggering.
    master_state_pending: bool,
}

impl PendingCheckpoint {
    pub fn new(
        id: CheckpointId,
        props: CheckpointProperties,
        trigger_timestamp: Micros,
        unaligned: bool,
        tasks_to_wait_for: &[SubtaskId],
        tasks_to_commit: Vec<SubtaskId>,
    ) -> Self {
        Self {
            id,
            props,
            trigger_timestamp,
            unaligned,
            not_yet_acknowledged: tasks_to_wait_for.iter().copied().collect(),
            acknowledged: BTreeMap::new(),
            tasks_to_commit,
            coordinators_not_yet_acknowledged: BTreeSet::new(),
            master_state_pending: false,
        }
    }

    /// The master side must acknowledge before the checkpoint can complete.
    pub fn with_master_state_pending(mut self) -> Self {
        self.master_state_pending = true;
        self
    }

    /// `acknowledgeMasterState`.
    pub fn acknowledge_master_state(&mut self) {
        self.master_state_pending = false;
    }

    /// `areMasterStatesFullyAcknowledged`.
    pub fn is_master_state_acknowledged(&self) -> bool {
        !self.master_state_pending
    }

    /// Operator coordinators whose checkpoint this one waits for.
    pub fn with_coordinators(mut self, names: &[String]) -> Self {
        self.coordinators_not_yet_acknowledged = names.iter().cloned().collect();
        self
    }

    /// `acknowledgeCoordinatorState`: true when `name` was still awaited.
    pub fn acknowledge_coordinator(&mut self, name: &str) -> bool {
        self.coordinators_not_yet_acknowledged.remove(name)
    }

    /// `areCoordinatorsFullyAcknowledged`.
    pub fn are_coordinators_fully_acknowledged(&self) -> bool {
        self.coordinators_not_yet_acknowledged.is_empty()
    }

    pub fn coordinators_not_yet_acknowledged(&self) -> impl Iterator<Item = &String> {
        self.coordinators_not_yet_acknowledged.iter()
    }

    /// `acknowledgeTask`.
    pub fn acknowledge_task(
        &mut self,
        subtask: SubtaskId,
        metrics: SubtaskCheckpointMetrics,
        handle_key: u64,
        now: Micros,
    ) -> TaskAcknowledgeResult {
        if self.not_yet_acknowledged.remove(&subtask) {
            self.acknowledged.insert(
                subtask,
                SubtaskAck {
                    ack_timestamp: now,
                    metrics,
                    handle_key,
                },
            );
            TaskAcknowledgeResult::Success
        } else if self.acknowledged.contains_key(&subtask) {
            TaskAcknowledgeResult::Duplicate
        } else {
            TaskAcknowledgeResult::Unknown
        }
    }

    /// `isFullyAcknowledged`: every task, operator coordinator and master state.
    pub fn is_fully_acknowledged(&self) -> bool {
        self.not_yet_acknowledged.is_empty()
            && self.are_coordinators_fully_acknowledged()
            && self.is_master_state_acknowledged()
    }

    pub fn is_acknowledged_by(&self, subtask: SubtaskId) -> bool {
        self.acknowledged.contains_key(&subtask)
    }

    pub fn num_acknowledged(&self) -> usize {
        self.acknowledged.len()
    }

    pub fn num_total(&self) -> usize {
        self.acknowledged.len() + self.not_yet_acknowledged.len()
    }

    pub fn not_yet_acknowledged(&self) -> impl Iterator<Item = &SubtaskId> {
        self.not_yet_acknowledged.iter()
    }

    /// `canBeSubsumed`: savepoints are never subsumed by a newer checkpoint.
    pub fn can_be_subsumed(&self) -> bool {
        !self.props.is_savepoint()
    }

    /// `finalizeCheckpoint`: the `_metadata` write, reduced to building the completed checkpoint.
    pub fn finalize_checkpoint(
        &self,
        external_pointer: String,
        completion_timestamp: Micros,
    ) -> CompletedCheckpoint {
        let handles = self
            .acknowledged
            .iter()
            .map(|(subtask, ack)| OperatorStateHandle {
                subtask: *subtask,
                state_size: ack.metrics.state_size,
                checkpointed_size: ack.metrics.checkpointed_size,
                persisted_in_flight_bytes: ack.metrics.persisted_bytes,
                handle_key: ack.handle_key,
            })
            .collect();
        CompletedCheckpoint {
            id: self.id,
            props: self.props,
            trigger_timestamp: self.trigger_timestamp,
            completion_timestamp,
            handles,
            external_pointer,
        }
    }
}
