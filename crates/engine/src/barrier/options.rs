//! `CheckpointOptions` and `CheckpointBarrier`: what a barrier carries and how it must be aligned.

use serde::{Deserialize, Serialize};

use crate::types::{CheckpointId, Micros};

/// Flink's `SnapshotType` as far as barrier handling cares: savepoints are never unaligned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum CheckpointType {
    Checkpoint,
    Savepoint,
    FullCheckpoint,
}

impl CheckpointType {
    pub fn is_savepoint(self) -> bool {
        matches!(self, CheckpointType::Savepoint)
    }
}

/// Flink's `CheckpointOptions.AlignmentType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum AlignmentType {
    AtLeastOnce,
    Aligned,
    Unaligned,
    /// Unaligned or timeoutable options downgraded for a connection that cannot carry channel
    /// state (e.g. pointwise); never switches to unaligned.
    ForcedAligned,
}

/// Flink's `CheckpointOptions` without the storage location (the simulator has one storage).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CheckpointOptions {
    pub checkpoint_type: CheckpointType,
    pub alignment: AlignmentType,
    /// `None` is Flink's `NO_ALIGNED_CHECKPOINT_TIME_OUT` (`Long.MAX_VALUE`).
    pub aligned_checkpoint_timeout: Option<Micros>,
}

impl CheckpointOptions {
    /// Mirrors `CheckpointOptions.forConfig`: savepoints and `unaligned_enabled == false` are
    /// aligned without timeout; a timeout of 0 (or `u64::MAX`, Flink's "none") means unaligned
    /// from the start; anything else is aligned with that timeout.
    pub fn for_config(
        checkpoint_type: CheckpointType,
        exactly_once: bool,
        unaligned_enabled: bool,
        aligned_timeout: Micros,
    ) -> CheckpointOptions {
        let (alignment, timeout) = if !exactly_once {
            (AlignmentType::AtLeastOnce, None)
        } else if checkpoint_type.is_savepoint() || !unaligned_enabled {
            (AlignmentType::Aligned, None)
        } else if aligned_timeout == 0 || aligned_timeout == Micros::MAX {
            (AlignmentType::Unaligned, None)
        } else {
            (AlignmentType::Aligned, Some(aligned_timeout))
        };
        CheckpointOptions {
            checkpoint_type,
            alignment,
            aligned_checkpoint_timeout: timeout,
        }
    }

    /// Aligned, no timeout: what `forConfig` gives a savepoint or a job without unaligned checkpoints.
    pub fn aligned(checkpoint_type: CheckpointType) -> CheckpointOptions {
        CheckpointOptions {
            checkpoint_type,
            alignment: AlignmentType::Aligned,
            aligned_checkpoint_timeout: None,
        }
    }

    /// Only a plain aligned barrier with a real timeout may switch to unaligned (`isTimeoutable`).
    pub fn is_timeoutable(&self) -> bool {
        self.alignment == AlignmentType::Aligned
            && matches!(self.aligned_checkpoint_timeout, Some(t) if t > 0 && t != Micros::MAX)
    }

    pub fn is_unaligned(&self) -> bool {
        self.alignment == AlignmentType::Unaligned
    }

    pub fn is_exactly_once(&self) -> bool {
        self.alignment != AlignmentType::AtLeastOnce
    }

    /// `toUnaligned`: only an aligned barrier converts (Flink asserts that); the timeout is
    /// dropped because an unaligned barrier has nothing left to time out. Other alignment types
    /// are returned unchanged rather than panicking.
    pub fn as_unaligned(&self) -> CheckpointOptions {
        if self.alignment != AlignmentType::Aligned {
            return *self;
        }
        CheckpointOptions {
            checkpoint_type: self.checkpoint_type,
            alignment: AlignmentType::Unaligned,
            aligned_checkpoint_timeout: None,
        }
    }
}

/// Flink's `CheckpointBarrier`: the id, the JobManager's trigger timestamp and the options.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CheckpointBarrier {
    pub id: CheckpointId,
    /// The coordinator's trigger time; start delay and the alignment timeout are measured from it.
    pub timestamp: Micros,
    pub options: CheckpointOptions,
}

impl CheckpointBarrier {
    pub fn as_unaligned(&self) -> CheckpointBarrier {
        CheckpointBarrier {
            options: self.options.as_unaligned(),
            ..*self
        }
    }

    /// `ControllerImpl.isTimedOut`: strictly more than the timeout has passed since the trigger.
    pub fn is_timed_out(&self, now: Micros) -> bool {
        match self.options.aligned_checkpoint_timeout {
            Some(timeout) if self.options.is_timeoutable() => {
                now.saturating_sub(self.timestamp) > timeout
            }
            _ => false,
        }
    }

    /// When the alignment timer fires: `timestamp + timeout` (`BarrierAlignmentUtil.getTimerDelay`).
    pub fn timeout_at(&self) -> Option<Micros> {
        if !self.options.is_timeoutable() {
            return None;
        }
        self.options
            .aligned_checkpoint_timeout
            .map(|t| self.timestamp.saturating_add(t))
    }
}
