//! Shorthands so each test reads like the event sequence it replays.

use crate::barrier::{
    AbortReason, CheckpointBarrier, CheckpointOptions, CheckpointType, HandlerEffect, HandlerInput,
};
use crate::types::{ChannelIndex, CheckpointId, Micros};

pub use crate::barrier::HandlerEffect as E;

pub fn aligned(id: CheckpointId, timestamp: Micros) -> CheckpointBarrier {
    CheckpointBarrier {
        id,
        timestamp,
        options: CheckpointOptions::for_config(CheckpointType::Checkpoint, true, false, 0),
    }
}

pub fn unaligned(id: CheckpointId, timestamp: Micros) -> CheckpointBarrier {
    CheckpointBarrier {
        id,
        timestamp,
        options: CheckpointOptions::for_config(CheckpointType::Checkpoint, true, true, 0),
    }
}

pub fn timeoutable(id: CheckpointId, timestamp: Micros, timeout: Micros) -> CheckpointBarrier {
    CheckpointBarrier {
        id,
        timestamp,
        options: CheckpointOptions::for_config(CheckpointType::Checkpoint, true, true, timeout),
    }
}

pub fn at_least_once(id: CheckpointId, timestamp: Micros) -> CheckpointBarrier {
    CheckpointBarrier {
        id,
        timestamp,
        options: CheckpointOptions::for_config(CheckpointType::Checkpoint, false, false, 0),
    }
}

pub fn buf(channel: ChannelIndex, bytes: u64) -> HandlerInput {
    HandlerInput::Buffer { channel, bytes }
}

pub fn bar(channel: ChannelIndex, barrier: CheckpointBarrier) -> HandlerInput {
    HandlerInput::Barrier { channel, barrier }
}

pub fn ann(
    channel: ChannelIndex,
    barrier: CheckpointBarrier,
    sequence_number: u32,
) -> HandlerInput {
    HandlerInput::BarrierAnnouncement {
        channel,
        barrier,
        sequence_number,
    }
}

pub fn prio(channel: ChannelIndex, sequence_number: u32) -> HandlerEffect {
    HandlerEffect::ConvertToPriorityEvent {
        channel,
        sequence_number,
    }
}

pub fn cancel(channel: ChannelIndex, id: CheckpointId) -> HandlerInput {
    HandlerInput::CancelMarker { channel, id }
}

pub fn eop(channel: ChannelIndex) -> HandlerInput {
    HandlerInput::EndOfPartition { channel }
}

pub fn process(channel: ChannelIndex, bytes: u64) -> HandlerEffect {
    E::Process { channel, bytes }
}

pub fn block(channel: ChannelIndex) -> HandlerEffect {
    E::BlockChannel { channel }
}

pub fn resume(channel: ChannelIndex) -> HandlerEffect {
    E::ResumeConsumption { channel }
}

pub fn trigger(
    barrier: CheckpointBarrier,
    start_delay: Micros,
    alignment_duration: Micros,
    bytes: u64,
) -> HandlerEffect {
    E::TriggerCheckpoint {
        barrier,
        start_delay,
        alignment_duration,
        bytes_processed_during_alignment: bytes,
    }
}

pub fn abort(id: CheckpointId, reason: AbortReason) -> HandlerEffect {
    E::AbortCheckpoint { id, reason }
}

pub fn start(channel: ChannelIndex, id: CheckpointId) -> HandlerEffect {
    E::StartPersisting { channel, id }
}

pub fn stop(channel: ChannelIndex, id: CheckpointId) -> HandlerEffect {
    E::StopPersisting { channel, id }
}

pub fn persist(channel: ChannelIndex, id: CheckpointId, bytes: u64) -> HandlerEffect {
    E::PersistInFlight { channel, id, bytes }
}

pub fn complete(
    id: CheckpointId,
    duration: Micros,
    processed: u64,
    persisted: u64,
) -> HandlerEffect {
    E::InputChannelStateComplete {
        id,
        alignment_duration: duration,
        bytes_processed_during_alignment: processed,
        persisted_bytes: persisted,
    }
}

pub fn is_error(effects: &[HandlerEffect]) -> bool {
    matches!(effects, [HandlerEffect::Error { .. }])
}
