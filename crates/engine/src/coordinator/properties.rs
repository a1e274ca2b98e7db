//! `CheckpointProperties`: what kind of snapshot a request asks for.
//!
//! Kept local to the coordinator on purpose: the barrier side has its own `CheckpointOptions`, and the
//! coordinator only needs to know how a request is ordered, counted and finalized.

use serde::{Deserialize, Serialize};

/// `SnapshotType`: a regular checkpoint, a savepoint, or the synchronous savepoint of
/// stop-with-savepoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum CheckpointKind {
    Checkpoint,
    Savepoint,
    /// Stop-with-savepoint: the job ends after it completes, so tasks must be told (notify) and a
    /// task-side failure fails the job immediately.
    SyncSavepoint,
}

/// Flink's `CheckpointProperties`, reduced to what ordering, counting and completion look at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CheckpointProperties {
    pub kind: CheckpointKind,
    /// `forced` requests may run beyond max-concurrent and ignore min-pause.
    pub forced: bool,
    /// Requests from the `ScheduledTrigger` (as opposed to REST/user requests).
    pub periodic: bool,
}

impl CheckpointProperties {
    /// `CheckpointProperties.forCheckpoint(retention)` as used by the periodic trigger.
    pub fn periodic_checkpoint() -> Self {
        Self {
            kind: CheckpointKind::Checkpoint,
            forced: false,
            periodic: true,
        }
    }

    /// A checkpoint triggered through REST (`POST /jobs/:id/checkpoints`).
    pub fn user_checkpoint() -> Self {
        Self {
            kind: CheckpointKind::Checkpoint,
            forced: false,
            periodic: false,
        }
    }

    /// `CheckpointProperties.forSavepoint(forced=true)`. The coordinator clears `forced` when
    /// unaligned checkpoints are enabled, as Flink's `triggerSavepoint` does.
    pub fn savepoint() -> Self {
        Self {
            kind: CheckpointKind::Savepoint,
            forced: true,
            periodic: false,
        }
    }

    /// `CheckpointProperties.forSyncSavepoint`: the savepoint of stop-with-savepoint.
    pub fn sync_savepoint() -> Self {
        Self {
            kind: CheckpointKind::SyncSavepoint,
            forced: true,
            periodic: false,
        }
    }

    pub fn is_savepoint(&self) -> bool {
        self.kind != CheckpointKind::Checkpoint
    }

    pub fn is_synchronous(&self) -> bool {
        self.kind == CheckpointKind::SyncSavepoint
    }
}
