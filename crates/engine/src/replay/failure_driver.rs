//! Drives the `CheckpointFailureManager` on its own, as Flink's `CheckpointFailureManagerTest`
//! does: the script reports failures and successes; the report shows the counter and when the
//! manager fails the job.

use serde::Deserialize;
use serde_json::Value;

use super::coordinator_script::TriggerKind;
use super::report::{
    Effect, Emitted, FailureManagerEffect, FailureManagerSnapshot, MachineState, ReplayReport,
    ReplayStart, ReplayStep, Via,
};
use super::{parse_script, parse_step, report::Machine};
use crate::coordinator::{CheckpointFailureManager, CheckpointFailureReason};
use crate::types::CheckpointId;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FailureScript {
    version: u32,
    machine: Machine,
    /// `execution.checkpointing.tolerable-failed-checkpoints`; Flink's `Integer.MAX_VALUE`
    /// (2147483647) or more turns counting off.
    tolerable_failed_checkpoints: u64,
    steps: Vec<Value>,
}

/// The step names of [`FailureStep`], for messages.
pub const FAILURE_STEP_KINDS: &[&str] = &["failure", "success"];

#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
enum FailureStep {
    /// `handleCheckpointException`: job level (`from_task: false`, the coordinator's own
    /// failures) or task level (a task declined).
    Failure(FailureSpec),
    /// `handleCheckpointSuccess`.
    Success(SuccessSpec),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FailureSpec {
    /// Left out: the failure happened before an id was assigned (`UNKNOWN_CHECKPOINT_ID`).
    id: Option<CheckpointId>,
    reason: CheckpointFailureReason,
    #[serde(default = "checkpoint")]
    kind: TriggerKind,
    #[serde(default)]
    from_task: bool,
}

fn checkpoint() -> TriggerKind {
    TriggerKind::Checkpoint
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SuccessSpec {
    id: CheckpointId,
}

pub(super) fn run(value: Value) -> Result<ReplayReport, String> {
    let script: FailureScript = parse_script(value)?;
    let tolerable = match script.tolerable_failed_checkpoints {
        n if n >= i32::MAX as u64 => u32::MAX,
        n => n as u32,
    };
    let mut manager = CheckpointFailureManager::new(tolerable);
    let start = ReplayStart {
        time: 0,
        effects: Vec::new(),
        state: snapshot(&manager),
    };
    let mut steps = Vec::with_capacity(script.steps.len());
    for (index, raw) in script.steps.iter().enumerate() {
        if super::is_expect(raw) {
            continue;
        }
        let step: FailureStep = parse_step(index, raw, FAILURE_STEP_KINDS)?;
        let mut effects = Vec::new();
        match step {
            FailureStep::Failure(f) => {
                let props = f.kind.props();
                if let Some(message) =
                    manager.handle_checkpoint_exception(&props, f.reason, f.id, f.from_task)
                {
                    effects.push(Emitted {
                        at: 0,
                        via: Via::Input,
                        effect: Effect::FailureManager(FailureManagerEffect::FailJob { message }),
                    });
                }
            }
            FailureStep::Success(s) => manager.handle_checkpoint_success(s.id),
        }
        steps.push(ReplayStep {
            step: index,
            time: 0,
            input: raw.clone(),
            effects,
            state: snapshot(&manager),
        });
    }
    Ok(ReplayReport::new(
        script.version,
        script.machine,
        start,
        steps,
    ))
}

fn snapshot(m: &CheckpointFailureManager) -> MachineState {
    MachineState::FailureManager(FailureManagerSnapshot {
        continuous_failure_counter: m.continuous_failure_counter(),
        tolerable_failed_checkpoints: m.tolerable_failed_checkpoints(),
        last_succeeded_checkpoint_id: m.last_succeeded_checkpoint_id(),
        counted_checkpoint_ids: m.counted_checkpoint_ids().collect(),
    })
}
