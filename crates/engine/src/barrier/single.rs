//! `SingleCheckpointBarrierHandler`: one checkpoint at a time, exactly-once. Which states it
//! walks through (aligned, unaligned, aligned-with-timeout) is chosen at construction.

use serde::{Deserialize, Serialize};

use super::controller::Core;
use super::event::{AbortReason, HandlerEffect, HandlerInput};
use super::options::CheckpointBarrier;
use super::persister::ChannelStatePersister;
use super::state::BarrierHandlerState;
use crate::types::{ChannelIndex, CheckpointId, Micros};

/// Flink's three factories `aligned()`, `unaligned()` and `alternating()`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum SingleMode {
    Aligned,
    Unaligned,
    Alternating,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SingleCheckpointBarrierHandler {
    mode: SingleMode,
    checkpoints_after_tasks_finish: bool,
    /// Data may arrive on a blocked channel (an upstream that does not stop after an aligned
    /// barrier, as Flink's `TestInputChannel`); otherwise such a buffer is an `Error`.
    data_on_blocked_channels: bool,
    state: BarrierHandlerState,
    core: Core,
    num_open_channels: u32,
    current_checkpoint_id: Option<CheckpointId>,
    last_cancelled_or_completed: Option<CheckpointId>,
    /// The alignment timer asked for: (checkpoint, fire time).
    alignment_timer: Option<(CheckpointId, Micros)>,
    /// The timer's time had already passed when it was due to be registered: fire it after the
    /// current barrier, as Flink's zero-delay timer would.
    timer_due_now: bool,
}

impl SingleCheckpointBarrierHandler {
    /// The plain aligned handler (exactly-once, unaligned checkpoints disabled).
    pub fn new(num_channels: u32) -> Self {
        Self::with_mode(SingleMode::Aligned, num_channels)
    }

    pub fn aligned(num_channels: u32) -> Self {
        Self::with_mode(SingleMode::Aligned, num_channels)
    }

    /// Strictly unaligned: every checkpoint is handled unaligned, even an aligned barrier.
    pub fn unaligned(num_channels: u32) -> Self {
        Self::with_mode(SingleMode::Unaligned, num_channels)
    }

    /// What Flink uses whenever unaligned checkpoints are enabled: each barrier's options decide
    /// (aligned savepoint, unaligned from the start, or aligned with timeout).
    pub fn alternating(num_channels: u32) -> Self {
        Self::with_mode(SingleMode::Alternating, num_channels)
    }

    pub fn with_mode(mode: SingleMode, num_channels: u32) -> Self {
        let state = match mode {
            SingleMode::Aligned => BarrierHandlerState::WaitingForFirstBarrier,
            SingleMode::Unaligned => {
                BarrierHandlerState::AlternatingWaitingForFirstBarrierUnaligned {
                    alternating: false,
                }
            }
            SingleMode::Alternating => BarrierHandlerState::AlternatingWaitingForFirstBarrier,
        };
        SingleCheckpointBarrierHandler {
            mode,
            checkpoints_after_tasks_finish: true,
            data_on_blocked_channels: false,
            state,
            core: Core::new(num_channels),
            num_open_channels: num_channels,
            current_checkpoint_id: None,
            last_cancelled_or_completed: None,
            alignment_timer: None,
            timer_due_now: false,
        }
    }

    /// `execution.checkpointing.checkpoints-after-tasks-finish` (default true). When false, an
    /// end of partition during a pending checkpoint aborts it with INPUT_END_OF_STREAM.
    pub fn with_checkpoints_after_tasks_finish(mut self, enabled: bool) -> Self {
        self.checkpoints_after_tasks_finish = enabled;
        self
    }

    /// Accepts data on a blocked channel instead of reporting an `Error`: the replay's input
    /// channels that, like Flink's `TestInputChannel`, do not stop after an aligned barrier.
    pub fn with_data_on_blocked_channels(mut self, accepted: bool) -> Self {
        self.data_on_blocked_channels = accepted;
        self
    }

    pub fn mode(&self) -> SingleMode {
        self.mode
    }

    pub fn state(&self) -> BarrierHandlerState {
        self.state
    }

