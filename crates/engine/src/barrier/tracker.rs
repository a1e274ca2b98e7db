//! `CheckpointBarrierTracker`: at-least-once. Nothing is blocked; barriers are only counted, per
//! checkpoint id, and several checkpoints may be in flight at once.

use std::collections::{BTreeSet, VecDeque};

use serde::{Deserialize, Serialize};

use super::event::{AbortReason, HandlerEffect, HandlerInput};
use super::metrics::AlignmentMetrics;
use super::options::CheckpointBarrier;
use super::persister::ChannelStatePersister;
use crate::types::{ChannelIndex, CheckpointId, Micros};

/// Flink bounds the number of partially-seen checkpoints it remembers.
pub const MAX_CHECKPOINTS_TO_TRACK: usize = 50;

/// `CheckpointBarrierCount`: one partially-seen checkpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckpointBarrierCount {
    pub id: CheckpointId,
    /// `None` for a checkpoint first seen through a cancel marker.
    pub barrier: Option<CheckpointBarrier>,
    pub aligned_channels: BTreeSet<ChannelIndex>,
    pub target_channel_count: u32,
    pub aborted: bool,
}

impl CheckpointBarrierCount {
    fn mark_channel_aligned(&mut self, channel: ChannelIndex) -> bool {
        self.aligned_channels.insert(channel);
        self.aligned_channels.len() as u64 >= u64::from(self.target_channel_count)
    }

