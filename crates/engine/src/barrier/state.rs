//! Flink's `BarrierHandlerState` implementations as one enum. Each variant is named after the
//! Flink class; the transitions live in the files of their abstract Flink parent.

use serde::{Deserialize, Serialize};

use super::controller::Core;
use super::options::CheckpointBarrier;
use super::{aligned_state, alternating_aligned_state, alternating_unaligned_state};
use crate::types::{ChannelIndex, CheckpointId};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum BarrierHandlerState {
    /// Aligned only: no barrier of the next checkpoint seen yet.
    WaitingForFirstBarrier,
    /// Aligned only: some channels blocked, waiting for the rest.
    CollectingBarriers,
    /// Aligned with timeout: no barrier seen yet.
    AlternatingWaitingForFirstBarrier,
    /// Aligned with timeout: aligning, the timer may switch to unaligned.
    AlternatingCollectingBarriers,
    /// Unaligned: no barrier seen yet. `alternating` says where to return afterwards.
    AlternatingWaitingForFirstBarrierUnaligned { alternating: bool },
    /// Unaligned: checkpoint triggered, channels without a barrier are recording.
    AlternatingCollectingBarriersUnaligned { alternating: bool },
}

impl BarrierHandlerState {
    /// The Flink class name, for the UI and traces.
    pub fn name(&self) -> &'static str {
        match self {
            BarrierHandlerState::WaitingForFirstBarrier => "WaitingForFirstBarrier",
            BarrierHandlerState::CollectingBarriers => "CollectingBarriers",
            BarrierHandlerState::AlternatingWaitingForFirstBarrier => {
                "AlternatingWaitingForFirstBarrier"
            }
            BarrierHandlerState::AlternatingCollectingBarriers => "AlternatingCollectingBarriers",
            BarrierHandlerState::AlternatingWaitingForFirstBarrierUnaligned { .. } => {
                "AlternatingWaitingForFirstBarrierUnaligned"
            }
            BarrierHandlerState::AlternatingCollectingBarriersUnaligned { .. } => {
                "AlternatingCollectingBarriersUnaligned"
            }
        }
    }

    fn family(self) -> Family {
        match self {
            BarrierHandlerState::WaitingForFirstBarrier
            | BarrierHandlerState::CollectingBarriers => Family::Aligned,
            BarrierHandlerState::AlternatingWaitingForFirstBarrier
            | BarrierHandlerState::AlternatingCollectingBarriers => Family::AlternatingAligned,
            _ => Family::Unaligned,
        }
    }

    pub(super) fn barrier_received(
        self,
        core: &mut Core,
        channel: ChannelIndex,
        barrier: CheckpointBarrier,
    ) -> BarrierHandlerState {
        match self.family() {
            Family::Aligned => aligned_state::barrier_received(self, core, channel, barrier),
            Family::AlternatingAligned => {
                alternating_aligned_state::barrier_received(self, core, channel, barrier)
            }
            Family::Unaligned => {
                alternating_unaligned_state::barrier_received(self, core, channel, barrier)
            }
        }
    }

    /// `announcementReceived`: only the states that may still switch to unaligned care.
    pub(super) fn announcement_received(
        self,
        core: &mut Core,
        channel: ChannelIndex,
        sequence_number: u32,
    ) -> BarrierHandlerState {
        match self.family() {
            // Aligned without timeout: the barrier must be waited for anyway.
            Family::Aligned => self,
            Family::AlternatingAligned => alternating_aligned_state::announcement_received(
                self,
                core,
                channel,
                sequence_number,
            ),
            Family::Unaligned => alternating_unaligned_state::announcement_received(
                self,
                core,
                channel,
                sequence_number,
            ),
        }
    }

    pub(super) fn aligned_checkpoint_timeout(
        self,
        core: &mut Core,
        barrier: CheckpointBarrier,
    ) -> BarrierHandlerState {
        match self.family() {
            // A plain aligned handler never registers a timer.
            Family::Aligned => self,
            Family::AlternatingAligned => {
                alternating_aligned_state::aligned_checkpoint_timeout(self, core, barrier)
            }
            // Already unaligned: nothing to switch.
            Family::Unaligned => self,
        }
    }

    pub(super) fn end_of_partition_received(
        self,
        core: &mut Core,
        channel: ChannelIndex,
    ) -> BarrierHandlerState {
        match self.family() {
            Family::Aligned => aligned_state::end_of_partition_received(self, core, channel),
            Family::AlternatingAligned => {
                alternating_aligned_state::end_of_partition_received(self, core, channel)
            }
            Family::Unaligned => {
                alternating_unaligned_state::end_of_partition_received(self, core, channel)
            }
        }
    }

    pub(super) fn abort(self, core: &mut Core, cancelled_id: CheckpointId) -> BarrierHandlerState {
        match self.family() {
            Family::Aligned => aligned_state::finish_checkpoint(core),
            Family::AlternatingAligned => alternating_aligned_state::finish_checkpoint(core),
            Family::Unaligned => alternating_unaligned_state::abort(self, core, cancelled_id),
        }
    }
}

/// The abstract Flink parent a state shares its transitions with.
#[derive(Clone, Copy)]
enum Family {
    Aligned,
    AlternatingAligned,
    Unaligned,
}
