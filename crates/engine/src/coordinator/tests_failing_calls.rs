//! Coordinator-side failures (replay inputs; the simulation never arms one): a failing id
//! counter, storage location, master hook, trigger RPC, `_metadata` write or completed store,
//! `abortPendingCheckpoints` with a chosen reason, and a scheduler stopped inside the id counter.
//! These run the coordinator in one step (the simulation's mode); the replay fixtures under
//! `tests/fixtures/replay/flink/` cover the asynchronous trigger.

use super::*;
use crate::types::{SubtaskId, MICROS_PER_SEC};
use CheckpointFailureReason as R;
use CoordinatorEffect as E;

fn st(vertex: u32, subtask: u32) -> SubtaskId {
    SubtaskId { vertex, subtask }
}

/// Source (0,0) → sink (1,0); 10 tolerable failures unless said otherwise.
fn coordinator(cfg: CheckpointCoordinatorConfiguration) -> CheckpointCoordinator {
    let mut c = CheckpointCoordinator::new(cfg, "job1");
    c.handle(
        0,
        CoordinatorInput::SetPlan {
            sources: vec![st(0, 0)],
            all: vec![st(0, 0), st(1, 0)],
        },
    );
    c
}

fn tolerant() -> CheckpointCoordinatorConfiguration {
    CheckpointCoordinatorConfiguration {
        tolerable_failed_checkpoints: 10,
        max_concurrent: 5,
        ..Default::default()
    }
}

fn fail_next(c: &mut CheckpointCoordinator, call: CoordinatorCall, io: bool, times: u32) {
    let fx = c.handle(
        0,
        CoordinatorInput::FailNextCalls {
            call,
            io_exception: io,
            times,
        },
    );
    assert!(fx.is_empty(), "arming a failure emits nothing: {fx:?}");
}

fn trigger(c: &mut CheckpointCoordinator, props: CheckpointProperties) -> Vec<CoordinatorEffect> {
    c.handle(1, CoordinatorInput::TriggerRequest { props })
}

fn ack(c: &mut CheckpointCoordinator, id: u64, s: SubtaskId) -> Vec<CoordinatorEffect> {
    c.handle(
        2,
        CoordinatorInput::Acknowledge {
            job: None,
            id,
            subtask: s,
            metrics: SubtaskCheckpointMetrics::default(),
            handle_key: 0,
        },
    )
}

fn ack_all(c: &mut CheckpointCoordinator, id: u64) -> Vec<CoordinatorEffect> {
    ack(c, id, st(0, 0));
    ack(c, id, st(1, 0))
}

fn aborted(fx: &[CoordinatorEffect]) -> Vec<(u64, CheckpointFailureReason)> {
    fx.iter()
        .filter_map(|e| match e {
            E::CheckpointAborted { id, reason } => Some((*id, *reason)),
            _ => None,
        })
        .collect()
}

fn has(fx: &[CoordinatorEffect], pred: fn(&CoordinatorEffect) -> bool) -> bool {
    fx.iter().any(pred)
}

/// `CheckpointIDCounter.getAndIncrement` fails before the pending checkpoint exists: no id is
/// used up, no pending statistics are reported, only the failed count grows.
#[test]
fn a_failing_id_counter_rejects_the_request_before_any_pending_checkpoint() {
    let mut c = coordinator(tolerant());
    fail_next(&mut c, CoordinatorCall::CheckpointIdCounter, true, 1);
    let fx = trigger(&mut c, CheckpointProperties::user_checkpoint());
    assert_eq!(
        fx,
        [E::RequestRejected {
            props: CheckpointProperties::user_checkpoint(),
            reason: R::IO_EXCEPTION
        }]
    );
    assert!(c.pending_checkpoints().is_empty());
    assert_eq!(c.next_checkpoint_id(), 1);
    assert_eq!(c.stats().counts.failed, 1);
    assert_eq!(c.stats().history().count(), 0);
    assert_eq!(c.failure_counter(), 1, "IO_EXCEPTION counts");
    // Any other exception is a TRIGGER_CHECKPOINT_FAILURE, which does not count.
    fail_next(&mut c, CoordinatorCall::CheckpointIdCounter, false, 1);
    let fx = trigger(&mut c, CheckpointProperties::user_checkpoint());
    assert!(matches!(
        fx[..],
        [E::RequestRejected {
            reason: R::TRIGGER_CHECKPOINT_FAILURE,
            ..
        }]
    ));
    assert_eq!(c.failure_counter(), 1);
    // Disarmed after one call: the next request gets id 1.
    let fx = trigger(&mut c, CheckpointProperties::user_checkpoint());
    assert!(has(&fx, |e| matches!(e, E::TriggerTasks { id: 1, .. })));
}

