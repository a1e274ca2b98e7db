//! `CompletedCheckpointStore` (`StandaloneCompletedCheckpointStore` / `DefaultCompletedCheckpointStore`)
//! with `CheckpointSubsumeHelper`'s retention rule.

use crate::coordinator::properties::CheckpointProperties;
use crate::types::{CheckpointId, Micros, SubtaskId};
use serde::Serialize;
use std::collections::VecDeque;

/// The part of a subtask's `OperatorSubtaskState` the simulation needs: sizes and a key to the
/// stored state (the state itself stays with the simulator).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct OperatorStateHandle {
    pub subtask: SubtaskId,
    pub state_size: u64,
    pub checkpointed_size: u64,
    /// In-flight data stored as channel state (unaligned checkpoints).
    pub persisted_in_flight_bytes: u64,
    /// Opaque key the simulator uses to find the stored state.
    pub handle_key: u64,
}

/// `CompletedCheckpoint`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct CompletedCheckpoint {
    pub id: CheckpointId,
    pub props: CheckpointProperties,
    pub trigger_timestamp: Micros,
    pub completion_timestamp: Micros,
    pub handles: Vec<OperatorStateHandle>,
    /// Where `_metadata` lives, e.g. `file:/tmp/flink-checkpoints/<job>/chk-7`.
    pub external_pointer: String,
}

impl CompletedCheckpoint {
    pub fn state_size(&self) -> u64 {
        self.handles.iter().map(|h| h.state_size).sum()
    }
}

/// Keeps the latest `num_retained` completed checkpoints, oldest first.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct CompletedCheckpointStore {
    max_retained: usize,
    checkpoints: VecDeque<CompletedCheckpoint>,
}

impl CompletedCheckpointStore {
    /// `num-retained` below 1 is treated as 1, as Flink's config validation would demand.
    pub fn new(num_retained: u32) -> Self {
        Self {
            max_retained: (num_retained as usize).max(1),
            checkpoints: VecDeque::new(),
        }
    }

    /// `addCheckpointAndSubsumeOldestOne`; returns the subsumed (discarded) checkpoints, oldest
    /// first. Follows `CheckpointSubsumeHelper.subsume`: the newest entry and the newest
    /// non-savepoint are never subsumed, anything else goes oldest-first until the store fits.
    pub fn add_checkpoint_and_subsume_oldest_one(
        &mut self,
        checkpoint: CompletedCheckpoint,
    ) -> Vec<CompletedCheckpoint> {
        self.checkpoints.push_back(checkpoint);
        let mut subsumed = Vec::new();
        if self.checkpoints.len() <= self.max_retained {
            return subsumed;
        }
        let latest_id = self.checkpoints.back().map(|c| c.id);
        let latest_non_savepoint = self
            .checkpoints
            .iter()
            .rev()
            .find(|c| !c.props.is_savepoint())
            .map(|c| c.id);
        let mut i = 0;
        while self.checkpoints.len() > self.max_retained && i < self.checkpoints.len() {
            let id = self.checkpoints[i].id;
            if Some(id) == latest_id || Some(id) == latest_non_savepoint {
                i += 1;
                continue;
            }
            if let Some(c) = self.checkpoints.remove(i) {
                subsumed.push(c);
            }
        }
        subsumed
    }

    /// Oldest first.
    pub fn all_checkpoints(&self) -> impl Iterator<Item = &CompletedCheckpoint> {
        self.checkpoints.iter()
    }

    pub fn latest_checkpoint(&self) -> Option<&CompletedCheckpoint> {
        self.checkpoints.back()
    }

    pub fn latest_checkpoint_id(&self) -> Option<CheckpointId> {
        self.checkpoints.back().map(|c| c.id)
    }

    pub fn get(&self, id: CheckpointId) -> Option<&CompletedCheckpoint> {
        self.checkpoints.iter().find(|c| c.id == id)
    }

    pub fn is_empty(&self) -> bool {
        self.checkpoints.is_empty()
    }
}
