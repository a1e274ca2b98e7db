//! Inputs to and effects of the [`CheckpointCoordinator`](super::CheckpointCoordinator).

use crate::coordinator::completed_store::CompletedCheckpoint;
use crate::coordinator::failure_manager::CheckpointFailureReason;
use crate::coordinator::pending_checkpoint::{SubtaskCheckpointMetrics, TaskAcknowledgeResult};
use crate::coordinator::properties::CheckpointProperties;
use crate::types::{CheckpointId, Micros, SubtaskId};
use serde::{Deserialize, Serialize};

/// A call the coordinator makes to a component around it, which a replay script can make fail
/// (Flink's tests build the coordinator with a failing `CheckpointIDCounter`, `CheckpointStorage`,
/// master hook, task gateway or `CompletedCheckpointStore`). The simulation never fails one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CoordinatorCall {
    /// `CheckpointIDCounter.getAndIncrement`, after the plan, before the pending checkpoint.
    CheckpointIdCounter,
    /// `CheckpointStorageCoordinatorView.initializeLocationForCheckpoint` (or `…ForSavepoint`),
    /// right after the pending checkpoint is created.
    StorageLocation,
    /// `MasterTriggerRestoreHook.triggerCheckpoint`'s future, when the master side is done.
    MasterHooks,
    /// `Execution.triggerCheckpoint`: the RPC that triggers a task.
    TriggerRpc,
    /// `CheckpointStorageLocation.createMetadataOutputStream` in `PendingCheckpoint.finalizeCheckpoint`:
    /// the `_metadata` write of a fully acknowledged checkpoint.
    Metadata,
    /// `CompletedCheckpointStore.addCheckpointAndSubsumeOldestOne` (checkpoints only: savepoints
    /// never enter the store).
    CompletedStore,
}

/// The coordinator's timers (Flink's `ScheduledTrigger` and `CheckpointCanceller`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, serde::Deserialize)]
pub enum CoordinatorTimer {
    Periodic,
    Expiry(CheckpointId),
}

/// One input to the coordinator.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum CoordinatorInput {
    /// `SetPlan` at job (re)start: sources are triggered, all are waited for and committed to.
    SetPlan {
        sources: Vec<SubtaskId>,
        all: Vec<SubtaskId>,
    },
    /// `startCheckpointScheduler`; `random` picks the first delay in `[min_pause, interval]`.
    StartScheduler { random: u64 },
    /// The `ScheduledTrigger` fired.
    PeriodicTimerFired,
    /// A user checkpoint, savepoint or stop-with-savepoint (`triggerCheckpoint`/`triggerSavepoint`).
    TriggerRequest { props: CheckpointProperties },
    /// `receiveAcknowledgeMessage`. `handle_key` is the opaque key of the subtask's stored state.
    /// `job` is the job the message names (`None`: this coordinator's, as the simulation's tasks
    /// only ever talk to their own job).
    Acknowledge {
        job: Option<String>,
        id: CheckpointId,
        subtask: SubtaskId,
        metrics: SubtaskCheckpointMetrics,
        handle_key: u64,
    },
    /// `receiveDeclineMessage`.
    Decline {
        job: Option<String>,
        id: CheckpointId,
        subtask: SubtaskId,
        reason: CheckpointFailureReason,
    },
    /// The asynchronous part of triggering finished (only with `with_async_trigger`): the
    /// storage location is initialized and master hooks are snapshotted, and the handler of the
    /// master-trigger promise runs. `id`: only if the checkpoint being triggered is this one
    /// (`None`: whatever is being triggered, also a request that failed before it got an id).
    TriggeringDone { id: Option<CheckpointId> },
    /// An operator coordinator's checkpoint of `id` completed (`acknowledgeCoordinatorState`).
    OperatorCoordinatorAck {
        id: CheckpointId,
        coordinator: String,
    },
    /// An operator coordinator's checkpoint of `id` failed: the trigger fails.
    OperatorCoordinatorFailed {
        id: CheckpointId,
        coordinator: String,
    },
    /// The future of `triggerTasks` for `id` failed: a task's trigger RPC answered with a
    /// `CheckpointException` of `reason` (a task already gone from its TaskExecutor:
    /// TASK_CHECKPOINT_FAILURE). Aborts the checkpoint at job level, if it is still pending.
    TriggerTasksFailed {
        id: CheckpointId,
        reason: CheckpointFailureReason,
    },
    /// The `CheckpointCanceller` for `id` fired.
    ExpiryTimerFired { id: CheckpointId },
    /// `failUnacknowledgedPendingCheckpointsFor`: a task failed; pending checkpoints it has not
    /// acknowledged are aborted with TASK_FAILURE (`None`: every pending checkpoint).
    TaskFailure { subtask: Option<SubtaskId> },
    /// `stopCheckpointScheduler` (job leaves RUNNING): aborts pending and queued with
    /// CHECKPOINT_COORDINATOR_SUSPEND.
    SuspendScheduler,
    /// `shutdown`: aborts everything with CHECKPOINT_COORDINATOR_SHUTDOWN; later inputs are ignored.
    Shutdown,
    /// Some subtasks are not RUNNING yet (deployed but still initializing): a trigger fails with
    /// NOT_ALL_REQUIRED_TASKS_RUNNING until they are.
    TasksNotRunning { tasks: Vec<SubtaskId> },
    /// Those subtasks are RUNNING now.
    TasksRunning { tasks: Vec<SubtaskId> },
    /// Some subtasks reached FINISHED (bounded sources).
    TasksFinished { tasks: Vec<SubtaskId> },
    /// The job was restored from completed checkpoint `id` (stats only).
    Restored { id: CheckpointId },
    /// `abortPendingCheckpoints(new CheckpointException(reason))`: every pending checkpoint
    /// aborts with `reason`, at job level (no task reported it).
    AbortPendingCheckpoints { reason: CheckpointFailureReason },
    /// The next `times` calls of `call` throw: an `IOException` when `io_exception`, any other
    /// exception otherwise. Replay scripts only; re-arming a call replaces what was armed.
    FailNextCalls {
        call: CoordinatorCall,
        io_exception: bool,
        times: u32,
    },
    /// The next `CheckpointIDCounter.getAndIncrement` calls `stopCheckpointScheduler` before it
    /// returns the id (Flink's `StoppingCheckpointIDCounter`): the request passed the first
    /// pre-check and has no pending checkpoint yet.
    StopSchedulerInNextIdCounterCall,
}

