//! Barrier handling at a task's input: Flink's `CheckpointBarrierTracker` (at-least-once) and
//! `SingleCheckpointBarrierHandler` with its states (aligned, unaligned, aligned with timeout),
//! plus the `ChannelStatePersister` accounting of unaligned input channel state.
//!
//! Every handler is a pure state machine: one [`HandlerInput`] in, a list of [`HandlerEffect`]s
//! out, time passed in as `now`.

mod aligned_state;
mod alternating_aligned_state;
mod alternating_unaligned_state;
mod controller;
pub mod event;
pub mod metrics;
pub mod options;
pub mod persister;
pub mod single;
pub mod state;
pub mod tracker;

#[cfg(test)]
mod tests;

pub use event::{AbortReason, HandlerEffect, HandlerInput};
pub use options::{AlignmentType, CheckpointBarrier, CheckpointOptions, CheckpointType};
pub use persister::ChannelStatePersister;
pub use single::{SingleCheckpointBarrierHandler, SingleMode};
pub use state::BarrierHandlerState;
pub use tracker::CheckpointBarrierTracker;

use serde::{Deserialize, Serialize};

use crate::types::{ChannelIndex, CheckpointId, Micros};

/// What the task and the UI read from any barrier handler. Inputs go through
/// [`AnyBarrierHandler::handle_into`]: only the read side needs dynamic dispatch.
pub trait BarrierHandler {
    /// The Flink class name of the current state (the tracker has one: its own).
    fn state_name(&self) -> &'static str;
    fn current_checkpoint_id(&self) -> Option<CheckpointId>;
    /// Channels blocked for alignment, in ascending order (readers binary-search them).
    fn blocked_channels(&self) -> Vec<ChannelIndex>;
    /// Channels whose barrier arrived for the (newest) pending checkpoint.
    fn aligned_channels(&self) -> Vec<ChannelIndex>;
    fn pending_checkpoint_ids(&self) -> Vec<CheckpointId>;
    fn num_open_channels(&self) -> u32;
    fn persister(&self) -> &ChannelStatePersister;
    /// `isDuringAlignment`: the alignment metrics of a checkpoint are running.
    fn is_during_alignment(&self) -> bool;
}

impl BarrierHandler for CheckpointBarrierTracker {
    fn state_name(&self) -> &'static str {
        CheckpointBarrierTracker::state_name(self)
    }
    fn current_checkpoint_id(&self) -> Option<CheckpointId> {
        CheckpointBarrierTracker::current_checkpoint_id(self)
    }
    fn blocked_channels(&self) -> Vec<ChannelIndex> {
        Vec::new()
    }
    fn aligned_channels(&self) -> Vec<ChannelIndex> {
        CheckpointBarrierTracker::aligned_channels(self)
    }
    fn pending_checkpoint_ids(&self) -> Vec<CheckpointId> {
        CheckpointBarrierTracker::pending_checkpoint_ids(self)
    }
    fn num_open_channels(&self) -> u32 {
        CheckpointBarrierTracker::num_open_channels(self)
    }
    fn persister(&self) -> &ChannelStatePersister {
        CheckpointBarrierTracker::persister(self)
    }
    fn is_during_alignment(&self) -> bool {
        CheckpointBarrierTracker::is_during_alignment(self)
    }
}

impl BarrierHandler for SingleCheckpointBarrierHandler {
    fn state_name(&self) -> &'static str {
        SingleCheckpointBarrierHandler::state_name(self)
    }
    fn current_checkpoint_id(&self) -> Option<CheckpointId> {
        SingleCheckpointBarrierHandler::current_checkpoint_id(self)
    }
    fn blocked_channels(&self) -> Vec<ChannelIndex> {
        SingleCheckpointBarrierHandler::blocked_channels(self)
    }
    fn aligned_channels(&self) -> Vec<ChannelIndex> {
        SingleCheckpointBarrierHandler::aligned_channels(self)
    }
    fn pending_checkpoint_ids(&self) -> Vec<CheckpointId> {
        SingleCheckpointBarrierHandler::pending_checkpoint_ids(self)
    }
    fn num_open_channels(&self) -> u32 {
        SingleCheckpointBarrierHandler::num_open_channels(self)
    }
    fn persister(&self) -> &ChannelStatePersister {
        SingleCheckpointBarrierHandler::persister(self)
    }
    fn is_during_alignment(&self) -> bool {
        SingleCheckpointBarrierHandler::is_during_alignment(self)
    }
}

