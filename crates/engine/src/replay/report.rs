//! The replay report: per step, what went in, what came out and the machine's state afterwards.
//! Everything here is plain serde data so the CLI (`--format json`) and the web app can show it.

use serde::{Deserialize, Serialize};

use super::expect::Expectation;
use super::gate::Queued;
use crate::barrier::{HandlerEffect, HandlerInput};
use crate::coordinator::{
    CheckpointFailureReason, CheckpointProperties, CheckpointTriggerRequest, CoordinatorCall,
    CoordinatorEffect, CoordinatorTimer, DeciderContext,
};
use crate::stats::tracker::{CheckpointStatsCounts, CheckpointStatsStatus};
use crate::types::{ChannelIndex, CheckpointId, Micros};

/// Which machine a script drives. Spelled as in the script's `"machine"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Machine {
    /// `SingleCheckpointBarrierHandler.aligned`: exactly-once, unaligned checkpoints disabled.
    Aligned,
    /// `SingleCheckpointBarrierHandler.unaligned`: every checkpoint handled unaligned.
    Unaligned,
    /// `SingleCheckpointBarrierHandler.alternating`: aligned until the alignment timeout fires.
    AlignedWithTimeout,
    /// `CheckpointBarrierTracker`: at-least-once, nothing blocks.
    AtLeastOnce,
    /// `CheckpointCoordinator`: the JobManager side.
    Coordinator,
    /// `CheckpointRequestDecider` on its own: the queue every trigger request passes through.
    RequestDecider,
    /// `CheckpointFailureManager` on its own: the tolerable-failure counter.
    FailureManager,
}

impl Machine {
    pub const ALL: [Machine; 7] = [
        Machine::Aligned,
        Machine::Unaligned,
        Machine::AlignedWithTimeout,
        Machine::AtLeastOnce,
        Machine::Coordinator,
        Machine::RequestDecider,
        Machine::FailureManager,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Machine::Aligned => "aligned",
            Machine::Unaligned => "unaligned",
            Machine::AlignedWithTimeout => "aligned-with-timeout",
            Machine::AtLeastOnce => "at-least-once",
            Machine::Coordinator => "coordinator",
            Machine::RequestDecider => "request-decider",
            Machine::FailureManager => "failure-manager",
        }
    }

    pub fn from_name(name: &str) -> Option<Machine> {
        Machine::ALL.into_iter().find(|m| m.name() == name)
    }
}

/// A whole replay.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReplayReport {
    pub version: u32,
    pub machine: Machine,
    /// The machine before the first step (for the coordinator: after `SetPlan` and
    /// `StartScheduler`, whose effects are listed here).
    pub start: ReplayStart,
    pub steps: Vec<ReplayStep>,
    /// The Flink unit test the script ports (`"ClassName#method"`), if it says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// What the machine does differently from that test, if the script says it does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub differs: Option<String>,
    /// The script's `expect` steps, in order, with their failures.
    pub expectations: Vec<Expectation>,
}

impl ReplayReport {
    /// A driver's report; `replay` adds what the script says of itself and its expectations.
    pub(super) fn new(
        version: u32,
        machine: Machine,
        start: ReplayStart,
        steps: Vec<ReplayStep>,
    ) -> Self {
        ReplayReport {
            version,
            machine,
            start,
            steps,
            from: None,
            differs: None,
            expectations: Vec::new(),
        }
    }

    /// The `expect` steps that did not hold.
    pub fn failed_expectations(&self) -> impl Iterator<Item = &Expectation> {
        self.expectations.iter().filter(|e| !e.passed())
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReplayStart {
    pub time: Micros,
    pub effects: Vec<Emitted>,
    pub state: MachineState,
}

/// One script step.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReplayStep {
    /// Index into the script's `steps` array, from 0.
    pub step: usize,
    /// The clock after the step.
    pub time: Micros,
    /// The step exactly as the script wrote it.
    pub input: serde_json::Value,
    /// Everything emitted during the step, in order.
    pub effects: Vec<Emitted>,
    pub state: MachineState,
}

/// One emitted item: when, why, and what.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Emitted {
    /// Simulated time it happened (a timer fired during an `advance` reports its own due time).
    pub at: Micros,
    pub via: Via,
    #[serde(flatten)]
    pub effect: Effect,
}