/// The storage location is initialized after the pending checkpoint is created: its failure
/// aborts the checkpoint, whose statistics exist, and the operator coordinators and tasks are
/// never asked.
#[test]
fn a_failing_storage_location_aborts_the_new_checkpoint() {
    let names = vec!["op".to_string()];
    let mut c = coordinator(tolerant()).with_operator_coordinators(names);
    fail_next(&mut c, CoordinatorCall::StorageLocation, true, 1);
    let fx = trigger(&mut c, CheckpointProperties::user_checkpoint());
    assert_eq!(aborted(&fx), [(1, R::IO_EXCEPTION)]);
    assert!(!has(&fx, |e| matches!(
        e,
        E::TriggerTasks { .. } | E::CheckpointOperatorCoordinators { .. }
    )));
    assert!(has(&fx, |e| matches!(
        e,
        E::NotifyOperatorCoordinatorsAborted { id: 1, .. }
    )));
    assert!(c.pending_checkpoints().is_empty());
    assert_eq!(
        c.stats().history().count(),
        1,
        "the pending statistics exist"
    );
    assert_eq!(c.next_checkpoint_id(), 2);
}

/// A master hook whose snapshot fails fails the trigger; no task is triggered.
#[test]
fn a_failing_master_hook_aborts_before_the_tasks_are_triggered() {
    let mut c = coordinator(tolerant());
    fail_next(&mut c, CoordinatorCall::MasterHooks, false, 1);
    let fx = trigger(&mut c, CheckpointProperties::user_checkpoint());
    assert_eq!(aborted(&fx), [(1, R::TRIGGER_CHECKPOINT_FAILURE)]);
    assert!(!has(&fx, |e| matches!(e, E::TriggerTasks { .. })));
}

/// A failing trigger RPC aborts the checkpoint after its tasks were asked, and every task of
/// the plan is told.
#[test]
fn a_failing_trigger_rpc_aborts_the_triggered_checkpoint() {
    let mut c = coordinator(tolerant());
    fail_next(&mut c, CoordinatorCall::TriggerRpc, true, 1);
    let fx = trigger(&mut c, CheckpointProperties::user_checkpoint());
    let triggered = fx
        .iter()
        .position(|e| matches!(e, E::TriggerTasks { id: 1, .. }))
        .expect("the tasks are triggered");
    let abort = fx
        .iter()
        .position(|e| matches!(e, E::CheckpointAborted { .. }))
        .expect("then the checkpoint aborts");
    assert!(triggered < abort);
    assert_eq!(aborted(&fx), [(1, R::TRIGGER_CHECKPOINT_FAILURE)]);
    assert!(fx.contains(&E::NotifyCheckpointAborted {
        id: 1,
        tasks: vec![st(0, 0), st(1, 0)]
    }));
}

