//! What a barrier handler consumes (`HandlerInput`) and what it asks the task to do (`HandlerEffect`).

use serde::{Deserialize, Serialize};

use super::options::CheckpointBarrier;
use crate::types::{ChannelIndex, CheckpointId, Micros};

/// One event as `CheckpointedInputGate.pollNext` hands it to the handler, or a timer it asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum HandlerInput {
    /// A data buffer consumed from `channel`.
    Buffer { channel: ChannelIndex, bytes: u64 },
    Barrier {
        channel: ChannelIndex,
        barrier: CheckpointBarrier,
    },
    /// `EventAnnouncement` of a barrier still queued behind data on `channel`
    /// (`processBarrierAnnouncement`): a remote input channel announces an aligned barrier with a
    /// timeout as soon as it receives it, so the alignment (and its timer) can start before the
    /// barrier is polled. `sequence_number` is the barrier's place in the channel, which
    /// [`HandlerEffect::ConvertToPriorityEvent`] names.
    BarrierAnnouncement {
        channel: ChannelIndex,
        barrier: CheckpointBarrier,
        sequence_number: u32,
    },
    /// `CancelCheckpointMarker`: upstream declined checkpoint `id`.
    CancelMarker {
        channel: ChannelIndex,
        id: CheckpointId,
    },
    /// `EndOfPartitionEvent`: the channel will send nothing more.
    EndOfPartition { channel: ChannelIndex },
    /// The timer from `RegisterAlignmentTimer { id, .. }` fired.
    AlignmentTimeout { id: CheckpointId },
}

/// Flink's `CheckpointFailureReason` values a barrier handler can produce. Serialized with
/// Flink's constant names (`CHECKPOINT_DECLINED_SUBSUMED`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum AbortReason {
    CheckpointDeclinedSubsumed,
    CheckpointDeclinedOnCancellationBarrier,
    CheckpointDeclinedInputEndOfStream,
}

impl AbortReason {
    /// The `CheckpointFailureReason` constant name, for traces and the UI.
    pub fn flink_name(self) -> &'static str {
        match self {
            AbortReason::CheckpointDeclinedSubsumed => "CHECKPOINT_DECLINED_SUBSUMED",
            AbortReason::CheckpointDeclinedOnCancellationBarrier => {
                "CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER"
            }
            AbortReason::CheckpointDeclinedInputEndOfStream => {
                "CHECKPOINT_DECLINED_INPUT_END_OF_STREAM"
            }
        }
    }
}

/// What the handler asks of its task, in the order Flink would do it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum HandlerEffect {
    /// Hand the buffer to the operator chain.
    Process { channel: ChannelIndex, bytes: u64 },
    /// Aligned barrier consumed: the upstream subpartition has stopped sending to this channel
    /// (`isBlockingUpstream`); its data waits upstream, not here.
    BlockChannel { channel: ChannelIndex },
    /// `resumeConsumption`: tell the upstream subpartition to send again.
    ResumeConsumption { channel: ChannelIndex },
    /// `triggerCheckpointOnBarrier`. `barrier` carries the alignment the checkpoint ended with
    /// (unaligned after a timeout). The metrics are final for an aligned checkpoint; for an
    /// unaligned one they are the values so far and the final ones follow in
    /// [`HandlerEffect::InputChannelStateComplete`].
    TriggerCheckpoint {
        barrier: CheckpointBarrier,
        start_delay: Micros,
        alignment_duration: Micros,
        bytes_processed_during_alignment: u64,
    },
    /// `abortCheckpointOnBarrier`: the task declines `id` and forwards a cancel marker.
    AbortCheckpoint {
        id: CheckpointId,
        reason: AbortReason,
    },
    /// Unaligned input side: data consumed from `channel` until its barrier is channel state of `id`.
    StartPersisting {
        channel: ChannelIndex,
        id: CheckpointId,
    },
    StopPersisting {
        channel: ChannelIndex,
        id: CheckpointId,
    },
    /// A buffer consumed on a persisting channel is written as input channel state of `id`.
    PersistInFlight {
        channel: ChannelIndex,
        id: CheckpointId,
        bytes: u64,
    },
    /// Ask for `HandlerInput::AlignmentTimeout { id }` at `fire_at`.
    RegisterAlignmentTimer { id: CheckpointId, fire_at: Micros },
    /// The aligned checkpoint `id` timed out and continues unaligned; the task must also promote
    /// its still-queued output barriers (`PipelinedSubpartition.alignedBarrierTimeout`).
    SwitchedToUnaligned { id: CheckpointId },
    /// All barriers (or end-of-partitions) of an unaligned-triggered checkpoint are in: its input
    /// channel state is complete and the alignment metrics are final.
    InputChannelStateComplete {
        id: CheckpointId,
        alignment_duration: Micros,
        bytes_processed_during_alignment: u64,
        persisted_bytes: u64,
    },
    /// `convertToPriorityEvent(channel, sequenceNumber)` on the inputs (`CheckpointableInput`): the
    /// announced barrier overtakes the data queued before it in its channel, so the gate hands
    /// it out next; the overtaken buffers are part of the checkpoint's channel state. Only a
    /// barrier announcement leads to one, and the simulation sends none yet.
    ConvertToPriorityEvent {
        channel: ChannelIndex,
        sequence_number: u32,
    },
    /// Impossible input (unknown channel, data on a blocked channel, …); the input was dropped.
    Error { message: String },
}