/// What caused an emitted item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Via {
    /// The step's own input.
    Input,
    /// A timer the driver fired because an `advance` passed its due time.
    Timer,
    /// A held event the driver delivered once its channel was resumed.
    Released,
}

/// A machine effect, or a note of what the driver itself did.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Effect {
    Handler(HandlerEffect),
    Coordinator(CoordinatorEffect),
    Decider(DeciderEffect),
    FailureManager(FailureManagerEffect),
    Driver(DriverNote),
}

/// What one decision of the `CheckpointRequestDecider` came to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum DeciderEffect {
    /// The request completed exceptionally (too many queued, min pause).
    Failed {
        request: CheckpointTriggerRequest,
        reason: CheckpointFailureReason,
    },
    /// `rescheduleTrigger`: the periodic trigger moves this far into the future.
    RescheduleTrigger { after: Micros },
    /// The request to trigger now.
    Execute { request: CheckpointTriggerRequest },
}

/// What the `CheckpointFailureManager` did beyond counting.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum FailureManagerEffect {
    /// `FailJobCallback`: the tolerable number of failed checkpoints was exceeded (or a
    /// stop-with-savepoint failed in a task).
    FailJob { message: String },
}

/// What the driver did around the machine (the parts of Flink that are not the machine).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DriverNote {
    /// The channel is blocked: its upstream subpartition keeps the event until it is resumed.
    Held {
        channel: ChannelIndex,
        input: HandlerInput,
        /// Events now waiting on that channel, this one included.
        waiting: usize,
    },
    /// (`gate` scripts) `pollNext` returned this item of `channel`.
    Polled {
        channel: ChannelIndex,
        input: HandlerInput,
    },
    /// (`gate` scripts) `pollNext` found nothing it could return.
    NothingAvailable,
    /// (`gate` scripts) in-flight buffers of `channel` written as channel state of `id`.
    ChannelStateWritten {
        channel: ChannelIndex,
        id: CheckpointId,
        buffers: u32,
        bytes: u64,
    },
    /// A held event is delivered because its channel was resumed.
    Released {
        channel: ChannelIndex,
        input: HandlerInput,
    },
    /// The handler's alignment timer fell due and was fed as `AlignmentTimeout`.
    AlignmentTimerFired { id: CheckpointId, fire_at: Micros },
    /// A coordinator timer fell due and was fed to the coordinator.
    CoordinatorTimerFired { timer: CoordinatorTimer },
}