/// The `_metadata` write and the completed checkpoint store fail a fully acknowledged
/// checkpoint with FINALIZE_CHECKPOINT_FAILURE; savepoints never reach the store, so its armed
/// failure waits for the next checkpoint.
#[test]
fn failing_metadata_or_store_fails_the_completion() {
    let mut c = coordinator(tolerant());
    fail_next(&mut c, CoordinatorCall::Metadata, true, 1);
    trigger(&mut c, CheckpointProperties::user_checkpoint());
    let fx = ack_all(&mut c, 1);
    assert_eq!(aborted(&fx), [(1, R::FINALIZE_CHECKPOINT_FAILURE)]);
    assert!(!has(&fx, |e| matches!(e, E::CheckpointCompleted { .. })));
    assert!(fx.contains(&E::CancelTimer {
        timer: CoordinatorTimer::Expiry(1)
    }));
    assert_eq!(c.latest_completed_id(), None);
    assert_eq!(c.failure_counter(), 1, "FINALIZE_CHECKPOINT_FAILURE counts");

    fail_next(&mut c, CoordinatorCall::CompletedStore, false, 1);
    trigger(&mut c, CheckpointProperties::savepoint());
    let fx = ack_all(&mut c, 2);
    assert!(
        has(&fx, |e| matches!(e, E::CheckpointCompleted { .. })),
        "a savepoint is not stored, so the store cannot fail it"
    );
    assert_eq!(c.failing_calls().count(), 1, "still armed");
    trigger(&mut c, CheckpointProperties::user_checkpoint());
    let fx = ack_all(&mut c, 3);
    assert_eq!(aborted(&fx), [(3, R::FINALIZE_CHECKPOINT_FAILURE)]);
    assert!(fx.contains(&E::NotifyCheckpointAborted {
        id: 3,
        tasks: vec![st(0, 0), st(1, 0)]
    }));
    assert!(c.completed_store().is_empty());
    assert_eq!(c.failing_calls().count(), 0);
    // Nothing failed afterwards: the next checkpoint completes and resets the counter.
    trigger(&mut c, CheckpointProperties::user_checkpoint());
    let fx = ack_all(&mut c, 4);
    assert!(has(&fx, |e| matches!(e, E::CheckpointCompleted { .. })));
    assert_eq!(c.failure_counter(), 0);
}

/// A failed completion re-examines the queue, as `completePendingCheckpoint`'s `finally` does.
#[test]
fn a_failed_completion_lets_the_queued_request_run() {
    let cfg = CheckpointCoordinatorConfiguration {
        max_concurrent: 1,
        ..tolerant()
    };
    let mut c = coordinator(cfg);
    fail_next(&mut c, CoordinatorCall::Metadata, false, 1);
    trigger(&mut c, CheckpointProperties::user_checkpoint());
    let fx = trigger(&mut c, CheckpointProperties::user_checkpoint());
    assert!(has(&fx, |e| matches!(e, E::RequestQueued { .. })));
    let fx = ack_all(&mut c, 1);
    assert!(has(&fx, |e| matches!(e, E::TriggerTasks { id: 2, .. })));
}

/// `times` counts the failing calls; 0 disarms.
#[test]
fn times_counts_the_failing_calls_and_zero_disarms() {
    let mut c = coordinator(tolerant());
    fail_next(&mut c, CoordinatorCall::StorageLocation, true, 2);
    assert_eq!(
        c.failing_calls().collect::<Vec<_>>(),
        [(CoordinatorCall::StorageLocation, true, 2)]
    );
    for id in [1, 2] {
        let fx = trigger(&mut c, CheckpointProperties::user_checkpoint());
        assert_eq!(aborted(&fx), [(id, R::IO_EXCEPTION)]);
    }
    let fx = trigger(&mut c, CheckpointProperties::user_checkpoint());
    assert!(aborted(&fx).is_empty());
    fail_next(&mut c, CoordinatorCall::TriggerRpc, true, 3);
    fail_next(&mut c, CoordinatorCall::TriggerRpc, true, 0);
    let fx = trigger(&mut c, CheckpointProperties::user_checkpoint());
    assert!(aborted(&fx).is_empty());
}

