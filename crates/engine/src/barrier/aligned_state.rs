//! `AbstractAlignedBarrierHandlerState` with its two states `WaitingForFirstBarrier` and
//! `CollectingBarriers`: exactly-once without unaligned checkpoints.

use super::controller::Core;
use super::options::CheckpointBarrier;
use super::state::BarrierHandlerState;
use crate::types::ChannelIndex;

/// Each barrier blocks its channel; the last one triggers the checkpoint and unblocks all.
pub(super) fn barrier_received(
    _state: BarrierHandlerState,
    core: &mut Core,
    channel: ChannelIndex,
    barrier: CheckpointBarrier,
) -> BarrierHandlerState {
    core.block_channel(channel);
    if core.all_barriers_received() {
        core.trigger_global_checkpoint(barrier);
        return finish_checkpoint(core);
    }
    BarrierHandlerState::CollectingBarriers
}

/// A finished channel counts as aligned; it may be the one the alignment was waiting for.
pub(super) fn end_of_partition_received(
    state: BarrierHandlerState,
    core: &mut Core,
    channel: ChannelIndex,
) -> BarrierHandlerState {
    core.channel_finished(channel);
    if state == BarrierHandlerState::WaitingForFirstBarrier {
        return state;
    }
    match core.pending_barrier {
        Some(pending) if core.all_barriers_received() => {
            core.trigger_global_checkpoint(pending);
            finish_checkpoint(core)
        }
        _ => state,
    }
}

/// Completed or aborted: let every blocked upstream send again.
pub(super) fn finish_checkpoint(core: &mut Core) -> BarrierHandlerState {
    core.unblock_all_channels();
    BarrierHandlerState::WaitingForFirstBarrier
}
