//! `AbstractAlternatingAlignedBarrierHandlerState` with `AlternatingWaitingForFirstBarrier` and
//! `AlternatingCollectingBarriers`: aligned checkpoints that switch to unaligned on timeout.

use super::controller::Core;
use super::event::HandlerEffect;
use super::options::CheckpointBarrier;
use super::state::BarrierHandlerState;
use crate::types::ChannelIndex;

/// The barrier is on its way: remember where it is, so a timeout can make it overtake the data.
pub(super) fn announcement_received(
    state: BarrierHandlerState,
    core: &mut Core,
    channel: ChannelIndex,
    sequence_number: u32,
) -> BarrierHandlerState {
    core.add_seen_announcement(channel, sequence_number);
    state
}

pub(super) fn barrier_received(
    state: BarrierHandlerState,
    core: &mut Core,
    channel: ChannelIndex,
    barrier: CheckpointBarrier,
) -> BarrierHandlerState {
    // An upstream already went unaligned (or the checkpoint is unaligned from the start).
    if barrier.options.is_unaligned() {
        return aligned_checkpoint_timeout(state, core, barrier)
            .barrier_received(core, channel, barrier);
    }
    core.remove_seen_announcement(channel);
    core.block_channel(channel);
    if core.all_barriers_received() {
        core.trigger_global_checkpoint(barrier);
        return finish_checkpoint(core);
    }
    if core.is_timed_out(&barrier) {
        return aligned_checkpoint_timeout(state, core, barrier).barrier_received(
            core,
            channel,
            barrier.as_unaligned(),
        );
    }
    BarrierHandlerState::AlternatingCollectingBarriers
}

/// Announced barriers overtake their channel's data either way. Before any barrier only the
/// state changes (the caller then handles the barrier unaligned); while collecting, the
/// checkpoint is triggered unaligned at once and the channels without a barrier start recording.
/// Blocked channels stay blocked: their upstream already sent the aligned barrier and everything
/// after it belongs to the next checkpoint.
pub(super) fn aligned_checkpoint_timeout(
    state: BarrierHandlerState,
    core: &mut Core,
    barrier: CheckpointBarrier,
) -> BarrierHandlerState {
    if core.pending_started_aligned() {
        core.emit(HandlerEffect::SwitchedToUnaligned { id: barrier.id });
    }
    core.prioritize_all_announcements();
    if state == BarrierHandlerState::AlternatingWaitingForFirstBarrier {
        return BarrierHandlerState::AlternatingWaitingForFirstBarrierUnaligned {
            alternating: true,
        };
    }
    let unaligned = barrier.as_unaligned();
    core.checkpoint_started(&unaligned);
    core.trigger_global_checkpoint(unaligned);
    BarrierHandlerState::AlternatingCollectingBarriersUnaligned { alternating: true }
}

pub(super) fn end_of_partition_received(
    state: BarrierHandlerState,
    core: &mut Core,
    channel: ChannelIndex,
) -> BarrierHandlerState {
    core.channel_finished(channel);
    if state == BarrierHandlerState::AlternatingWaitingForFirstBarrier {
        return state;
    }
    let Some(pending) = core.pending_barrier else {
        return state;
    };
    if core.all_barriers_received() {
        core.trigger_global_checkpoint(pending);
        return finish_checkpoint(core);
    }
    if core.is_timed_out(&pending) {
        return aligned_checkpoint_timeout(state, core, pending)
            .end_of_partition_received(core, channel);
    }
    state
}

pub(super) fn finish_checkpoint(core: &mut Core) -> BarrierHandlerState {
    core.unblock_all_channels();
    core.empty_state();
    BarrierHandlerState::AlternatingWaitingForFirstBarrier
}