/// The handler a task builds from the job's checkpointing mode (`InputProcessorUtil`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum AnyBarrierHandler {
    Tracker(CheckpointBarrierTracker),
    Single(SingleCheckpointBarrierHandler),
}

impl AnyBarrierHandler {
    /// At-least-once → tracker; exactly-once → aligned handler, or the alternating one when
    /// unaligned checkpoints are enabled (Flink then lets each barrier's options decide). Flink
    /// rejects unaligned with at-least-once; here the tracker is used and the flag ignored.
    pub fn for_mode(exactly_once: bool, unaligned_enabled: bool, num_channels: u32) -> Self {
        if !exactly_once {
            AnyBarrierHandler::Tracker(CheckpointBarrierTracker::new(num_channels))
        } else if unaligned_enabled {
            AnyBarrierHandler::Single(SingleCheckpointBarrierHandler::alternating(num_channels))
        } else {
            AnyBarrierHandler::Single(SingleCheckpointBarrierHandler::aligned(num_channels))
        }
    }

    pub fn handle(&mut self, now: Micros, input: HandlerInput) -> Vec<HandlerEffect> {
        let mut out = Vec::new();
        self.handle_into(now, input, &mut out);
        out
    }

    /// `handle`, appending the effects to `out` (lets a caller reuse one buffer).
    pub fn handle_into(&mut self, now: Micros, input: HandlerInput, out: &mut Vec<HandlerEffect>) {
        match self {
            AnyBarrierHandler::Tracker(t) => t.handle_into(now, input, out),
            AnyBarrierHandler::Single(s) => s.handle_into(now, input, out),
        }
    }

    /// `handle_into` for a data buffer when the caller ignores [`HandlerEffect::Process`]: the
    /// aligned handlers skip building effects for the common case.
    pub fn handle_buffer_into(
        &mut self,
        now: Micros,
        channel: ChannelIndex,
        bytes: u64,
        out: &mut Vec<HandlerEffect>,
    ) {
        match self {
            AnyBarrierHandler::Tracker(t) => {
                t.handle_into(now, HandlerInput::Buffer { channel, bytes }, out)
            }
            AnyBarrierHandler::Single(s) => s.handle_buffer_into(now, channel, bytes, out),
        }
    }

    /// Frees the persisted-bytes accounting of checkpoints `<= id` (the tracker keeps none).
    pub fn discard_persisted_up_to(&mut self, id: CheckpointId) {
        if let AnyBarrierHandler::Single(s) = self {
            s.discard_persisted_up_to(id);
        }
    }

    /// See [`SingleCheckpointBarrierHandler::close`]; the tracker has no timer to cancel.
    pub fn close(&mut self) {
        if let AnyBarrierHandler::Single(s) = self {
            s.close();
        }
    }

    /// See [`SingleCheckpointBarrierHandler::announced_channels`]; the tracker keeps none.
    pub fn announced_channels(&self) -> Vec<(ChannelIndex, u32)> {
        match self {
            AnyBarrierHandler::Tracker(_) => Vec::new(),
            AnyBarrierHandler::Single(s) => s.announced_channels(),
        }
    }

    fn inner(&self) -> &dyn BarrierHandler {
        match self {
            AnyBarrierHandler::Tracker(t) => t,
            AnyBarrierHandler::Single(s) => s,
        }
    }
}

impl BarrierHandler for AnyBarrierHandler {
    fn state_name(&self) -> &'static str {
        self.inner().state_name()
    }
    fn current_checkpoint_id(&self) -> Option<CheckpointId> {
        self.inner().current_checkpoint_id()
    }
    fn blocked_channels(&self) -> Vec<ChannelIndex> {
        self.inner().blocked_channels()
    }
    fn aligned_channels(&self) -> Vec<ChannelIndex> {
        self.inner().aligned_channels()
    }
    fn pending_checkpoint_ids(&self) -> Vec<CheckpointId> {
        self.inner().pending_checkpoint_ids()
    }
    fn num_open_channels(&self) -> u32 {
        self.inner().num_open_channels()
    }
    fn persister(&self) -> &ChannelStatePersister {
        self.inner().persister()
    }
    fn is_during_alignment(&self) -> bool {
        self.inner().is_during_alignment()
    }
}