/// `abortPendingCheckpoints(reason)` aborts every pending checkpoint at job level with that
/// reason, and then examines the queue once.
#[test]
fn abort_pending_checkpoints_uses_the_reason_and_counts_once_per_checkpoint() {
    let cfg = CheckpointCoordinatorConfiguration {
        max_concurrent: 2,
        tolerable_failed_checkpoints: 1,
        ..Default::default()
    };
    let mut c = coordinator(cfg);
    trigger(&mut c, CheckpointProperties::user_checkpoint());
    trigger(&mut c, CheckpointProperties::user_checkpoint());
    let fx = trigger(&mut c, CheckpointProperties::user_checkpoint());
    assert!(has(&fx, |e| matches!(e, E::RequestQueued { .. })));
    let fx = c.handle(
        3,
        CoordinatorInput::AbortPendingCheckpoints {
            reason: R::IO_EXCEPTION,
        },
    );
    assert_eq!(aborted(&fx), [(1, R::IO_EXCEPTION), (2, R::IO_EXCEPTION)]);
    assert!(
        has(&fx, |e| matches!(e, E::FailJob { .. })),
        "two counted failures exceed 1 tolerable"
    );
    assert_eq!(
        c.pending_checkpoints()
            .iter()
            .map(|p| p.id)
            .collect::<Vec<_>>(),
        [3],
        "the queued request runs after the aborts"
    );
    let last_abort = fx
        .iter()
        .rposition(|e| matches!(e, E::CheckpointAborted { .. }))
        .unwrap();
    let started = fx
        .iter()
        .position(|e| matches!(e, E::TriggerTasks { id: 3, .. }))
        .unwrap();
    assert!(last_abort < started);
    // With nothing pending it changes nothing.
    c.handle(
        4,
        CoordinatorInput::AbortPendingCheckpoints {
            reason: R::IO_EXCEPTION,
        },
    );
    let fx = c.handle(
        5,
        CoordinatorInput::AbortPendingCheckpoints {
            reason: R::IO_EXCEPTION,
        },
    );
    assert!(fx.is_empty());
}

/// The coordinator aborts at job level: a savepoint's failure there is not counted, where a
/// task's decline of it would be.
#[test]
fn abort_pending_checkpoints_is_a_job_level_failure() {
    let mut c = coordinator(CheckpointCoordinatorConfiguration::default());
    trigger(&mut c, CheckpointProperties::savepoint());
    let fx = c.handle(
        3,
        CoordinatorInput::AbortPendingCheckpoints {
            reason: R::CHECKPOINT_DECLINED,
        },
    );
    assert_eq!(aborted(&fx), [(1, R::CHECKPOINT_DECLINED)]);
    assert!(!has(&fx, |e| matches!(e, E::FailJob { .. })));
    assert_eq!(c.failure_counter(), 0);
}

/// Flink's `StoppingCheckpointIDCounter`: the scheduler stops while the id is assigned.
/// `createPendingCheckpoint` checks again, so a periodic request fails (its id used up), while
/// a user request goes on.
#[test]
fn a_scheduler_stopped_inside_the_id_counter_fails_only_periodic_requests() {
    let cfg = CheckpointCoordinatorConfiguration {
        interval: Some(10 * MICROS_PER_SEC),
        ..tolerant()
    };
    let mut c = coordinator(cfg);
    c.handle(0, CoordinatorInput::StartScheduler { random: 0 });
    assert!(c
        .handle(0, CoordinatorInput::StopSchedulerInNextIdCounterCall)
        .is_empty());
    assert!(c.stops_scheduler_in_next_id_counter_call());
    let fx = trigger(&mut c, CheckpointProperties::periodic_checkpoint());
    assert!(fx.contains(&E::CancelTimer {
        timer: CoordinatorTimer::Periodic
    }));
    assert!(fx.contains(&E::RequestRejected {
        props: CheckpointProperties::periodic_checkpoint(),
        reason: R::PERIODIC_SCHEDULER_SHUTDOWN
    }));
    assert!(c.pending_checkpoints().is_empty());
    assert!(!c.is_periodic_scheduling());
    assert!(!c.stops_scheduler_in_next_id_counter_call());
    assert_eq!(c.next_checkpoint_id(), 2, "the counter returned its id");

    c.handle(0, CoordinatorInput::StartScheduler { random: 0 });
    c.handle(0, CoordinatorInput::StopSchedulerInNextIdCounterCall);
    let fx = trigger(&mut c, CheckpointProperties::user_checkpoint());
    assert!(has(&fx, |e| matches!(e, E::TriggerTasks { id: 2, .. })));
    assert!(!c.is_periodic_scheduling());
}
