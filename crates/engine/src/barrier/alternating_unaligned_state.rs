//! `AlternatingWaitingForFirstBarrierUnaligned` and `AlternatingCollectingBarriersUnaligned`:
//! the first barrier triggers at once; channels record in-flight data until their barrier.

use super::controller::Core;
use super::options::CheckpointBarrier;
use super::state::BarrierHandlerState;
use crate::types::{ChannelIndex, CheckpointId};

/// Already unaligned: the announced barrier overtakes its channel's data at once.
pub(super) fn announcement_received(
    state: BarrierHandlerState,
    core: &mut Core,
    channel: ChannelIndex,
    sequence_number: u32,
) -> BarrierHandlerState {
    core.convert_to_priority_event(channel, sequence_number);
    state
}

pub(super) fn barrier_received(
    state: BarrierHandlerState,
    core: &mut Core,
    channel: ChannelIndex,
    barrier: CheckpointBarrier,
) -> BarrierHandlerState {
    let alternating = is_alternating(state);
    // A late aligned barrier still stopped its upstream (credit-based network): book it blocked.
    if !barrier.options.is_unaligned() {
        core.block_channel(channel);
    }
    if let BarrierHandlerState::AlternatingWaitingForFirstBarrierUnaligned { .. } = state {
        let unaligned = barrier.as_unaligned();
        core.checkpoint_started(&unaligned);
        core.trigger_global_checkpoint(unaligned);
    }
    if core.all_barriers_received() {
        return finish_checkpoint(core, alternating);
    }
    BarrierHandlerState::AlternatingCollectingBarriersUnaligned { alternating }
}

pub(super) fn end_of_partition_received(
    state: BarrierHandlerState,
    core: &mut Core,
    channel: ChannelIndex,
) -> BarrierHandlerState {
    core.channel_finished(channel);
    if let BarrierHandlerState::AlternatingCollectingBarriersUnaligned { alternating } = state {
        if core.all_barriers_received() {
            return finish_checkpoint(core, alternating);
        }
    }
    state
}

pub(super) fn abort(
    state: BarrierHandlerState,
    core: &mut Core,
    _cancelled_id: CheckpointId,
) -> BarrierHandlerState {
    finish_checkpoint(core, is_alternating(state))
}

/// Stop recording, unblock, and go back to where this handler waits for the next checkpoint.
fn finish_checkpoint(core: &mut Core, alternating: bool) -> BarrierHandlerState {
    core.checkpoint_stopped();
    core.unblock_all_channels();
    if alternating {
        BarrierHandlerState::AlternatingWaitingForFirstBarrier
    } else {
        BarrierHandlerState::AlternatingWaitingForFirstBarrierUnaligned { alternating: false }
    }
}

fn is_alternating(state: BarrierHandlerState) -> bool {
    match state {
        BarrierHandlerState::AlternatingWaitingForFirstBarrierUnaligned { alternating }
        | BarrierHandlerState::AlternatingCollectingBarriersUnaligned { alternating } => {
            alternating
        }
        _ => true,
    }
}
