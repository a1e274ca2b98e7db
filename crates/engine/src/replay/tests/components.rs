//! The `request-decider` and `failure-manager` machines: Flink's components on their own.

use super::support::*;
use crate::replay::{DeciderEffect, Effect, MachineState};

fn decider_fx(r: &crate::replay::ReplayReport, step: usize) -> Vec<DeciderEffect> {
    let s = r.steps.iter().find(|s| s.step == step).expect("step ran");
    s.effects
        .iter()
        .filter_map(|e| match &e.effect {
            Effect::Decider(d) => Some(d.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn decider_waits_while_triggering_and_while_too_many_are_cleaned() {
    let r = run(
        r#"{"version": 1, "machine": "request-decider", "max_concurrent": 1,
        "steps": [
            {"set": {"triggering": true}},
            {"submit": {"periodic": true}},
            {"set": {"triggering": false, "cleaning": 2}},
            {"choose": {}},
            {"set": {"cleaning": 1}},
            {"choose": {}}
        ]}"#,
    );
    assert!(
        decider_fx(&r, 1).is_empty(),
        "nothing starts while a trigger is in progress"
    );
    assert!(
        decider_fx(&r, 3).is_empty(),
        "nor while more than max-concurrent are cleaned"
    );
    match decider_fx(&r, 5).as_slice() {
        [DeciderEffect::Execute { request }] => assert!(request.props.periodic),
        other => panic!("{other:?}"),
    }
}

#[test]
fn decider_min_pause_fails_the_periodic_head_and_reschedules() {
    let r = run(
        r#"{"version": 1, "machine": "request-decider", "min_pause": "10ms",
        "steps": [
            {"set": {"last_completion": "0ms"}},
            {"advance": "4ms"},
            {"submit": {"periodic": true}},
            {"submit": {"kind": "checkpoint"}},
            {"set": {"last_completion": null}},
            {"submit": {"periodic": true}}
        ]}"#,
    );
    let fx = decider_fx(&r, 2);
    assert!(matches!(fx[0], DeciderEffect::Failed { .. }), "{fx:?}");
    assert_eq!(fx[1], DeciderEffect::RescheduleTrigger { after: 6_000 });
    // A user checkpoint ignores the min pause.
    assert!(matches!(
        decider_fx(&r, 3)[..],
        [DeciderEffect::Execute { .. }]
    ));
    assert!(matches!(
        decider_fx(&r, 5)[..],
        [DeciderEffect::Execute { .. }]
    ));
}

#[test]
fn failure_manager_counts_each_checkpoint_once_and_fails_the_job_beyond_the_tolerance() {
    let r = run(
        r#"{"version": 1, "machine": "failure-manager", "tolerable_failed_checkpoints": 1,
        "steps": [
            {"failure": {"id": 1, "reason": "CHECKPOINT_DECLINED", "from_task": true}},
            {"failure": {"id": 1, "reason": "CHECKPOINT_DECLINED", "from_task": true}},
            {"failure": {"id": 2, "reason": "CHECKPOINT_EXPIRED"}},
            {"success": {"id": 4}},
            {"failure": {"id": 3, "reason": "CHECKPOINT_EXPIRED"}}
        ]}"#,
    );
    let counter = |i: usize| match &r.steps[i].state {
        MachineState::FailureManager(f) => f.continuous_failure_counter,
        other => panic!("{other:?}"),
    };
    assert_eq!((counter(0), counter(1)), (1, 1));
    assert!(r.steps[1].effects.is_empty());
    assert_eq!(
        r.steps[2].effects.len(),
        1,
        "the second failed checkpoint exceeds 1"
    );
    assert_eq!(counter(2), 0, "failing the job resets the count");
    // A failure older than the last success is ignored.
    assert_eq!(counter(4), 0);
}

#[test]
fn component_scripts_refuse_bad_input() {
    let e =
        error(r#"{"version": 1, "machine": "request-decider", "max_concurrent": 0, "steps": []}"#);
    assert!(e.contains("\"max_concurrent\" must be at least 1"), "{e}");
    let e = error(
        r#"{"version": 1, "machine": "request-decider", "steps": [{"submit": {"kind": "nap"}}]}"#,
    );
    assert!(e.starts_with("step 0 "), "{e}");
    let e = error(r#"{"version": 1, "machine": "failure-manager", "steps": []}"#);
    assert!(e.contains("tolerable_failed_checkpoints"), "{e}");
    let e = error(
        r#"{"version": 1, "machine": "failure-manager", "tolerable_failed_checkpoints": 0,
        "steps": [{"failure": {"reason": "NOT_A_REASON"}}]}"#,
    );
    assert!(e.starts_with("step 0 "), "{e}");
}
