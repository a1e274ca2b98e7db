//! Tasks: `StreamTask` with its mailbox, operator chain, outputs and the task side of
//! checkpointing (`SubtaskCheckpointCoordinatorImpl`).
//!
//! A task works on the shared [`Network`] and reports everything that must happen later or
//! elsewhere (wake-ups, RPCs, timers) as [`TaskEffect`]s; the simulation's event loop turns them
//! into events.

mod checkpointing;
mod input_processor;
mod mailbox;
mod mails;
mod operator_chain;
mod operators;
#[cfg(test)]
mod operators_tests;
mod output;
mod source;
mod stream_task;
mod time;
mod timer_gauge;
mod warm_up;

pub use checkpointing::{
    PendingSnapshot, RestoreWork, SubtaskCheckpointCoordinator, TaskStateSnapshot,
};
pub use mailbox::{Mail, Mailbox};
pub use operators::{filter_passes, mix64, Datagen, Keyed, Operator, TwoPhaseCommit};
pub use output::{pointwise_targets, OutputRoute};
pub use stream_task::{StreamTask, TaskStatus, PROCESSING_QUANTUM};
pub use time::{TaskTime, TimeSplit, TimeState};
pub use timer_gauge::{GaugeValues, TimerGauges, UPDATE_INTERVAL};
pub use warm_up::{ColdPath, WarmUp, WarmUpCosts};

use crate::coordinator::{CheckpointFailureReason, SubtaskCheckpointMetrics};
use crate::network::{GlobalChannelId, Network, Notified, PartitionId};
use crate::trace::Trace;
use crate::types::{CheckpointId, Micros, MICROS_PER_SEC};

/// Timing parameters of the task side, from the configuration.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct TaskParams {
    pub segment_size: u32,
    /// `buffer-debloat.period`, when debloating is on.
    pub debloat_period: Option<Micros>,
    pub storage_write_latency: Micros,
    /// Bytes per second.
    pub storage_write_throughput: u64,
    /// `execution.checkpointing.data-inline-threshold`: smaller state goes inline into
    /// `_metadata`, with no file of its own to write.
    pub inline_threshold: u64,
    /// `checkpoints-after-tasks-finish` with checkpointing on: a task whose input ended waits for
    /// a final checkpoint before it finishes (`StreamTask.endData` → `waitForFinalCheckpoint`).
    pub wait_for_final_checkpoint: bool,
    /// Unaligned checkpoints are enabled: channel state goes into files shared by the subtasks
    /// of a TaskManager (`channel_state`), and a subtask acknowledges only once its file is done.
    pub shared_channel_state_files: bool,
    /// FLIP-547: a restore hands the upstream's output channel state to the downstream subtask.
    pub recover_output_on_downstream: bool,
    /// FLIP-547: a subtask is RUNNING while it still consumes recovered channel state, and a
    /// checkpoint stores what is left of it as input channel state again. Without it the
    /// subtask stays INITIALIZING until that state is consumed (`StreamTask.restoreInternal`
    /// runs the mailbox until every gate has recovered), and triggers fail meanwhile.
    pub checkpoint_during_recovery: bool,
    /// The first-use costs of the checkpoint paths in a TaskManager's JVM (`warm_up.rs`).
    pub warm_up: WarmUpCosts,
}

impl TaskParams {
    /// The async phase: serialize, then write a file unless the state is small enough to be
    /// inlined into the checkpoint's metadata.
    pub fn async_duration(&self, bytes: u64) -> Micros {
        let serialize = bytes / checkpointing::SERIALIZE_BYTES_PER_MICRO;
        let write = if bytes < self.inline_threshold {
            0
        } else {
            self.file_write(bytes)
        };
        checkpointing::ASYNC_BASE + serialize + write
    }

    /// Creating, writing and closing one file of `bytes` on checkpoint storage.
    pub fn file_write(&self, bytes: u64) -> Micros {
        self.storage_write_latency
            + (u128::from(bytes) * u128::from(MICROS_PER_SEC)
                / u128::from(self.storage_write_throughput.max(1))) as Micros
    }
}