/// The machine's state after a step.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MachineState {
    Handler(HandlerSnapshot),
    Coordinator(CoordinatorSnapshot),
    Decider(DeciderSnapshot),
    FailureManager(FailureManagerSnapshot),
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeciderSnapshot {
    /// Queued requests, head (the next to run) first.
    pub queue: Vec<CheckpointTriggerRequest>,
    /// What the decider was last told about the coordinator.
    pub context: DeciderContext,
    pub max_concurrent: u32,
    pub min_pause: Micros,
    pub max_queued: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FailureManagerSnapshot {
    pub continuous_failure_counter: u32,
    pub tolerable_failed_checkpoints: u32,
    pub last_succeeded_checkpoint_id: Option<CheckpointId>,
    pub counted_checkpoint_ids: Vec<CheckpointId>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HandlerSnapshot {
    /// The Flink class name of the handler's state (`CollectingBarriers`, …).
    pub state: String,
    pub current_checkpoint: Option<CheckpointId>,
    pub pending_checkpoints: Vec<CheckpointId>,
    /// Channels whose upstream is blocked after an aligned barrier.
    pub blocked_channels: Vec<ChannelIndex>,
    /// Channels whose barrier (or end of partition) arrived for the newest pending checkpoint.
    pub aligned_channels: Vec<ChannelIndex>,
    pub channels: u32,
    pub open_channels: u32,
    /// `isDuringAlignment`: the alignment of a checkpoint started (first barrier or end of
    /// partition) and has not ended.
    pub during_alignment: bool,
    /// Channels whose barrier was announced but has not arrived (aligned with timeout only).
    pub announced: Vec<AnnouncedBarrier>,
    /// Channels recording in-flight data as channel state.
    pub persisting_channels: Vec<ChannelIndex>,
    /// Bytes recorded as input channel state, per checkpoint and channel.
    pub persisted: Vec<PersistedBytes>,
    /// The armed alignment timer, if any.
    pub alignment_timer: Option<AlignmentTimer>,
    /// Events the driver holds back on blocked channels, oldest first.
    pub held: Vec<HeldEvents>,
    /// The input gate of a `gate` script.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gate: Option<GateSnapshot>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GateSnapshot {
    /// Non-empty channel queues, head first (priority items at the head).
    pub queues: Vec<GateQueue>,
    /// Channels whose `ChannelStatePersister` writes what arrives, with the checkpoint.
    pub persisting: Vec<PersistingChannel>,
    /// Channel state written so far (Flink's `ChannelStateWriter.addInputData`).
    pub written: Vec<WrittenState>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GateQueue {
    pub channel: ChannelIndex,
    pub items: Vec<Queued>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PersistingChannel {
    pub channel: ChannelIndex,
    pub checkpoint: CheckpointId,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct WrittenState {
    pub checkpoint: CheckpointId,
    pub channel: ChannelIndex,
    pub buffers: u32,
    pub bytes: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct AnnouncedBarrier {
    pub channel: ChannelIndex,
    pub sequence_number: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PersistedBytes {
    pub checkpoint: CheckpointId,
    pub channel: ChannelIndex,
    pub bytes: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct AlignmentTimer {
    pub id: CheckpointId,
    pub fire_at: Micros,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HeldEvents {
    pub channel: ChannelIndex,
    pub inputs: Vec<HandlerInput>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CoordinatorSnapshot {
    /// Pending checkpoints, oldest first.
    pub pending: Vec<PendingSnapshot>,
    /// The `CheckpointRequestDecider` queue, head first.
    pub queued: Vec<CheckpointTriggerRequest>,
    /// The checkpoint whose asynchronous triggering has not finished (also when it was aborted
    /// meanwhile).
    pub triggering: Option<CheckpointId>,
    /// `isTriggering`: a trigger is in flight, also one that failed before it got an id.
    pub is_triggering: bool,
    /// Calls armed to fail (`fail_next`), in call order.
    pub failing_calls: Vec<FailingCallView>,
    /// The component inside whose next call the scheduler stops (`stop_scheduler` `during`).
    pub stop_scheduler_during: Option<CoordinatorCall>,
    /// `CheckpointFailureManager`'s continuous failure counter.
    pub failure_counter: u32,
    pub tolerable_failed_checkpoints: u32,
    /// Newest checkpoint in the completed store (savepoints are never stored).
    pub latest_completed: Option<CheckpointId>,
    /// Every checkpoint the store retains, oldest first.
    pub retained: Vec<CheckpointId>,
    pub next_checkpoint_id: CheckpointId,
    pub periodic_scheduling: bool,
    /// Timers the driver holds for the coordinator, earliest first.
    pub timers: Vec<ScheduledTimer>,
    /// The reason of the last `FailJob` effect, if the job was failed.
    pub job_failed: Option<String>,
    /// What the `CheckpointStatsTracker` recorded: the counts and the history, newest first.
    pub stats: StatsView,
}

/// A call armed to fail.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FailingCallView {
    pub call: CoordinatorCall,
    /// `"IOException"` or `"Exception"` (any other).
    pub exception: &'static str,
    /// How many of the next calls fail.
    pub times: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StatsView {
    pub counts: CheckpointStatsCounts,
    pub history: Vec<StatsEntry>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StatsEntry {
    pub id: CheckpointId,
    pub status: CheckpointStatsStatus,
    pub num_acknowledged_subtasks: u32,
    pub failure_message: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PendingSnapshot {
    pub id: CheckpointId,
    pub props: CheckpointProperties,
    pub trigger_timestamp: Micros,
    pub acknowledged: usize,
    pub total: usize,
    /// Subtasks (`"vertex/subtask"`) that have not acknowledged yet.
    pub waiting_for: Vec<String>,
    /// Operator coordinators whose checkpoint has not completed yet.
    pub waiting_for_coordinators: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ScheduledTimer {
    pub at: Micros,
    pub timer: CoordinatorTimer,
}
