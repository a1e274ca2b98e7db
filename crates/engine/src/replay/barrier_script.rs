//! The script of a barrier-handler replay (`aligned`, `unaligned`, `aligned-with-timeout`,
//! `at-least-once`) and how its steps become `HandlerInput`s.

use serde::Deserialize;
use serde_json::Value;

use super::report::Machine;
use super::values::{Bytes, Dur};
use crate::barrier::{
    AlignmentType, CheckpointBarrier, CheckpointOptions, CheckpointType, HandlerInput,
};
use crate::types::{ChannelIndex, CheckpointId, Micros};

/// A gate wider than this is almost certainly a typo, and every snapshot lists channels.
pub const MAX_CHANNELS: u32 = 4096;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BarrierScript {
    pub version: u32,
    pub machine: Machine,
    /// Input channels of the gate, numbered from 0.
    pub channels: u32,
    /// `execution.checkpointing.checkpoints-after-tasks-finish` (Flink's default: true).
    #[serde(default = "default_true")]
    pub checkpoints_after_tasks_finish: bool,
    /// Put an input gate in front of the handler: channel events queue per channel and reach
    /// the handler only on `poll` (see `replay/gate.rs`).
    #[serde(default)]
    pub gate: bool,
    /// The upstream stops sending on a channel after an aligned barrier until it is resumed,
    /// as Flink's subpartitions do (default). `false`: it goes on, as Flink's `TestInputChannel`
    /// in the handler tests: nothing is held, and data on a blocked channel is processed.
    #[serde(default = "default_true")]
    pub upstream_stops: bool,
    pub steps: Vec<Value>,
}

fn default_true() -> bool {
    true
}

/// The step names of [`BarrierStep`], for messages.
pub const BARRIER_STEP_KINDS: &[&str] = &[
    "buffer",
    "barrier",
    "announcement",
    "cancel",
    "end_of_partition",
    "advance",
    "advance_clock",
    "run_timers",
    "timeout",
    "poll",
    "drain",
    "close",
];

#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BarrierStep {
    Buffer(BufferStep),
    Barrier(BarrierStepSpec),
    /// The barrier's `EventAnnouncement`, ahead of the barrier itself.
    Announcement(AnnouncementStep),
    Cancel(CancelStep),
    EndOfPartition(ChannelStep),
    /// Move the clock; a due alignment timer fires on the way.
    Advance(Dur),
    /// Move the clock without running what fell due (`advanceTimeWithoutRunningCallables`).
    AdvanceClock(Dur),
    /// Run the alignment timer if it is due by now.
    RunTimers(Empty),
    /// (`gate` scripts) hand the next queued item to the handler, `times` times (default 1).
    Poll(PollStep),
    /// (`gate` scripts) poll until nothing is available.
    Drain(Empty),
    /// `close`: the handler's alignment timer is cancelled; it never fires.
    Close(Empty),
    /// Fire the alignment timer of checkpoint `id` now, whatever its due time.
    Timeout(TimeoutStep),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BufferStep {
    pub channel: ChannelIndex,
    pub bytes: Bytes,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BarrierStepSpec {
    pub channel: ChannelIndex,
    pub id: CheckpointId,
    /// The coordinator's trigger time; defaults to the current clock (start delay 0).
    pub timestamp: Option<Dur>,
    #[serde(default)]
    pub kind: KindSpec,
    /// Defaults to what the machine's job would send (see [`default_alignment`]).
    pub alignment: Option<AlignmentSpec>,
    /// The aligned checkpoint timeout (`aligned-with-timeout` only).
    pub timeout: Option<Dur>,
}

/// The barrier step's fields (the barrier announced) and where the barrier sits in its channel.
/// Written out rather than flattened: serde cannot flatten with `deny_unknown_fields`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnnouncementStep {
    pub channel: ChannelIndex,
    pub id: CheckpointId,
    pub timestamp: Option<Dur>,
    #[serde(default)]
    pub kind: KindSpec,
    pub alignment: Option<AlignmentSpec>,
    pub timeout: Option<Dur>,
    /// The barrier's sequence number in its channel (`EventAnnouncement.getSequenceNumber`).
    pub sequence_number: u32,
}