    /// True the first time only, so each checkpoint is aborted once.
    fn mark_aborted(&mut self) -> bool {
        !std::mem::replace(&mut self.aborted, true)
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CheckpointBarrierTracker {
    num_channels: u32,
    num_open_channels: u32,
    finished: BTreeSet<ChannelIndex>,
    /// Oldest first; ids ascend.
    pending: VecDeque<CheckpointBarrierCount>,
    latest_pending_checkpoint_id: Option<CheckpointId>,
    checkpoints_after_tasks_finish: bool,
    metrics: AlignmentMetrics,
    /// Always empty: at-least-once never records channel state. Kept for a uniform API.
    persister: ChannelStatePersister,
    now: Micros,
    effects: Vec<HandlerEffect>,
}

impl CheckpointBarrierTracker {
    pub fn new(num_channels: u32) -> Self {
        CheckpointBarrierTracker {
            num_channels,
            num_open_channels: num_channels,
            finished: BTreeSet::new(),
            pending: VecDeque::new(),
            latest_pending_checkpoint_id: None,
            checkpoints_after_tasks_finish: true,
            metrics: AlignmentMetrics::default(),
            persister: ChannelStatePersister::new(),
            now: 0,
            effects: Vec::new(),
        }
    }

    /// See `SingleCheckpointBarrierHandler::with_checkpoints_after_tasks_finish`.
    pub fn with_checkpoints_after_tasks_finish(mut self, enabled: bool) -> Self {
        self.checkpoints_after_tasks_finish = enabled;
        self
    }

    pub fn state_name(&self) -> &'static str {
        "CheckpointBarrierTracker"
    }

    /// The newest checkpoint id seen through a barrier or cancel marker.
    pub fn current_checkpoint_id(&self) -> Option<CheckpointId> {
        self.latest_pending_checkpoint_id
    }

    pub fn pending_checkpoint_ids(&self) -> Vec<CheckpointId> {
        self.pending.iter().map(|c| c.id).collect()
    }

    /// The partially-seen checkpoints, oldest first.
    pub fn pending_checkpoints(&self) -> &VecDeque<CheckpointBarrierCount> {
        &self.pending
    }

    /// Channels whose barrier arrived for the newest pending checkpoint.
    pub fn aligned_channels(&self) -> Vec<ChannelIndex> {
        self.pending
            .back()
            .map(|c| c.aligned_channels.iter().copied().collect())
            .unwrap_or_default()
    }

    pub fn num_open_channels(&self) -> u32 {
        self.num_open_channels
    }

    pub fn persister(&self) -> &ChannelStatePersister {
        &self.persister
    }

    /// `isDuringAlignment`: between the first and the last barrier of a checkpoint.
    pub fn is_during_alignment(&self) -> bool {
        self.metrics.is_during_alignment()
    }

    pub fn handle(&mut self, now: Micros, input: HandlerInput) -> Vec<HandlerEffect> {
        let mut out = Vec::new();
        self.handle_into(now, input, &mut out);
        out
    }

    /// [`Self::handle`], appending to `out`: the caller's buffer is reused, nothing allocates.
    pub fn handle_into(&mut self, now: Micros, input: HandlerInput, out: &mut Vec<HandlerEffect>) {
        self.now = now;
        self.effects.clear();
        match input {
            HandlerInput::Buffer { channel, bytes } => {
                if self.check_open_channel(channel, "buffer") {
                    self.metrics.add_processed_bytes(bytes);
                    self.effects.push(HandlerEffect::Process { channel, bytes });
                }
            }
            HandlerInput::Barrier { channel, barrier } => {
                if self.check_open_channel(channel, "barrier") {
                    self.process_barrier(channel, barrier);
                }
            }
            // At-least-once never waits for a barrier, so its announcement means nothing.
            HandlerInput::BarrierAnnouncement { channel, .. } => {
                self.check_open_channel(channel, "barrier announcement");
            }
            HandlerInput::CancelMarker { channel, id } => {
                if self.check_open_channel(channel, "cancel marker") {
                    self.process_cancellation_barrier(channel, id);
                }
            }
            HandlerInput::EndOfPartition { channel } => {
                if self.check_open_channel(channel, "end of partition") {
                    self.process_end_of_partition(channel);
                }
            }
            // The tracker never asks for timers; a stray one changes nothing.
            HandlerInput::AlignmentTimeout { .. } => {}
        }
        out.append(&mut self.effects);
    }

    fn check_open_channel(&mut self, channel: ChannelIndex, what: &str) -> bool {
        let message = if channel >= self.num_channels {
            format!(
                "{what} on channel {channel}, but the gate has {} channels",
                self.num_channels
            )
        } else if self.finished.contains(&channel) {
            format!("{what} on channel {channel} after its end of partition")
        } else {
            return true;
        };
        self.effects.push(HandlerEffect::Error { message });
        false
    }

    fn is_newer(&self, id: CheckpointId) -> bool {
        self.latest_pending_checkpoint_id.is_none_or(|l| id > l)
    }

    fn process_barrier(&mut self, channel: ChannelIndex, barrier: CheckpointBarrier) {
        let id = barrier.id;
        // Fast path: one channel, nothing to count.
        if self.is_newer(id) && self.num_open_channels == 1 {
            self.metrics
                .mark_start_and_end(id, barrier.timestamp, self.now);
            self.notify_checkpoint(barrier);
            return;
        }
        if let Some(pos) = self.pending.iter().position(|c| c.id == id) {
            if self.pending[pos].mark_channel_aligned(channel) {
                self.complete_up_to(pos);
            }
        } else if self.is_newer(id) {
            // Only a newer id can still succeed; an older unknown one was already dropped.
            self.metrics.mark_start(id, barrier.timestamp, self.now);
            self.latest_pending_checkpoint_id = Some(id);
            self.pending.push_back(CheckpointBarrierCount {
                id,
                barrier: Some(barrier),
                aligned_channels: BTreeSet::from([channel]),
                target_channel_count: self.num_open_channels,
                aborted: false,
            });
            if self.pending.len() > MAX_CHECKPOINTS_TO_TRACK {
                self.pending.pop_front();
            }
        }
    }

    /// The checkpoint at `pos` has all its barriers: it and every older pending one leave the
    /// queue. The older ones are dropped silently, as in Flink (`pollFirst` up to `pos`): no
    /// abort, no cancel marker; the coordinator subsumes them when the newer one completes.
    fn complete_up_to(&mut self, pos: usize) {
        // Dropping the drain removes the whole range, the older counts included.
        let Some(last) = self.pending.drain(..=pos).next_back() else {
            return;
        };
        if last.aborted {
            return;
        }
        if let Some(barrier) = last.barrier {
            // Only the newest checkpoint's alignment is measured (Flink keeps one at a time).
            if Some(last.id) == self.latest_pending_checkpoint_id {
                self.metrics.mark_end(self.now);
            }
            self.notify_checkpoint(barrier);
        }
    }

    fn notify_checkpoint(&mut self, barrier: CheckpointBarrier) {
        let m = self.metrics.snapshot(barrier.id, self.now);
        self.effects.push(HandlerEffect::TriggerCheckpoint {
            barrier,
            start_delay: m.start_delay,
            alignment_duration: m.alignment_duration,
            bytes_processed_during_alignment: m.bytes_processed_during_alignment,
        });
    }

    fn abort_on_cancellation(&mut self, id: CheckpointId) {
        self.effects.push(HandlerEffect::AbortCheckpoint {
            id,
            reason: AbortReason::CheckpointDeclinedOnCancellationBarrier,
        });
    }

    fn process_cancellation_barrier(&mut self, channel: ChannelIndex, id: CheckpointId) {
        if self.is_newer(id) && self.num_open_channels == 1 {
            self.metrics.reset();
            self.abort_on_cancellation(id);
            return;
        }
        // Everything older than the cancelled id is aborted on the way.
        while self.pending.front().is_some_and(|c| c.id < id) {
            if let Some(mut older) = self.pending.pop_front() {
                if older.mark_aborted() {
                    self.abort_on_cancellation(older.id);
                }
            }
        }
        if let Some(front) = self.pending.front_mut().filter(|c| c.id == id) {
            let first_abort = front.mark_aborted();
            // Keep counting so the entry leaves once every channel has reported.
            let all_in = front.mark_channel_aligned(channel);
            if first_abort {
                self.abort_on_cancellation(id);
            }
            if all_in {
                self.pending.pop_front();
            }
        } else if self.is_newer(id) {
            self.abort_on_cancellation(id);
            self.latest_pending_checkpoint_id = Some(id);
            self.pending.push_front(CheckpointBarrierCount {
                id,
                barrier: None,
                aligned_channels: BTreeSet::from([channel]),
                target_channel_count: self.num_open_channels,
                aborted: true,
            });
        }
    }

    fn process_end_of_partition(&mut self, channel: ChannelIndex) {
        self.finished.insert(channel);
        self.num_open_channels = self.num_open_channels.saturating_sub(1);
        if !self.checkpoints_after_tasks_finish {
            while let Some(mut count) = self.pending.pop_front() {
                if count.mark_aborted() {
                    self.effects.push(HandlerEffect::AbortCheckpoint {
                        id: count.id,
                        reason: AbortReason::CheckpointDeclinedInputEndOfStream,
                    });
                }
            }
            self.metrics.reset();
            return;
        }
        // The finished channel counts as aligned everywhere; the newest checkpoint that is now
        // complete wins (older ones go with it).
        let mut complete = None;
        for pos in (0..self.pending.len()).rev() {
            if self.pending[pos].mark_channel_aligned(channel) {
                complete = Some(pos);
                break;
            }
        }
        if let Some(pos) = complete {
            self.complete_up_to(pos);
        }
    }
}
