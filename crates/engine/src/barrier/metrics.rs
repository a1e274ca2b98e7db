//! The alignment bookkeeping of Flink's abstract `CheckpointBarrierHandler`
//! (`markAlignmentStart`/`markAlignmentEnd`/`addProcessedBytes`), shared by all handlers.

use serde::{Deserialize, Serialize};

use crate::types::{CheckpointId, Micros};

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AlignmentMetrics {
    /// The checkpoint whose alignment was last started (`startAlignmentCheckpointId`).
    checkpoint_id: Option<CheckpointId>,
    start_delay: Micros,
    /// `Some` while aligning: the time of the first barrier.
    started_at: Option<Micros>,
    bytes_during_alignment: u64,
    /// Set by `mark_end`: the final duration and bytes of `checkpoint_id`.
    finished: Option<(Micros, u64)>,
}

/// The three numbers a triggered checkpoint reports for this subtask.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct CheckpointMetricsSnapshot {
    pub start_delay: Micros,
    pub alignment_duration: Micros,
    pub bytes_processed_during_alignment: u64,
}

impl AlignmentMetrics {
    /// First barrier of `id`: start delay is `now - trigger timestamp`, never negative.
    pub fn mark_start(&mut self, id: CheckpointId, barrier_timestamp: Micros, now: Micros) {
        self.checkpoint_id = Some(id);
        self.start_delay = now.saturating_sub(barrier_timestamp);
        self.started_at = Some(now);
        self.bytes_during_alignment = 0;
        self.finished = None;
    }

    /// Last barrier: freezes duration and bytes. Outside an alignment it is a no-op.
    pub fn mark_end(&mut self, now: Micros) {
        if let Some(start) = self.started_at.take() {
            self.finished = Some((now.saturating_sub(start), self.bytes_during_alignment));
            self.bytes_during_alignment = 0;
        }
    }

    /// A single channel has nothing to align: duration 0 (`markAlignmentStartAndEnd`).
    pub fn mark_start_and_end(&mut self, id: CheckpointId, barrier_timestamp: Micros, now: Micros) {
        self.mark_start(id, barrier_timestamp, now);
        self.mark_end(now);
    }

    /// `resetAlignment` after an abort: the aborted checkpoint reports nothing.
    pub fn reset(&mut self) {
        self.started_at = None;
        self.bytes_during_alignment = 0;
        self.finished = None;
        self.checkpoint_id = None;
    }

    pub fn is_during_alignment(&self) -> bool {
        self.started_at.is_some()
    }

    pub fn add_processed_bytes(&mut self, bytes: u64) {
        if self.is_during_alignment() {
            self.bytes_during_alignment = self.bytes_during_alignment.saturating_add(bytes);
        }
    }

    /// What `notifyCheckpoint` reports for `id` at `now`: the alignment's values if `id` is the
    /// checkpoint being measured (so far, if still aligning), zeros otherwise, as in Flink.
    pub fn snapshot(&self, id: CheckpointId, now: Micros) -> CheckpointMetricsSnapshot {
        if self.checkpoint_id != Some(id) {
            return CheckpointMetricsSnapshot::default();
        }
        let (alignment_duration, bytes) = match (self.finished, self.started_at) {
            (Some(done), _) => done,
            (None, Some(start)) => (now.saturating_sub(start), self.bytes_during_alignment),
            (None, None) => (0, 0),
        };
        CheckpointMetricsSnapshot {
            start_delay: self.start_delay,
            alignment_duration,
            bytes_processed_during_alignment: bytes,
        }
    }
}
