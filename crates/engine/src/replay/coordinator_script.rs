//! The script of a coordinator replay: Flink configuration keys, the task plan, and steps.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;
use serde_json::Value;

use super::report::Machine;
use super::values::{task_name, Bytes, Dur, Task};
use crate::coordinator::{
    CheckpointCoordinatorConfiguration, CheckpointFailureReason, CheckpointProperties,
    CoordinatorCall, ExternalizedCheckpointRetention as Retention, SubtaskCheckpointMetrics,
};
use crate::scenario::{
    resolve_key, CheckpointingMode, ExternalizedCheckpointRetention, FlinkConfig, ValueKind,
};
use crate::types::{CheckpointId, SubtaskId};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CoordinatorScript {
    pub version: u32,
    pub machine: Machine,
    /// Flink keys (`execution.checkpointing.*`) as in a scenario's `config`.
    #[serde(default)]
    pub config: BTreeMap<String, Value>,
    pub tasks: TasksSpec,
    /// The random word `StartScheduler` maps to the first delay in `[min-pause, interval]`.
    #[serde(default)]
    pub random: u64,
    /// Triggering completes only on a `trigger_done` step (Flink prepares the location, master
    /// hooks and operator coordinators asynchronously); default: in one step.
    #[serde(default)]
    pub async_trigger: bool,
    /// Operator coordinators, by name; with `async_trigger` each must acknowledge
    /// (`coordinator_ack`) before the tasks are triggered.
    #[serde(default)]
    pub operator_coordinators: Vec<String>,
    pub steps: Vec<Value>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TasksSpec {
    /// Subtasks the coordinator triggers (the sources).
    pub sources: Vec<Task>,
    /// Every subtask: all must acknowledge.
    pub all: Vec<Task>,
}

/// The step names of [`CoordinatorStep`], for messages.
pub const COORDINATOR_STEP_KINDS: &[&str] = &[
    "advance",
    "trigger",
    "ack",
    "decline",
    "expire",
    "trigger_done",
    "coordinator_ack",
    "coordinator_fail",
    "fail_task",
    "stop_scheduler",
    "start_scheduler",
    "shutdown",
    "tasks_finished",
    "tasks_not_running",
    "tasks_running",
    "abort_pending_checkpoints",
    "fail_next",
];

#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CoordinatorStep {
    /// Move the clock; due timers fire in time order on the way.
    Advance(Dur),
    Trigger(TriggerKind),
    Ack(AckStep),
    Decline(DeclineStep),
    /// Fire checkpoint `id`'s `CheckpointCanceller` now, whatever its due time.
    Expire(ExpireStep),
    /// The asynchronous part of triggering finished (`async_trigger` scripts): the checkpoint
    /// `id` if given, else whatever is being triggered.
    TriggerDone(TriggerDoneStep),
    /// An operator coordinator's checkpoint completed.
    CoordinatorAck(CoordinatorStepSpec),
    /// An operator coordinator's checkpoint failed.
    CoordinatorFail(CoordinatorStepSpec),
    /// A subtask failed: pending checkpoints it has not acknowledged abort.
    FailTask(Task),
    /// `stopCheckpointScheduler` (the job left RUNNING): pending and queued abort with
    /// CHECKPOINT_COORDINATOR_SUSPEND. With `during`, it happens inside the next call of that
    /// component instead (Flink's `StoppingCheckpointIDCounter`).
    StopScheduler(StopStep),
    /// `startCheckpointScheduler`: the first start waits a random delay in
    /// `[min-pause, interval]` chosen by `random`; a restart waits the min pause.
    StartScheduler(StartStep),
    /// `shutdown`: everything aborts with CHECKPOINT_COORDINATOR_SHUTDOWN; later inputs are ignored.
    Shutdown(Empty),
    /// These subtasks reached FINISHED.
    TasksFinished(Vec<Task>),
    /// These subtasks are not RUNNING (still deploying or initializing).
    TasksNotRunning(Vec<Task>),
    /// These subtasks are RUNNING again.
    TasksRunning(Vec<Task>),
    /// `abortPendingCheckpoints(new CheckpointException(reason))`: every pending checkpoint
    /// aborts with `reason`, at job level.
    AbortPendingCheckpoints(AbortStep),
    /// The next `times` calls of a component the coordinator uses throw.
    FailNext(FailNextStep),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TriggerDoneStep {
    pub id: Option<CheckpointId>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StopStep {
    /// Stop inside the next call of this component (only `checkpoint_id_counter`).
    pub during: Option<CoordinatorCall>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AbortStep {
    pub reason: CheckpointFailureReason,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FailNextStep {
    pub call: CoordinatorCall,
    /// What the call throws; only whether it is an `IOException` matters.
    #[serde(default)]
    pub exception: ExceptionKind,
    /// How many of the next calls fail (0 disarms).
    #[serde(default = "once")]
    pub times: u32,
}

fn once() -> u32 {
    1
}

/// The exception a failing call throws.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
pub enum ExceptionKind {
    #[default]
    #[serde(rename = "IOException")]
    IoException,
    Exception,
    RuntimeException,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Empty {}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StartStep {
    #[serde(default)]
    pub random: u64,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TriggerKind {
    Checkpoint,
    /// What the `ScheduledTrigger` submits (`triggerCheckpoint(true)`): subject to the min
    /// pause, and refused while the scheduler is stopped.
    PeriodicCheckpoint,
    Savepoint,
    StopWithSavepoint,
}

impl TriggerKind {
    pub fn props(self) -> CheckpointProperties {
        match self {
            TriggerKind::Checkpoint => CheckpointProperties::user_checkpoint(),
            TriggerKind::PeriodicCheckpoint => CheckpointProperties::periodic_checkpoint(),
            TriggerKind::Savepoint => CheckpointProperties::savepoint(),
            TriggerKind::StopWithSavepoint => CheckpointProperties::sync_savepoint(),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AckStep {
    /// The job the message names; left out: the coordinator's own (`"replay"`).
    pub job: Option<String>,
    pub id: CheckpointId,
    pub task: Task,
    #[serde(default)]
    pub sync: Dur,
    #[serde(default, rename = "async")]
    pub async_: Dur,
    #[serde(default)]
    pub alignment: Dur,
    #[serde(default)]
    pub start_delay: Dur,
    #[serde(default)]
    pub state_size: Bytes,
    #[serde(default)]
    pub checkpointed_size: Bytes,
    #[serde(default)]
    pub persisted: Bytes,
    #[serde(default)]
    pub processed: Bytes,
    #[serde(default)]
    pub unaligned: bool,
}

impl AckStep {
    pub fn metrics(&self) -> SubtaskCheckpointMetrics {
        SubtaskCheckpointMetrics {
            sync_duration: self.sync.0,
            async_duration: self.async_.0,
            alignment_duration: self.alignment.0,
            start_delay: self.start_delay.0,
            processed_bytes: self.processed.0,
            persisted_bytes: self.persisted.0,
            state_size: self.state_size.0,
            checkpointed_size: self.checkpointed_size.0,
            unaligned: self.unaligned,
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeclineStep {
    /// As in [`AckStep`].
    pub job: Option<String>,
    pub id: CheckpointId,
    pub task: Task,
    #[serde(default = "declined")]
    pub reason: CheckpointFailureReason,
}

fn declined() -> CheckpointFailureReason {
    CheckpointFailureReason::CHECKPOINT_DECLINED
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CoordinatorStepSpec {
    pub id: CheckpointId,
    pub coordinator: String,
}

/// A step that names one checkpoint.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpireStep {
    pub id: CheckpointId,
}

impl TasksSpec {
    /// The plan as `SetPlan` wants it; duplicates and sources outside `all` are script mistakes.
    pub fn plan(&self) -> Result<(Vec<SubtaskId>, Vec<SubtaskId>), String> {
        let all = unique("all", &self.all)?;
        let sources = unique("sources", &self.sources)?;
        let known: BTreeSet<SubtaskId> = all.iter().copied().collect();
        if let Some(s) = sources.iter().find(|s| !known.contains(s)) {
            return Err(format!(
                "\"tasks\": source {} is not listed in \"all\"",
                task_name(*s)
            ));
        }
        Ok((sources, all))
    }
}

fn unique(field: &str, tasks: &[Task]) -> Result<Vec<SubtaskId>, String> {
    let mut seen = BTreeSet::new();
    for t in tasks {
        if !seen.insert(t.0) {
            return Err(format!(
                "\"tasks\": {} is listed twice in \"{field}\"",
                task_name(t.0)
            ));
        }
    }
    Ok(tasks.iter().map(|t| t.0).collect())
}

/// Builds the coordinator's configuration through the scenario's `FlinkConfig`, so keys,
/// deprecated names, bounds and defaults are exactly those of a scenario.
pub fn coordinator_config(
    map: &BTreeMap<String, Value>,
) -> Result<CheckpointCoordinatorConfiguration, String> {
    let mut text = BTreeMap::new();
    for (key, value) in map {
        let s = match value {
            Value::String(s) => s.clone(),
            Value::Bool(b) => b.to_string(),
            Value::Number(n) => {
                // A bare number is milliseconds to Flink but microseconds in replay steps; make
                // the script say which it means.
                if resolve_key(key)
                    .is_ok_and(|info| matches!(info.kind, ValueKind::Duration { .. }))
                {
                    return Err(format!(
                        "config: '{key}' is a duration; write it as a string with a unit, e.g. \"{n}ms\""
                    ));
                }
                n.to_string()
            }
            other => {
                return Err(format!(
                    "config: '{key}' must be a string, number or boolean, got {other}"
                ))
            }
        };
        text.insert(key.clone(), s);
    }
    let flink =
        FlinkConfig::from_map(&text).map_err(|errors| format!("config: {}", errors.join("; ")))?;
    Ok(CheckpointCoordinatorConfiguration {
        interval: flink.checkpoint_interval,
        timeout: flink.checkpoint_timeout,
        min_pause: flink.min_pause,
        max_concurrent: flink.max_concurrent_checkpoints,
        // Flink's Integer.MAX_VALUE turns counting off; the coordinator spells that u32::MAX.
        tolerable_failed_checkpoints: match flink.tolerable_failed_checkpoints {
            n if n >= i32::MAX as u32 => u32::MAX,
            n => n,
        },
        num_retained: flink.num_retained,
        exactly_once: flink.checkpointing_mode == CheckpointingMode::ExactlyOnce,
        unaligned: flink.unaligned_enabled,
        aligned_checkpoint_timeout: flink.aligned_checkpoint_timeout,
        checkpoints_after_tasks_finish: flink.checkpoints_after_tasks_finish,
        externalized_retention: match flink.externalized_checkpoint_retention {
            ExternalizedCheckpointRetention::NoExternalizedCheckpoints => {
                Retention::NoExternalizedCheckpoints
            }
            ExternalizedCheckpointRetention::DeleteOnCancellation => {
                Retention::DeleteOnCancellation
            }
            ExternalizedCheckpointRetention::RetainOnCancellation => {
                Retention::RetainOnCancellation
            }
        },
    })
}