/// What the event loop must do after one input.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum CoordinatorEffect {
    ScheduleTimer {
        at: Micros,
        timer: CoordinatorTimer,
    },
    CancelTimer {
        timer: CoordinatorTimer,
    },
    /// Checkpoint `id` is pending and its triggering runs asynchronously; `TriggerTasks`
    /// follows on `TriggeringDone` (only with `with_async_trigger`).
    TriggeringCheckpoint {
        id: CheckpointId,
    },
    /// `OperatorCoordinatorCheckpoints.triggerAndAcknowledgeAllCoordinatorCheckpoints`: each
    /// named coordinator checkpoints `id` before any task is triggered.
    CheckpointOperatorCoordinators {
        id: CheckpointId,
        coordinators: Vec<String>,
    },
    /// `notifyCheckpointComplete` to each operator coordinator.
    NotifyOperatorCoordinatorsComplete {
        id: CheckpointId,
        coordinators: Vec<String>,
    },
    /// `notifyCheckpointAborted` to each operator coordinator.
    NotifyOperatorCoordinatorsAborted {
        id: CheckpointId,
        coordinators: Vec<String>,
    },
    /// `triggerTasks`: `Execution.triggerCheckpoint` RPC to each task.
    TriggerTasks {
        id: CheckpointId,
        timestamp: Micros,
        props: CheckpointProperties,
        unaligned: bool,
        tasks: Vec<SubtaskId>,
    },
    /// `completePendingCheckpoint` finished: `_metadata` written, stored (if a checkpoint).
    CheckpointCompleted {
        checkpoint: CompletedCheckpoint,
    },
    /// `sendAcknowledgeMessages`: `notifyCheckpointComplete` to each task.
    NotifyCheckpointComplete {
        id: CheckpointId,
        tasks: Vec<SubtaskId>,
    },
    /// `sendAbortedMessages`: `notifyCheckpointAborted` to each task.
    NotifyCheckpointAborted {
        id: CheckpointId,
        tasks: Vec<SubtaskId>,
    },
    /// A pending checkpoint was aborted.
    CheckpointAborted {
        id: CheckpointId,
        reason: CheckpointFailureReason,
    },
    /// A request waits in the `CheckpointRequestDecider` queue.
    RequestQueued {
        props: CheckpointProperties,
    },
    /// A request failed before it got an id.
    RequestRejected {
        props: CheckpointProperties,
        reason: CheckpointFailureReason,
    },
    /// An acknowledgement (or decline) that changed nothing.
    AckIgnored {
        id: CheckpointId,
        subtask: SubtaskId,
        result: TaskAcknowledgeResult,
    },
    /// An acknowledgement or decline that names another job: ignored.
    WrongJob {
        id: CheckpointId,
        subtask: SubtaskId,
        job: String,
    },
    /// The failure manager (or a failed stop-with-savepoint) fails the job.
    FailJob {
        reason: String,
    },
    /// A completed checkpoint left the store (beyond `num-retained`); its state may be discarded.
    Subsumed {
        id: CheckpointId,
    },
}