/// What a task asks of the event loop.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub enum TaskEffect {
    /// The task consumed the last of its recovered channel state: it switches to RUNNING.
    RecoveredInputConsumed {
        task: u32,
    },
    /// Run the task again at `at` (its work ends, or a record falls due).
    Wake {
        task: u32,
        at: Micros,
    },
    /// Something the task may wait on changed now (data arrived, a buffer came back).
    Poke {
        task: u32,
    },
    /// A remote channel's sender may be able to send.
    SendOnChannel {
        channel: GlobalChannelId,
    },
    /// `resumeConsumption` for a remote channel's upstream subpartition.
    Resume {
        channel: GlobalChannelId,
    },
    /// A remote channel's buffer was read: return it as credit (or to the floating pool).
    Recycled {
        channel: GlobalChannelId,
    },
    AsyncDone {
        task: u32,
        id: CheckpointId,
        at: Micros,
    },
    /// `ChannelStateWriter.start`: the task started a checkpoint that needs channel state.
    ChannelStateStarted {
        task: u32,
        id: CheckpointId,
    },
    /// Both sides of the task's channel state for `id` are known: `bytes` go into its group's
    /// file.
    ChannelStateComplete {
        task: u32,
        id: CheckpointId,
        bytes: u64,
    },
    AlignmentTimer {
        task: u32,
        id: CheckpointId,
        at: Micros,
    },
    /// A remote channel's new buffer size, on its way to the sender (`NewBufferSize`).
    AnnounceBufferSize {
        channel: GlobalChannelId,
        size: u32,
    },
    /// The next buffer size recalculation (`scheduleBufferDebloater`).
    DebloatAt {
        task: u32,
        at: Micros,
    },
    /// The task's earliest processing-time timer.
    TimerAt {
        task: u32,
        at: Micros,
    },
    Ack {
        task: u32,
        id: CheckpointId,
        metrics: SubtaskCheckpointMetrics,
        snapshot: Box<TaskStateSnapshot>,
    },
    Decline {
        task: u32,
        id: CheckpointId,
        reason: CheckpointFailureReason,
    },
    Finished {
        task: u32,
    },
    /// A two-phase-commit sink commits `transaction` (the checkpoint that pre-committed it) in the
    /// external system; committing the same transaction twice is a no-op there.
    Commit {
        task: u32,
        operator: usize,
        transaction: CheckpointId,
        records: Vec<(u32, u64)>,
    },
    /// A non-transactional sink wrote records to the external system.
    Write {
        task: u32,
        operator: usize,
        records: Vec<(u32, u64)>,
    },
}

/// What a task works with during one step.
pub struct TaskCtx<'a> {
    pub now: Micros,
    pub net: &'a mut Network,
    pub trace: &'a mut Trace,
    pub effects: &'a mut Vec<TaskEffect>,
    pub params: &'a TaskParams,
    /// Notes for "why was this checkpoint slow?", kept outside the trace.
    pub barrier_log: &'a mut crate::network::BarrierLog,
    /// This task's TaskManager's RocksDB flush thread.
    pub flush_thread: &'a mut crate::state::FlushThread,
    /// This task's TaskManager's JVM: which checkpoint paths are warm.
    pub warm_up: &'a mut WarmUp,
}

impl TaskCtx<'_> {
    pub fn net_segment_size(&self) -> u32 {
        self.params.segment_size
    }
}

/// New data in subpartition `sub` of `pid`: a local consumer may read it now; a remote channel's
/// sender may put it on the wire.
pub fn notify_consumer(pid: PartitionId, sub: u32, ctx: &mut TaskCtx) {
    ctx.effects.push(match ctx.net.notify_consumer(pid, sub) {
        Notified::Local { task } => TaskEffect::Poke { task },
        Notified::Remote { channel } => TaskEffect::SendOnChannel { channel },
    });
}
