//! Drives the `CheckpointRequestDecider` on its own, as Flink's `CheckpointRequestDeciderTest`
//! does: the script submits requests and sets what the decider is told about the coordinator
//! (pending checkpoints, a trigger in progress, checkpoints being cleaned up, the last completion).

use serde::Deserialize;
use serde_json::Value;

use super::coordinator_script::TriggerKind;
use super::report::{
    DeciderEffect, DeciderSnapshot, Effect, Emitted, MachineState, ReplayReport, ReplayStart,
    ReplayStep, Via,
};
use super::values::Dur;
use super::{parse_script, parse_step, report::Machine, step_error};
use crate::coordinator::request_decider::DEFAULT_MAX_QUEUED_REQUESTS;
use crate::coordinator::{CheckpointRequestDecider, DeciderContext, DeciderOutcome};
use crate::types::Micros;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct DeciderScript {
    version: u32,
    machine: Machine,
    /// `execution.checkpointing.max-concurrent-checkpoints`.
    #[serde(default = "one")]
    max_concurrent: u32,
    /// `execution.checkpointing.min-pause`.
    #[serde(default)]
    min_pause: Dur,
    /// The queue's bound (Flink's default 1000; its tests use smaller ones).
    #[serde(default = "default_max_queued")]
    max_queued: usize,
    steps: Vec<Value>,
}

fn one() -> u32 {
    1
}

fn default_max_queued() -> usize {
    DEFAULT_MAX_QUEUED_REQUESTS
}

/// The step names of [`DeciderStep`], for messages.
pub const DECIDER_STEP_KINDS: &[&str] = &["advance", "set", "submit", "choose"];

#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
enum DeciderStep {
    Advance(Dur),
    /// Change what the decider is told; fields left out keep their value.
    Set(SetStep),
    /// `chooseRequestToExecute(newRequest, isTriggering, lastCompletionMs)`.
    Submit(SubmitStep),
    /// `chooseQueuedRequestToExecute(isTriggering, lastCompletionMs)`.
    Choose(Empty),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SetStep {
    pending: Option<usize>,
    triggering: Option<bool>,
    cleaning: Option<usize>,
    /// `null` for "no checkpoint completed yet".
    #[serde(default, deserialize_with = "some_or_null")]
    last_completion: Option<Option<Dur>>,
}

/// Tells a missing field (keep) from an explicit `null` (clear).
fn some_or_null<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Option<Dur>>, D::Error> {
    Option::<Dur>::deserialize(d).map(Some)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SubmitStep {
    #[serde(default = "checkpoint")]
    kind: TriggerKind,
    /// From the `ScheduledTrigger` (only then does the min pause apply); defaults to what the
    /// kind implies (only `periodic-checkpoint` is).
    periodic: Option<bool>,
    /// Defaults to what the kind implies: savepoints are forced, checkpoints are not.
    forced: Option<bool>,
}

fn checkpoint() -> TriggerKind {
    TriggerKind::Checkpoint
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Empty {}

pub(super) fn run(value: Value) -> Result<ReplayReport, String> {
    let script: DeciderScript = parse_script(value)?;
    if script.max_concurrent == 0 {
        return Err("script: \"max_concurrent\" must be at least 1".into());
    }
    let mut decider = CheckpointRequestDecider::with_max_queued(
        script.max_concurrent,
        script.min_pause.0,
        script.max_queued,
    );
    let mut ctx = DeciderContext::default();
    let mut now: Micros = 0;
    let snapshot = |d: &CheckpointRequestDecider, ctx: DeciderContext| {
        MachineState::Decider(DeciderSnapshot {
            queue: d.queued().to_vec(),
            context: ctx,
            max_concurrent: script.max_concurrent,
            min_pause: script.min_pause.0,
            max_queued: script.max_queued,
        })
    };
    let start = ReplayStart {
        time: 0,
        effects: Vec::new(),
        state: snapshot(&decider, ctx),
    };
    let mut steps = Vec::with_capacity(script.steps.len());
    for (index, raw) in script.steps.iter().enumerate() {
        if super::is_expect(raw) {
            continue;
        }
        let step: DeciderStep = parse_step(index, raw, DECIDER_STEP_KINDS)?;
        let outcome = match step {
            DeciderStep::Advance(d) => {
                now = now
                    .checked_add(d.0)
                    .ok_or_else(|| step_error(index, raw, "the clock would overflow"))?;
                None
            }
            DeciderStep::Set(s) => {
                ctx.pending = s.pending.unwrap_or(ctx.pending);
                ctx.is_triggering = s.triggering.unwrap_or(ctx.is_triggering);
                ctx.cleaning = s.cleaning.unwrap_or(ctx.cleaning);
                if let Some(last) = s.last_completion {
                    ctx.last_completion = last.map(|d| d.0);
                }
                None
            }
            DeciderStep::Submit(s) => {
                let mut props = s.kind.props();
                props.periodic = s.periodic.unwrap_or(props.periodic);
                props.forced = s.forced.unwrap_or(props.forced);
                Some(decider.submit(props, now, ctx))
            }
            DeciderStep::Choose(Empty {}) => Some(decider.choose_queued(now, ctx)),
        };
        steps.push(ReplayStep {
            step: index,
            time: now,
            input: raw.clone(),
            effects: outcome.map(|o| effects(now, o)).unwrap_or_default(),
            state: snapshot(&decider, ctx),
        });
    }
    Ok(ReplayReport::new(
        script.version,
        script.machine,
        start,
        steps,
    ))
}

/// Failures first (Flink completes them exceptionally inside the decision), then the reschedule,
/// then the request to execute.
fn effects(at: Micros, outcome: DeciderOutcome) -> Vec<Emitted> {
    let emitted = |effect| Emitted {
        at,
        via: Via::Input,
        effect: Effect::Decider(effect),
    };
    let mut out: Vec<Emitted> = outcome
        .failed
        .into_iter()
        .map(|(request, reason)| emitted(DeciderEffect::Failed { request, reason }))
        .collect();
    if let Some(after) = outcome.reschedule_periodic_after {
        out.push(emitted(DeciderEffect::RescheduleTrigger { after }));
    }
    if let Some(request) = outcome.execute {
        out.push(emitted(DeciderEffect::Execute { request }));
    }
    out
}