#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum KindSpec {
    #[default]
    Checkpoint,
    Savepoint,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AlignmentSpec {
    Aligned,
    Unaligned,
    AtLeastOnce,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Empty {}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PollStep {
    #[serde(default = "one")]
    pub times: u32,
}

fn one() -> u32 {
    1
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CancelStep {
    pub channel: ChannelIndex,
    pub id: CheckpointId,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChannelStep {
    pub channel: ChannelIndex,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeoutStep {
    pub id: CheckpointId,
}

/// The alignment a barrier has when the script does not say: what a job configured for this
/// machine sends. Savepoints are always aligned in exactly-once jobs (`CheckpointOptions.forConfig`).
fn default_alignment(machine: Machine, kind: KindSpec) -> AlignmentSpec {
    match (machine, kind) {
        (Machine::AtLeastOnce, _) => AlignmentSpec::AtLeastOnce,
        (Machine::Unaligned, KindSpec::Checkpoint) => AlignmentSpec::Unaligned,
        _ => AlignmentSpec::Aligned,
    }
}

impl AnnouncementStep {
    /// The `HandlerInput::BarrierAnnouncement` this step stands for. The barrier is read exactly
    /// as a `barrier` step's; Flink's input channels announce only aligned barriers with a
    /// timeout, but the handlers take any, as Flink's own tests feed them.
    pub fn to_input(&self, machine: Machine, now: Micros) -> Result<HandlerInput, String> {
        let spec = BarrierStepSpec {
            channel: self.channel,
            id: self.id,
            timestamp: self.timestamp,
            kind: self.kind,
            alignment: self.alignment,
            timeout: self.timeout,
        };
        Ok(HandlerInput::BarrierAnnouncement {
            channel: self.channel,
            barrier: spec.to_barrier(machine, now)?,
            sequence_number: self.sequence_number,
        })
    }
}

impl BarrierStepSpec {
    /// The `HandlerInput::Barrier` this step stands for; `now` is the default timestamp.
    pub fn to_input(&self, machine: Machine, now: Micros) -> Result<HandlerInput, String> {
        Ok(HandlerInput::Barrier {
            channel: self.channel,
            barrier: self.to_barrier(machine, now)?,
        })
    }

    /// Combinations Flink never produces are refused here, with the reason.
    fn to_barrier(&self, machine: Machine, now: Micros) -> Result<CheckpointBarrier, String> {
        let alignment = self
            .alignment
            .unwrap_or_else(|| default_alignment(machine, self.kind));
        let checkpoint_type = match self.kind {
            KindSpec::Checkpoint => CheckpointType::Checkpoint,
            KindSpec::Savepoint => CheckpointType::Savepoint,
        };
        if checkpoint_type.is_savepoint() && alignment == AlignmentSpec::Unaligned {
            return Err("a savepoint barrier is never unaligned in Flink".into());
        }
        let timeout = match self.timeout {
            None => None,
            Some(_) if machine != Machine::AlignedWithTimeout => {
                return Err(format!(
                    "\"timeout\" only applies to the aligned-with-timeout machine, not {}",
                    machine.name()
                ))
            }
            Some(_) if alignment != AlignmentSpec::Aligned => {
                return Err("\"timeout\" needs \"alignment\": \"aligned\"".into())
            }
            Some(_) if checkpoint_type.is_savepoint() => {
                return Err("a savepoint is aligned without timeout in Flink; drop \"timeout\"".into())
            }
            Some(Dur(0)) => {
                return Err(
                    "\"timeout\" must be positive; Flink's 0 means unaligned from the start, write \"alignment\": \"unaligned\""
                        .into(),
                )
            }
            Some(Dur(t)) => Some(t),
        };
        let options = CheckpointOptions {
            checkpoint_type,
            alignment: match alignment {
                AlignmentSpec::Aligned => AlignmentType::Aligned,
                AlignmentSpec::Unaligned => AlignmentType::Unaligned,
                AlignmentSpec::AtLeastOnce => AlignmentType::AtLeastOnce,
            },
            aligned_checkpoint_timeout: timeout,
        };
        Ok(CheckpointBarrier {
            id: self.id,
            timestamp: self.timestamp.map_or(now, |d| d.0),
            options,
        })
    }
}