    pub fn state_name(&self) -> &'static str {
        self.state.name()
    }

    pub fn current_checkpoint_id(&self) -> Option<CheckpointId> {
        self.current_checkpoint_id
    }

    /// `isCheckpointPending`: a checkpoint started here that is neither completed nor aborted.
    pub fn is_checkpoint_pending(&self) -> bool {
        self.current_checkpoint_id.is_some()
            && self.current_checkpoint_id != self.last_cancelled_or_completed
    }

    pub fn pending_checkpoint_ids(&self) -> Vec<CheckpointId> {
        match self.current_checkpoint_id {
            Some(id) if self.is_checkpoint_pending() => vec![id],
            _ => Vec::new(),
        }
    }

    pub fn blocked_channels(&self) -> Vec<ChannelIndex> {
        self.core.blocked.iter().copied().collect()
    }

    /// Channels whose barrier (or end of partition) arrived for the pending checkpoint.
    pub fn aligned_channels(&self) -> Vec<ChannelIndex> {
        self.core.aligned.iter().copied().collect()
    }

    pub fn num_open_channels(&self) -> u32 {
        self.num_open_channels
    }

    /// `close`: the alignment timer is cancelled, so it can no longer switch a checkpoint to
    /// unaligned.
    pub fn close(&mut self) {
        self.alignment_timer = None;
    }

    pub fn alignment_timer(&self) -> Option<(CheckpointId, Micros)> {
        self.alignment_timer
    }

    pub fn persister(&self) -> &ChannelStatePersister {
        &self.core.persister
    }

    /// `isDuringAlignment`: the first barrier (or end of partition) of the pending checkpoint
    /// started the alignment metrics, and the last has not ended them.
    pub fn is_during_alignment(&self) -> bool {
        self.core.metrics.is_during_alignment()
    }

    /// Channels whose barrier was announced but has not arrived, with its sequence number.
    pub fn announced_channels(&self) -> Vec<(ChannelIndex, u32)> {
        self.core
            .announced
            .iter()
            .map(|(channel, seq)| (*channel, *seq))
            .collect()
    }

    /// Frees the persisted-bytes accounting of checkpoints `<= id` once the task is done with it.
    pub fn discard_persisted_up_to(&mut self, id: CheckpointId) {
        self.core.persister.discard_up_to(id);
    }

    pub fn handle(&mut self, now: Micros, input: HandlerInput) -> Vec<HandlerEffect> {
        let mut out = Vec::new();
        self.handle_into(now, input, &mut out);
        out
    }

    /// [`Self::handle`], appending to `out`: the caller's buffer is reused, nothing allocates.
    pub fn handle_into(&mut self, now: Micros, input: HandlerInput, out: &mut Vec<HandlerEffect>) {
        self.core.now = now;
        self.core.effects.clear();
        match input {
            HandlerInput::Buffer { channel, bytes } => {
                if self.check_open_channel(channel, "buffer") {
                    self.process_buffer(channel, bytes);
                }
            }
            HandlerInput::Barrier { channel, barrier } => {
                if self.check_open_channel(channel, "barrier") {
                    self.process_barrier(channel, barrier);
                }
            }
            HandlerInput::BarrierAnnouncement {
                channel,
                barrier,
                sequence_number,
            } => {
                if self.check_open_channel(channel, "barrier announcement") {
                    self.process_barrier_announcement(channel, barrier, sequence_number);
                }
            }
            HandlerInput::CancelMarker { channel, id } => {
                if self.check_open_channel(channel, "cancel marker") {
                    self.process_cancellation_barrier(id);
                }
            }
            HandlerInput::EndOfPartition { channel } => {
                if self.check_open_channel(channel, "end of partition") {
                    self.process_end_of_partition(channel);
                }
            }
            HandlerInput::AlignmentTimeout { id } => self.process_alignment_timeout(id),
        }
        out.append(&mut self.core.effects);
    }

    /// [`Self::handle_into`] for a data buffer, for a caller that ignores
    /// [`HandlerEffect::Process`]: on an open, unblocked channel that no checkpoint records (the
    /// common case) only the alignment metrics change, and no effect list is built.
    pub fn handle_buffer_into(
        &mut self,
        now: Micros,
        channel: ChannelIndex,
        bytes: u64,
        out: &mut Vec<HandlerEffect>,
    ) {
        let core = &mut self.core;
        let quiet = channel < core.num_channels
            && !core.finished.contains(&channel)
            && !core.blocked.contains(&channel)
            && core.persister.persisting_for(channel).is_none();
        if quiet {
            core.now = now;
            core.metrics.add_processed_bytes(bytes);
        } else {
            self.handle_into(now, HandlerInput::Buffer { channel, bytes }, out);
        }
    }

    /// Rejects what a real input gate cannot deliver: unknown or finished channels.
    fn check_open_channel(&mut self, channel: ChannelIndex, what: &str) -> bool {
        if channel >= self.core.num_channels {
            self.core.error(format!(
                "{what} on channel {channel}, but the gate has {} channels",
                self.core.num_channels
            ));
            return false;
        }
        if self.core.finished.contains(&channel) {
            self.core.error(format!(
                "{what} on channel {channel} after its end of partition"
            ));
            return false;
        }
        true
    }

    fn process_buffer(&mut self, channel: ChannelIndex, bytes: u64) {
        if self.core.blocked.contains(&channel) && !self.data_on_blocked_channels {
            self.core.error(format!(
                "buffer on blocked channel {channel}: its upstream must not send until resumed"
            ));
            return;
        }
        if let Some(id) = self.core.persister.persisting_for(channel) {
            self.core
                .emit(HandlerEffect::PersistInFlight { channel, id, bytes });
        }
        self.core.metrics.add_processed_bytes(bytes);
        self.core.emit(HandlerEffect::Process { channel, bytes });
    }

    fn process_barrier(&mut self, channel: ChannelIndex, barrier: CheckpointBarrier) {
        if self.mode == SingleMode::Aligned && barrier.options.is_unaligned() {
            self.core.error(format!(
                "unaligned barrier {} on channel {channel} reached an aligned-only handler",
                barrier.id
            ));
            return;
        }
        let id = barrier.id;
        let current = self.current_checkpoint_id;
        let obsolete = current.is_some_and(|c| c > id)
            || (current == Some(id) && !self.is_checkpoint_pending());
        if obsolete {
            // The upstream blocked itself when it sent an aligned barrier; let it go on.
            if !barrier.options.is_unaligned() {
                self.core.emit(HandlerEffect::ResumeConsumption { channel });
            }
            return;
        }
        if current == Some(id) && self.core.aligned.contains(&channel) {
            self.core
                .error(format!("second barrier {id} on channel {channel}"));
            return;
        }
        self.check_new_checkpoint(barrier);
        // The channel's barrier ends its share of the channel state.
        if self.core.persister.persisting_for(channel) == Some(id) {
            self.core
                .emit(HandlerEffect::StopPersisting { channel, id });
        }
        self.mark_aligned_and_transform(channel, barrier, |state, core| {
            state.barrier_received(core, channel, barrier)
        });
        if std::mem::take(&mut self.timer_due_now) {
            self.fire_alignment_timer(id);
        }
    }

    /// `processBarrierAnnouncement`: the barrier is still queued behind data, but its announcement
    /// already starts a newer checkpoint and its alignment timer. Every mode does that much; what
    /// the state makes of the announcement depends on the mode.
    fn process_barrier_announcement(
        &mut self,
        channel: ChannelIndex,
        barrier: CheckpointBarrier,
        sequence_number: u32,
    ) {
        self.check_new_checkpoint(barrier);
        let id = barrier.id;
        let current = self.current_checkpoint_id;
        if current.is_some_and(|c| c > id) || (current == Some(id) && !self.is_checkpoint_pending())
        {
            return;
        }
        self.state = self
            .state
            .announcement_received(&mut self.core, channel, sequence_number);
        // A timer already due runs right after, as Flink's zero-delay timer would.
        if std::mem::take(&mut self.timer_due_now) {
            self.fire_alignment_timer(id);
        }
    }

    /// First barrier (or announcement) of a newer id: a pending older checkpoint is subsumed.
    fn check_new_checkpoint(&mut self, barrier: CheckpointBarrier) {
        if self.current_checkpoint_id.is_some_and(|c| c >= barrier.id) {
            return;
        }
        if let (true, Some(current)) = (self.is_checkpoint_pending(), self.current_checkpoint_id) {
            self.abort_internal(current, AbortReason::CheckpointDeclinedSubsumed);
        }
        self.current_checkpoint_id = Some(barrier.id);
        self.core.pending_barrier = Some(barrier);
        self.core.aligned.clear();
        self.core.target_channel_count = self.num_open_channels;
        self.core.triggered_unaligned = false;
        if self.mode == SingleMode::Alternating {
            if let Some(fire_at) = barrier.timeout_at() {
                self.alignment_timer = Some((barrier.id, fire_at));
                if fire_at > self.core.now {
                    self.core.emit(HandlerEffect::RegisterAlignmentTimer {
                        id: barrier.id,
                        fire_at,
                    });
                } else {
                    self.timer_due_now = true;
                }
            }
        }
    }

    /// `markCheckpointAlignedAndTransformState`: alignment metrics around the state transition,
    /// and the bookkeeping once every channel is in.
    fn mark_aligned_and_transform(
        &mut self,
        channel: ChannelIndex,
        barrier: CheckpointBarrier,
        transform: impl FnOnce(BarrierHandlerState, &mut Core) -> BarrierHandlerState,
    ) {
        let core = &mut self.core;
        core.aligned.insert(channel);
        let now = core.now;
        if core.aligned.len() == 1 {
            if core.target_channel_count == 1 {
                core.metrics
                    .mark_start_and_end(barrier.id, barrier.timestamp, now);
            } else {
                core.metrics.mark_start(barrier.id, barrier.timestamp, now);
            }
        }
        // Before the transition: an aligned trigger must carry the final duration.
        let all_in = core.all_barriers_received();
        if all_in && core.target_channel_count > 1 {
            core.metrics.mark_end(now);
        }
        self.state = transform(self.state, core);
        if all_in {
            self.core.aligned.clear();
            self.last_cancelled_or_completed = self.current_checkpoint_id;
            self.alignment_timer = None;
            self.timer_due_now = false;
            if std::mem::take(&mut self.core.triggered_unaligned) {
                self.core.input_channel_state_complete(barrier.id);
            }
        }
    }

    fn process_cancellation_barrier(&mut self, cancelled_id: CheckpointId) {
        let newer = self.current_checkpoint_id.is_none_or(|c| cancelled_id > c);
        let current_in_progress =
            self.current_checkpoint_id == Some(cancelled_id) && !self.core.aligned.is_empty();
        if newer || current_in_progress {
            self.abort_internal(
                cancelled_id,
                AbortReason::CheckpointDeclinedOnCancellationBarrier,
            );
        }
    }

    /// `abortInternal`: remembering the id as cancelled makes its later barriers obsolete.
    fn abort_internal(&mut self, cancelled_id: CheckpointId, reason: AbortReason) {
        let current = self
            .current_checkpoint_id
            .map_or(cancelled_id, |c| c.max(cancelled_id));
        self.current_checkpoint_id = Some(current);
        self.last_cancelled_or_completed = Some(
            self.last_cancelled_or_completed
                .map_or(cancelled_id, |c| c.max(cancelled_id)),
        );
        self.core.pending_barrier = None;
        self.core.aligned.clear();
        self.core.target_channel_count = 0;
        self.core.triggered_unaligned = false;
        self.alignment_timer = None;
        self.timer_due_now = false;
        self.state = self.state.abort(&mut self.core, cancelled_id);
        if cancelled_id == current {
            self.core.metrics.reset();
        }
        self.core.emit(HandlerEffect::AbortCheckpoint {
            id: cancelled_id,
            reason,
        });
    }

    fn process_end_of_partition(&mut self, channel: ChannelIndex) {
        self.core.finished.insert(channel);
        self.num_open_channels = self.num_open_channels.saturating_sub(1);
        let pending = self.is_checkpoint_pending();
        if !self.checkpoints_after_tasks_finish {
            if let (true, Some(current)) = (pending, self.current_checkpoint_id) {
                self.abort_internal(current, AbortReason::CheckpointDeclinedInputEndOfStream);
            }
            self.core.channel_finished(channel);
            return;
        }
        let Some(barrier) = self.core.pending_barrier.filter(|_| pending) else {
            self.core.channel_finished(channel);
            return;
        };
        self.mark_aligned_and_transform(channel, barrier, |state, core| {
            state.end_of_partition_received(core, channel)
        });
    }

    fn process_alignment_timeout(&mut self, id: CheckpointId) {
        match self.alignment_timer {
            Some((timer_id, fire_at)) if timer_id == id => {
                if self.core.now < fire_at {
                    self.core.error(format!(
                        "alignment timer of checkpoint {id} fired at {} before its time {fire_at}",
                        self.core.now
                    ));
                    return;
                }
                self.fire_alignment_timer(id);
            }
            // A timer of a checkpoint that already completed or was aborted: Flink cancels it.
            _ => {}
        }
    }

    fn fire_alignment_timer(&mut self, id: CheckpointId) {
        self.alignment_timer = None;
        if self.current_checkpoint_id != Some(id)
            || !self.is_checkpoint_pending()
            || self.core.all_barriers_received()
        {
            return;
        }
        if let Some(barrier) = self.core.pending_barrier {
            self.state = self
                .state
                .aligned_checkpoint_timeout(&mut self.core, barrier);
        }
    }
}
