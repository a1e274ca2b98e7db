//! Coordinator behaviour tests: scheduling, queueing, acks, failures, retention, determinism.

use super::*;
use crate::types::{Micros, SubtaskId, MICROS_PER_MS, MICROS_PER_SEC};

const S: Micros = MICROS_PER_SEC;

fn st(vertex: u32, subtask: u32) -> SubtaskId {
    SubtaskId { vertex, subtask }
}

/// The decider's view with `n` pending checkpoints and nothing else going on.
fn pending(n: usize) -> DeciderContext {
    DeciderContext {
        pending: n,
        ..DeciderContext::default()
    }
}

fn config(interval_s: u64) -> CheckpointCoordinatorConfiguration {
    CheckpointCoordinatorConfiguration {
        interval: Some(interval_s * S),
        ..Default::default()
    }
}

/// A two-vertex job: source (0,0) → sink (1,0).
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

fn triggered(fx: &[CoordinatorEffect]) -> Vec<u64> {
    fx.iter()
        .filter_map(|e| match e {
            CoordinatorEffect::TriggerTasks { id, .. } => Some(*id),
            _ => None,
        })
        .collect()
}

fn periodic_at(fx: &[CoordinatorEffect]) -> Option<Micros> {
    fx.iter().rev().find_map(|e| match e {
        CoordinatorEffect::ScheduleTimer {
            at,
            timer: CoordinatorTimer::Periodic,
        } => Some(*at),
        _ => None,
    })
}

fn ack(
    c: &mut CheckpointCoordinator,
    now: Micros,
    id: u64,
    s: SubtaskId,
) -> Vec<CoordinatorEffect> {
    c.handle(
        now,
        CoordinatorInput::Acknowledge {
            job: None,
            id,
            subtask: s,
            metrics: SubtaskCheckpointMetrics {
                state_size: 100,
                checkpointed_size: 60,
                ..Default::default()
            },
            handle_key: id * 10 + s.vertex as u64,
        },
    )
}

fn ack_all(c: &mut CheckpointCoordinator, now: Micros, id: u64) -> Vec<CoordinatorEffect> {
    ack(c, now, id, st(0, 0));
    ack(c, now, id, st(1, 0))
}

fn user_trigger(c: &mut CheckpointCoordinator, now: Micros) -> Vec<CoordinatorEffect> {
    c.handle(
        now,
        CoordinatorInput::TriggerRequest {
            props: CheckpointProperties::user_checkpoint(),
        },
    )
}

fn fail_job(fx: &[CoordinatorEffect]) -> bool {
    fx.iter()
        .any(|e| matches!(e, CoordinatorEffect::FailJob { .. }))
}

fn decline(
    c: &mut CheckpointCoordinator,
    now: Micros,
    id: u64,
    reason: CheckpointFailureReason,
) -> Vec<CoordinatorEffect> {
    c.handle(
        now,
        CoordinatorInput::Decline {
            job: None,
            id,
            subtask: st(1, 0),
            reason,
        },
    )
}

#[test]
fn defaults_match_flink_2_3() {
    let d = CheckpointCoordinatorConfiguration::default();
    assert_eq!(d.interval, None);
    assert_eq!(d.timeout, 600 * S);
    assert_eq!(d.min_pause, 0);
    assert_eq!(d.max_concurrent, 1);
    assert_eq!(d.tolerable_failed_checkpoints, 0);
    assert_eq!(d.num_retained, 1);
    assert!(d.exactly_once && !d.unaligned && d.checkpoints_after_tasks_finish);
    assert_eq!(d.aligned_checkpoint_timeout, 0);
    assert_eq!(
        d.externalized_retention,
        ExternalizedCheckpointRetention::NoExternalizedCheckpoints
    );
}

/// Flink 2.3's `CheckpointCoordinatorConfiguration`: an interval below the min pause is raised to it, for
/// the first delay and for the period.
#[test]
fn an_interval_below_the_min_pause_is_raised_to_it() {
    let cfg = CheckpointCoordinatorConfiguration {
        min_pause: 5 * S,
        ..config(2)
    };
    assert_eq!(cfg.base_interval(), 5 * S);
    assert_eq!(cfg.initial_triggering_delay(0), 5 * S);
    assert_eq!(cfg.initial_triggering_delay(u64::MAX), 5 * S);
    let mut c = coordinator(cfg);
    let fx = c.handle(0, CoordinatorInput::StartScheduler { random: 7 });
    assert_eq!(periodic_at(&fx), Some(5 * S));
    let fx = c.handle(5 * S, CoordinatorInput::PeriodicTimerFired);
    assert_eq!(triggered(&fx), [1]);
    assert_eq!(periodic_at(&fx), Some(10 * S));
}

#[test]
fn first_delay_is_within_min_pause_and_interval() {
    let cfg = CheckpointCoordinatorConfiguration {
        min_pause: 2 * S,
        ..config(10)
    };
    assert_eq!(cfg.initial_triggering_delay(0), 2 * S);
    assert_eq!(cfg.initial_triggering_delay(u64::MAX), 10 * S);
    for r in [
        1u64,
        1 << 40,
        u64::MAX / 3,
        u64::MAX / 2,
        0xdead_beef_dead_beef,
    ] {
        let d = cfg.initial_triggering_delay(r);
        assert!((2 * S..=10 * S).contains(&d), "{d}");
    }
    let mut c = coordinator(cfg);
    let fx = c.handle(
        0,
        CoordinatorInput::StartScheduler {
            random: u64::MAX / 2,
        },
    );
    let at = periodic_at(&fx).unwrap();
    assert!((2 * S..=10 * S).contains(&at));
}

#[test]
fn periodic_cadence_is_fixed_rate() {
    let mut c = coordinator(config(10));
    let fx = c.handle(0, CoordinatorInput::StartScheduler { random: 0 });
    assert_eq!(periodic_at(&fx), Some(0));
    let fx = c.handle(0, CoordinatorInput::PeriodicTimerFired);
    assert_eq!(triggered(&fx), vec![1]);
    assert_eq!(periodic_at(&fx), Some(10 * S));
    ack_all(&mut c, 3 * S, 1);
    // Fired a bit late: the next one still lands on the fixed grid.
    let fx = c.handle(10 * S + 5, CoordinatorInput::PeriodicTimerFired);
    assert_eq!(triggered(&fx), vec![2]);
    assert_eq!(periodic_at(&fx), Some(20 * S));
}

#[test]
fn stale_periodic_timer_is_ignored() {
    let mut c = coordinator(config(10));
    c.handle(0, CoordinatorInput::StartScheduler { random: u64::MAX });
    // Armed for 10 s; a fire at 5 s is stale.
    assert!(c
        .handle(5 * S, CoordinatorInput::PeriodicTimerFired)
        .is_empty());
}

#[test]
fn trigger_sends_sources_and_arms_expiry() {
    let mut c = coordinator(config(10));
    let fx = user_trigger(&mut c, 7);
    assert!(fx.contains(&CoordinatorEffect::TriggerTasks {
        id: 1,
        timestamp: 7,
        props: CheckpointProperties::user_checkpoint(),
        unaligned: false,
        tasks: vec![st(0, 0)],
    }));
    assert!(fx.contains(&CoordinatorEffect::ScheduleTimer {
        at: 7 + 600 * S,
        timer: CoordinatorTimer::Expiry(1),
    }));
    assert_eq!(c.pending_checkpoints()[0].total, 2);
}

#[test]
fn max_concurrent_queues_periodic_requests_instead_of_dropping() {
    let mut c = coordinator(config(1));
    c.handle(0, CoordinatorInput::StartScheduler { random: 0 });
    assert_eq!(
        triggered(&c.handle(0, CoordinatorInput::PeriodicTimerFired)),
        vec![1]
    );
    let fx = c.handle(S, CoordinatorInput::PeriodicTimerFired);
    assert!(triggered(&fx).is_empty());
    assert!(fx
        .iter()
        .any(|e| matches!(e, CoordinatorEffect::RequestQueued { .. })));
    c.handle(2 * S, CoordinatorInput::PeriodicTimerFired);
    assert_eq!(c.queued_requests().len(), 2);
    // Completion re-examines the queue: the head runs, one stays queued.
    let fx = ack_all(&mut c, 2 * S + 1, 1);
    assert_eq!(triggered(&fx), vec![2]);
    assert_eq!(c.queued_requests().len(), 1);
}

#[test]
fn min_pause_rejects_periodic_head_and_reschedules() {
    let cfg = CheckpointCoordinatorConfiguration {
        min_pause: 3 * S,
        ..config(5)
    };
    let mut c = coordinator(cfg);
    c.handle(0, CoordinatorInput::StartScheduler { random: u64::MAX });
    c.handle(5 * S, CoordinatorInput::PeriodicTimerFired);
    ack_all(&mut c, 8 * S, 1);
    let fx = c.handle(10 * S, CoordinatorInput::PeriodicTimerFired);
    assert!(triggered(&fx).is_empty());
    assert!(fx.contains(&CoordinatorEffect::RequestRejected {
        props: CheckpointProperties::periodic_checkpoint(),
        reason: CheckpointFailureReason::MINIMUM_TIME_BETWEEN_CHECKPOINTS,
    }));
    // Rescheduled to the end of the pause: 8 s + 3 s.
    assert_eq!(periodic_at(&fx), Some(11 * S));
    assert_eq!(c.failure_counter(), 0);
    let fx = c.handle(11 * S, CoordinatorInput::PeriodicTimerFired);
    assert_eq!(triggered(&fx), vec![2]);
}

#[test]
fn user_checkpoint_ignores_min_pause() {
    let cfg = CheckpointCoordinatorConfiguration {
        min_pause: 5 * S,
        ..config(10)
    };
    let mut c = coordinator(cfg);
    user_trigger(&mut c, 0);
    ack_all(&mut c, S, 1);
    assert_eq!(triggered(&user_trigger(&mut c, 2 * S)), vec![2]);
}

#[test]
fn savepoint_jumps_the_queue() {
    let mut d = CheckpointRequestDecider::new(1, 0);
    d.submit(CheckpointProperties::periodic_checkpoint(), 1, pending(1));
    d.submit(CheckpointProperties::user_checkpoint(), 2, pending(1));
    let out = d.submit(CheckpointProperties::savepoint(), 3, pending(1));
    // Savepoints are forced, so one may even exceed max-concurrent.
    assert_eq!(
        out.execute.unwrap().props,
        CheckpointProperties::savepoint()
    );
    let order: Vec<bool> = d.queued().iter().map(|r| r.props.periodic).collect();
    assert_eq!(order, vec![false, true]);
}

#[test]
fn queue_overflow_fails_lowest_priority() {
    let mut d = CheckpointRequestDecider::with_max_queued(1, 0, 2);
    d.submit(CheckpointProperties::periodic_checkpoint(), 1, pending(1));
    d.submit(CheckpointProperties::periodic_checkpoint(), 2, pending(1));
    let out = d.submit(CheckpointProperties::user_checkpoint(), 3, pending(1));
    assert_eq!(out.failed.len(), 1);
    assert_eq!(out.failed[0].0.timestamp, 2);
    assert_eq!(
        out.failed[0].1,
        CheckpointFailureReason::TOO_MANY_CHECKPOINT_REQUESTS
    );
    // Only user requests left: the newcomer is the one dropped.
    let mut d = CheckpointRequestDecider::with_max_queued(1, 0, 1);
    d.submit(CheckpointProperties::user_checkpoint(), 1, pending(1));
    let out = d.submit(CheckpointProperties::periodic_checkpoint(), 2, pending(1));
    assert_eq!(out.failed[0].0.timestamp, 2);
}

#[test]
fn ack_outcomes() {
    let mut c = coordinator(config(10));
    user_trigger(&mut c, 0);
    assert!(ack(&mut c, 1, 1, st(0, 0)).is_empty());
    let dup = ack(&mut c, 2, 1, st(0, 0));
    assert!(matches!(
        dup[0],
        CoordinatorEffect::AckIgnored {
            result: TaskAcknowledgeResult::Duplicate,
            ..
        }
    ));
    let unknown = ack(&mut c, 2, 1, st(7, 0));
    assert!(matches!(
        unknown[0],
        CoordinatorEffect::AckIgnored {
            result: TaskAcknowledgeResult::Unknown,
            ..
        }
    ));
    let never = ack(&mut c, 2, 99, st(0, 0));
    assert!(matches!(
        never[0],
        CoordinatorEffect::AckIgnored {
            result: TaskAcknowledgeResult::Unknown,
            ..
        }
    ));
    c.handle(600 * S, CoordinatorInput::ExpiryTimerFired { id: 1 });
    let late = ack(&mut c, 601 * S, 1, st(1, 0));
    assert!(matches!(
        late[0],
        CoordinatorEffect::AckIgnored {
            result: TaskAcknowledgeResult::Discarded,
            ..
        }
    ));
}

/// Messages for a checkpoint that is not pending: ids handed out before are discarded, the
/// next id and beyond (and 0) were never this coordinator's; acks and declines alike.
#[test]
fn late_acks_and_declines_are_discarded_only_for_ids_handed_out() {
    let mut c = coordinator(config(10));
    user_trigger(&mut c, 0);
    c.handle(600 * S, CoordinatorInput::ExpiryTimerFired { id: 1 });
    let ignored = |fx: Vec<CoordinatorEffect>| match fx.as_slice() {
        [CoordinatorEffect::AckIgnored { result, .. }] => *result,
        other => panic!("expected one AckIgnored, got {other:?}"),
    };
    let decline = |c: &mut CheckpointCoordinator, id| {
        c.handle(
            601 * S,
            CoordinatorInput::Decline {
                job: None,
                id,
                subtask: st(1, 0),
                reason: CheckpointFailureReason::CHECKPOINT_DECLINED,
            },
        )
    };
    for (id, expected) in [
        (0, TaskAcknowledgeResult::Unknown),
        (1, TaskAcknowledgeResult::Discarded),
        (2, TaskAcknowledgeResult::Unknown),
    ] {
        assert_eq!(
            ignored(ack(&mut c, 601 * S, id, st(1, 0))),
            expected,
            "ack {id}"
        );
        assert_eq!(ignored(decline(&mut c, id)), expected, "decline {id}");
    }
}

#[test]
fn completion_stores_notifies_and_orders_effects() {
    let mut c = coordinator(config(10));
    user_trigger(&mut c, 0);
    ack(&mut c, MICROS_PER_MS, 1, st(0, 0));
    let fx = ack(&mut c, 2 * MICROS_PER_MS, 1, st(1, 0));
    let completed = fx
        .iter()
        .position(|e| matches!(e, CoordinatorEffect::CheckpointCompleted { .. }))
        .unwrap();
    let notify = fx
        .iter()
        .position(|e| matches!(e, CoordinatorEffect::NotifyCheckpointComplete { .. }))
        .unwrap();
    assert!(completed < notify);
    assert!(fx.contains(&CoordinatorEffect::NotifyCheckpointComplete {
        id: 1,
        tasks: vec![st(0, 0), st(1, 0)],
    }));
    let cp = c.completed_store().latest_checkpoint().unwrap();
    assert_eq!(
        cp.external_pointer,
        "file:/tmp/flink-checkpoints/job1/chk-1"
    );
    assert_eq!(cp.state_size(), 200);
    assert_eq!(cp.handles.len(), 2);
    assert_eq!(c.latest_completed_id(), Some(1));
    assert!(c.pending_checkpoints().is_empty());
}

#[test]
fn completion_subsumes_older_pending_checkpoints() {
    let cfg = CheckpointCoordinatorConfiguration {
        max_concurrent: 2,
        ..config(10)
    };
    let mut c = coordinator(cfg);
    user_trigger(&mut c, 0);
    user_trigger(&mut c, 1);
    let fx = ack_all(&mut c, 2, 2);
    assert!(fx.contains(&CoordinatorEffect::CheckpointAborted {
        id: 1,
        reason: CheckpointFailureReason::CHECKPOINT_SUBSUMED,
    }));
    assert!(!fail_job(&fx));
}

#[test]
fn expiry_aborts_counts_and_fails_job_with_zero_tolerance() {
    let mut c = coordinator(config(10));
    user_trigger(&mut c, 0);
    let fx = c.handle(600 * S, CoordinatorInput::ExpiryTimerFired { id: 1 });
    assert!(fx.contains(&CoordinatorEffect::CheckpointAborted {
        id: 1,
        reason: CheckpointFailureReason::CHECKPOINT_EXPIRED,
    }));
    assert!(fx.contains(&CoordinatorEffect::NotifyCheckpointAborted {
        id: 1,
        tasks: vec![st(0, 0), st(1, 0)],
    }));
    assert!(fail_job(&fx));
    // A second expiry timer for the same id is stale.
    assert!(c
        .handle(600 * S, CoordinatorInput::ExpiryTimerFired { id: 1 })
        .is_empty());
}

#[test]
fn tolerable_two_fails_on_third() {
    let cfg = CheckpointCoordinatorConfiguration {
        tolerable_failed_checkpoints: 2,
        ..config(10)
    };
    let mut c = coordinator(cfg);
    for id in 1..=2 {
        user_trigger(&mut c, id);
        let fx = decline(&mut c, id, id, CheckpointFailureReason::CHECKPOINT_DECLINED);
        assert!(!fail_job(&fx));
        assert_eq!(c.failure_counter(), id as u32);
    }
    user_trigger(&mut c, 3);
    let fx = decline(&mut c, 3, 3, CheckpointFailureReason::CHECKPOINT_DECLINED);
    assert!(fail_job(&fx));
    assert_eq!(c.failure_counter(), 0);
}

#[test]
fn ignored_reasons_do_not_count() {
    let mut c = coordinator(config(10));
    for (i, reason) in [
        CheckpointFailureReason::CHECKPOINT_DECLINED_TASK_NOT_READY,
        CheckpointFailureReason::CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER,
        CheckpointFailureReason::CHECKPOINT_DECLINED_SUBSUMED,
        CheckpointFailureReason::TASK_CHECKPOINT_FAILURE,
    ]
    .into_iter()
    .enumerate()
    {
        let id = i as u64 + 1;
        user_trigger(&mut c, id);
        assert!(!fail_job(&decline(&mut c, id, id, reason)));
    }
    user_trigger(&mut c, 10);
    assert!(!fail_job(
        &c.handle(11, CoordinatorInput::TaskFailure { subtask: None })
    ));
    assert_eq!(c.failure_counter(), 0);
}

/// `triggerTasks`' future failed (a trigger RPC for a task its TaskExecutor no longer knows):
/// the checkpoint aborts at job level with the exception's reason, once. Unlike a decline with
/// the same reason, a stop-with-savepoint is not failed for it: it resumes periodic checkpoints.
#[test]
fn a_failed_trigger_rpc_aborts_at_job_level() {
    let reason = CheckpointFailureReason::TASK_CHECKPOINT_FAILURE;
    let failed = |id| CoordinatorInput::TriggerTasksFailed { id, reason };
    let mut c = coordinator(config(10));
    user_trigger(&mut c, 0);
    let fx = c.handle(MICROS_PER_MS, failed(1));
    assert!(fx.contains(&CoordinatorEffect::CheckpointAborted { id: 1, reason }));
    assert!(!fail_job(&fx));
    assert!(c.pending_checkpoints().is_empty());
    assert_eq!(
        c.stats()
            .get(1)
            .and_then(|cp| cp.failure_message.as_deref()),
        Some("Task local checkpoint failure.")
    );
    // The other source's RPC fails too: the checkpoint is gone already.
    assert_eq!(c.handle(2 * MICROS_PER_MS, failed(1)), Vec::new());
    assert_eq!(c.failure_counter(), 0);

    let stop = CoordinatorInput::TriggerRequest {
        props: CheckpointProperties::sync_savepoint(),
    };
    c.handle(S, stop.clone());
    assert!(!c.is_periodic_scheduling());
    let fx = c.handle(S + MICROS_PER_MS, failed(2));
    assert!(!fail_job(&fx), "{fx:?}");
    assert!(c.is_periodic_scheduling());
    c.handle(2 * S, stop);
    assert!(fail_job(&decline(&mut c, 2 * S, 3, reason)));
}

#[test]
fn counted_once_per_checkpoint_id() {
    let mut fm = CheckpointFailureManager::new(5);
    let props = CheckpointProperties::periodic_checkpoint();
    for _ in 0..3 {
        fm.handle_checkpoint_exception(
            &props,
            CheckpointFailureReason::CHECKPOINT_DECLINED,
            Some(4),
            true,
        );
    }
    assert_eq!(fm.continuous_failure_counter(), 1);
}

#[test]
fn old_id_failures_do_not_count_and_success_resets() {
    let mut fm = CheckpointFailureManager::new(10);
    let props = CheckpointProperties::periodic_checkpoint();
    let expired = CheckpointFailureReason::CHECKPOINT_EXPIRED;
    fm.handle_checkpoint_exception(&props, expired, Some(3), false);
    assert_eq!(fm.continuous_failure_counter(), 1);
    fm.handle_checkpoint_success(5);
    assert_eq!(fm.continuous_failure_counter(), 0);
    fm.handle_checkpoint_exception(&props, expired, Some(4), false);
    assert_eq!(fm.continuous_failure_counter(), 0);
    fm.handle_checkpoint_exception(&props, expired, Some(6), false);
    assert_eq!(fm.continuous_failure_counter(), 1);
    // An older success does not reset.
    fm.handle_checkpoint_success(2);
    assert_eq!(fm.continuous_failure_counter(), 1);
}

#[test]
fn unlimited_tolerance_never_counts() {
    let mut fm = CheckpointFailureManager::new(u32::MAX);
    let props = CheckpointProperties::periodic_checkpoint();
    for id in 1..100 {
        let r = fm.handle_checkpoint_exception(
            &props,
            CheckpointFailureReason::CHECKPOINT_EXPIRED,
            Some(id),
            false,
        );
        assert!(r.is_none());
    }
    assert_eq!(fm.continuous_failure_counter(), 0);
}

#[test]
fn savepoint_expiry_is_not_counted_but_sync_savepoint_decline_fails_job() {
    let mut fm = CheckpointFailureManager::new(0);
    let expired = CheckpointFailureReason::CHECKPOINT_EXPIRED;
    assert!(fm
        .handle_checkpoint_exception(&CheckpointProperties::savepoint(), expired, Some(1), false)
        .is_none());
    let declined = CheckpointFailureReason::CHECKPOINT_DECLINED_TASK_NOT_READY;
    assert!(fm
        .handle_checkpoint_exception(
            &CheckpointProperties::sync_savepoint(),
            declined,
            Some(2),
            true
        )
        .is_some());
}

#[test]
fn num_retained_subsumes_oldest() {
    let cfg = CheckpointCoordinatorConfiguration {
        num_retained: 2,
        ..config(10)
    };
    let mut c = coordinator(cfg);
    let mut subsumed = Vec::new();
    for id in 1..=5 {
        user_trigger(&mut c, id * S);
        for e in ack_all(&mut c, id * S + 1, id) {
            if let CoordinatorEffect::Subsumed { id } = e {
                subsumed.push(id);
            }
        }
    }
    // One subsumed per completion once the store is full: never down to fewer than two.
    assert_eq!(subsumed, vec![1, 2, 3]);
    assert!(!c.completed_store().is_empty());
    let ids: Vec<u64> = c
        .completed_store()
        .all_checkpoints()
        .map(|c| c.id)
        .collect();
    assert_eq!(ids, vec![4, 5]);
}

#[test]
fn savepoints_are_not_stored_and_do_not_notify() {
    let mut c = coordinator(config(10));
    c.handle(
        0,
        CoordinatorInput::TriggerRequest {
            props: CheckpointProperties::savepoint(),
        },
    );
    let fx = ack_all(&mut c, 1, 1);
    assert!(fx
        .iter()
        .any(|e| matches!(e, CoordinatorEffect::CheckpointCompleted { .. })));
    assert!(!fx
        .iter()
        .any(|e| matches!(e, CoordinatorEffect::NotifyCheckpointComplete { .. })));
    assert!(c.completed_store().is_empty());
    assert_eq!(c.stats().counts.completed, 1);
}

#[test]
fn store_keeps_latest_non_savepoint() {
    let mut store = CompletedCheckpointStore::new(1);
    let mk = |id, props| CompletedCheckpoint {
        id,
        props,
        trigger_timestamp: 0,
        completion_timestamp: 0,
        handles: vec![],
        external_pointer: String::new(),
    };
    store.add_checkpoint_and_subsume_oldest_one(mk(1, CheckpointProperties::user_checkpoint()));
    let gone =
        store.add_checkpoint_and_subsume_oldest_one(mk(2, CheckpointProperties::savepoint()));
    assert!(gone.is_empty());
    let gone =
        store.add_checkpoint_and_subsume_oldest_one(mk(3, CheckpointProperties::user_checkpoint()));
    let ids: Vec<u64> = gone.iter().map(|c| c.id).collect();
    assert_eq!(ids, vec![1, 2]);
}

#[test]
fn unaligned_passthrough_but_savepoints_aligned() {
    let cfg = CheckpointCoordinatorConfiguration {
        unaligned: true,
        ..config(10)
    };
    let mut c = coordinator(cfg);
    let fx = user_trigger(&mut c, 0);
    assert!(fx.iter().any(|e| matches!(
        e,
        CoordinatorEffect::TriggerTasks {
            unaligned: true,
            ..
        }
    )));
    // Unforced with unaligned checkpoints on: it waits for checkpoint 1 (max-concurrent 1).
    ack_all(&mut c, 1, 1);
    let fx = c.handle(
        2,
        CoordinatorInput::TriggerRequest {
            props: CheckpointProperties::savepoint(),
        },
    );
    assert!(fx.iter().any(|e| matches!(
        e,
        CoordinatorEffect::TriggerTasks {
            unaligned: false,
            ..
        }
    )));
}

#[test]
fn no_plan_rejects_with_not_all_required_tasks_running() {
    let mut c = CheckpointCoordinator::new(config(10), "j");
    let fx = user_trigger(&mut c, 0);
    assert!(fx.contains(&CoordinatorEffect::RequestRejected {
        props: CheckpointProperties::user_checkpoint(),
        reason: CheckpointFailureReason::NOT_ALL_REQUIRED_TASKS_RUNNING,
    }));
    assert_eq!(c.stats().counts.failed, 1);
}

#[test]
fn finished_sources_trigger_downstream_and_are_not_waited_for() {
    let mut c = coordinator(config(10));
    c.handle(
        0,
        CoordinatorInput::TasksFinished {
            tasks: vec![st(0, 0)],
        },
    );
    let fx = user_trigger(&mut c, 1);
    assert!(fx.iter().any(|e| matches!(e,
        CoordinatorEffect::TriggerTasks { tasks, .. } if tasks == &vec![st(1, 0)])));
    let fx = ack(&mut c, 2, 1, st(1, 0));
    assert!(fx.contains(&CoordinatorEffect::NotifyCheckpointComplete {
        id: 1,
        tasks: vec![st(1, 0)],
    }));
}

/// With three vertices the direction matters: once the source finished, the middle task (its
/// upstream all finished) is triggered, not the sink (whose upstream still runs).
#[test]
fn finished_sources_trigger_the_next_vertex_not_the_last() {
    let mut c = CheckpointCoordinator::new(config(10), "job1");
    let all = vec![st(0, 0), st(1, 0), st(2, 0)];
    let sources = vec![st(0, 0)];
    c.handle(0, CoordinatorInput::SetPlan { sources, all });
    c.handle(
        0,
        CoordinatorInput::TasksFinished {
            tasks: vec![st(0, 0)],
        },
    );
    let fx = user_trigger(&mut c, 1);
    assert!(
        fx.iter().any(|e| matches!(e,
            CoordinatorEffect::TriggerTasks { tasks, .. } if tasks == &vec![st(1, 0)])),
        "{fx:?}"
    );
}

#[test]
fn suspend_aborts_pending_and_queued_without_counting() {
    let mut c = coordinator(config(1));
    c.handle(0, CoordinatorInput::StartScheduler { random: 0 });
    c.handle(0, CoordinatorInput::PeriodicTimerFired);
    c.handle(S, CoordinatorInput::PeriodicTimerFired);
    let fx = c.handle(S + 1, CoordinatorInput::SuspendScheduler);
    assert!(fx.contains(&CoordinatorEffect::CheckpointAborted {
        id: 1,
        reason: CheckpointFailureReason::CHECKPOINT_COORDINATOR_SUSPEND,
    }));
    assert!(fx.contains(&CoordinatorEffect::CancelTimer {
        timer: CoordinatorTimer::Periodic
    }));
    assert!(!fail_job(&fx));
    assert!(c.queued_requests().is_empty() && c.pending_checkpoints().is_empty());
    // Periodic timer after suspension does nothing.
    assert!(c
        .handle(2 * S, CoordinatorInput::PeriodicTimerFired)
        .is_empty());
}

/// A stop-with-savepoint that fails resumes periodic checkpoints (Flink's
/// `StopWithSavepointTerminationHandler` restarts the scheduler); one that fails because the
/// coordinator is suspended does not.
#[test]
fn a_failed_stop_with_savepoint_restarts_the_scheduler() {
    let stop = |c: &mut CheckpointCoordinator| {
        c.handle(0, CoordinatorInput::StartScheduler { random: 0 });
        c.handle(
            0,
            CoordinatorInput::TriggerRequest {
                props: CheckpointProperties::sync_savepoint(),
            },
        );
        assert!(!c.is_periodic_scheduling());
    };
    let mut c = coordinator(config(1));
    stop(&mut c);
    let fx = c.handle(
        S,
        CoordinatorInput::Decline {
            job: None,
            id: 1,
            subtask: st(1, 0),
            reason: CheckpointFailureReason::CHECKPOINT_DECLINED,
        },
    );
    assert!(c.is_periodic_scheduling());
    assert!(periodic_at(&fx).is_some(), "{fx:?}");
    let mut c = coordinator(config(1));
    stop(&mut c);
    c.handle(S, CoordinatorInput::SuspendScheduler);
    assert!(!c.is_periodic_scheduling());
}

#[test]
fn stop_with_savepoint_stops_scheduler_and_notifies() {
    let mut c = coordinator(config(1));
    c.handle(0, CoordinatorInput::StartScheduler { random: 0 });
    let fx = c.handle(
        0,
        CoordinatorInput::TriggerRequest {
            props: CheckpointProperties::sync_savepoint(),
        },
    );
    assert_eq!(triggered(&fx), vec![1]);
    assert!(!c.is_periodic_scheduling());
    let fx = ack_all(&mut c, 1, 1);
    assert!(fx
        .iter()
        .any(|e| matches!(e, CoordinatorEffect::NotifyCheckpointComplete { id: 1, .. })));
}

#[test]
fn shutdown_rejects_later_requests() {
    let mut c = coordinator(config(10));
    c.handle(0, CoordinatorInput::Shutdown);
    let fx = user_trigger(&mut c, 1);
    assert!(fx.contains(&CoordinatorEffect::RequestRejected {
        props: CheckpointProperties::user_checkpoint(),
        reason: CheckpointFailureReason::CHECKPOINT_COORDINATOR_SHUTDOWN,
    }));
}

#[test]
fn determinism_same_inputs_same_effects() {
    let run = || {
        let cfg = CheckpointCoordinatorConfiguration {
            max_concurrent: 2,
            min_pause: 300 * MICROS_PER_MS,
            tolerable_failed_checkpoints: 1,
            ..config(1)
        };
        let mut c = coordinator(cfg);
        let mut all = Vec::new();
        all.extend(c.handle(
            0,
            CoordinatorInput::StartScheduler {
                random: 0x1234_5678_9abc,
            },
        ));
        let mut now = 0;
        for step in 0..40u64 {
            now += 250 * MICROS_PER_MS;
            let input = match step % 5 {
                0 => CoordinatorInput::PeriodicTimerFired,
                1 => CoordinatorInput::Acknowledge {
                    job: None,
                    id: step / 5 + 1,
                    subtask: st(0, 0),
                    metrics: SubtaskCheckpointMetrics::default(),
                    handle_key: step,
                },
                2 => CoordinatorInput::Acknowledge {
                    job: None,
                    id: step / 5 + 1,
                    subtask: st(1, 0),
                    metrics: SubtaskCheckpointMetrics::default(),
                    handle_key: step,
                },
                3 => CoordinatorInput::TriggerRequest {
                    props: CheckpointProperties::savepoint(),
                },
                _ => CoordinatorInput::ExpiryTimerFired { id: step / 3 },
            };
            all.extend(c.handle(now, input));
        }
        (all, c.stats().counts)
    };
    assert_eq!(run(), run());
}

#[test]
fn savepoints_are_forced_only_without_unaligned_checkpoints() {
    // `triggerSavepoint`: `CheckpointProperties.forSavepoint(!unalignedCheckpointsEnabled, …)`;
    // the same for stop-with-savepoint.
    for (unaligned, kind) in [
        (false, CheckpointProperties::savepoint()),
        (true, CheckpointProperties::savepoint()),
        (true, CheckpointProperties::sync_savepoint()),
    ] {
        let mut c = coordinator(CheckpointCoordinatorConfiguration {
            unaligned,
            ..config(10)
        });
        c.handle(0, CoordinatorInput::StartScheduler { random: 0 });
        assert_eq!(
            triggered(&c.handle(0, CoordinatorInput::PeriodicTimerFired)),
            vec![1]
        );
        // A checkpoint is in flight and max-concurrent is 1.
        let fx = c.handle(S, CoordinatorInput::TriggerRequest { props: kind });
        if unaligned && !kind.is_synchronous() {
            assert!(triggered(&fx).is_empty(), "unaligned: the savepoint waits");
            assert_eq!(c.queued_requests().len(), 1);
            assert!(!c.queued_requests()[0].props.forced);
            // It runs when the checkpoint in flight completes, ahead of periodic requests.
            assert_eq!(triggered(&ack_all(&mut c, 2 * S, 1)), vec![2]);
        } else if unaligned {
            // Stop-with-savepoint aborts what is in flight first, then runs unforced.
            assert_eq!(triggered(&fx), vec![2], "{kind:?}");
        } else {
            assert_eq!(
                triggered(&fx),
                vec![2],
                "aligned: forced beyond max-concurrent"
            );
            let ids: Vec<u64> = c.pending_checkpoints().iter().map(|p| p.id).collect();
            assert_eq!(ids, vec![1, 2]);
        }
    }
}

/// With asynchronous triggering the pending checkpoint waits for `TriggeringDone`, and the
/// decider starts nothing else meanwhile (`isTriggering`), even under max-concurrent.
#[test]
fn async_trigger_holds_the_queue_until_triggering_is_done() {
    let cfg = CheckpointCoordinatorConfiguration {
        max_concurrent: 5,
        ..config(10)
    };
    let mut c = coordinator(cfg).with_async_trigger();
    let fx = user_trigger(&mut c, 0);
    assert!(triggered(&fx).is_empty());
    assert!(fx.contains(&CoordinatorEffect::TriggeringCheckpoint { id: 1 }));
    assert_eq!(c.triggering_checkpoint(), Some(1));
    let fx = user_trigger(&mut c, 1);
    assert!(triggered(&fx).is_empty());
    assert_eq!(c.queued_requests().len(), 1);
    // Done: checkpoint 1's tasks are triggered, and the queued request starts triggering.
    let fx = c.handle(2, CoordinatorInput::TriggeringDone { id: Some(1) });
    assert_eq!(triggered(&fx), [1]);
    assert!(fx.contains(&CoordinatorEffect::TriggeringCheckpoint { id: 2 }));
    assert_eq!(c.triggering_checkpoint(), Some(2));
    // A stale or foreign id changes nothing.
    assert!(c
        .handle(3, CoordinatorInput::TriggeringDone { id: Some(1) })
        .is_empty());
    assert_eq!(c.triggering_checkpoint(), Some(2));
    // Aborted while triggering: its tasks are never triggered.
    c.handle(4, CoordinatorInput::TaskFailure { subtask: None });
    let fx = c.handle(5, CoordinatorInput::TriggeringDone { id: Some(2) });
    assert!(triggered(&fx).is_empty());
    assert_eq!(c.triggering_checkpoint(), None);
}

/// An ack or decline naming another job changes nothing (`receiveAcknowledgeMessage` returns
/// false; `receiveDeclineMessage` throws).
#[test]
fn messages_for_another_job_are_ignored() {
    let mut c = coordinator(config(10));
    user_trigger(&mut c, 0);
    for input in [
        CoordinatorInput::Acknowledge {
            job: Some("other".into()),
            id: 1,
            subtask: st(0, 0),
            metrics: SubtaskCheckpointMetrics::default(),
            handle_key: 0,
        },
        CoordinatorInput::Decline {
            job: Some("other".into()),
            id: 1,
            subtask: st(0, 0),
            reason: CheckpointFailureReason::CHECKPOINT_DECLINED,
        },
    ] {
        let fx = c.handle(1, input);
        assert_eq!(
            fx,
            [CoordinatorEffect::WrongJob {
                id: 1,
                subtask: st(0, 0),
                job: "other".into()
            }]
        );
    }
    assert_eq!(c.pending_checkpoints()[0].acknowledged, 0);
    // Its own job's name is accepted.
    let fx = c.handle(
        2,
        CoordinatorInput::Decline {
            job: Some("job1".into()),
            id: 1,
            subtask: st(0, 0),
            reason: CheckpointFailureReason::CHECKPOINT_DECLINED,
        },
    );
    assert!(fx
        .iter()
        .any(|e| matches!(e, CoordinatorEffect::CheckpointAborted { id: 1, .. })));
}

/// Operator coordinators checkpoint before the tasks are triggered: the tasks wait for every
/// coordinator and the master side, and the coordinators hear of completions and aborts.
#[test]
fn operator_coordinators_checkpoint_before_the_tasks() {
    let names = vec!["source-coordinator".to_string()];
    let mut c = coordinator(config(10))
        .with_async_trigger()
        .with_operator_coordinators(names.clone());
    let fx = user_trigger(&mut c, 0);
    assert!(
        fx.contains(&CoordinatorEffect::CheckpointOperatorCoordinators {
            id: 1,
            coordinators: names.clone()
        })
    );
    // The master side alone does not finish the triggering.
    assert!(triggered(&c.handle(1, CoordinatorInput::TriggeringDone { id: Some(1) })).is_empty());
    let fx = c.handle(
        2,
        CoordinatorInput::OperatorCoordinatorAck {
            id: 1,
            coordinator: names[0].clone(),
        },
    );
    assert_eq!(triggered(&fx), [1]);
    let fx = ack_all(&mut c, 3, 1);
    assert!(
        fx.contains(&CoordinatorEffect::NotifyOperatorCoordinatorsComplete {
            id: 1,
            coordinators: names.clone()
        })
    );
    // A coordinator that fails its checkpoint fails the trigger.
    user_trigger(&mut c, 4);
    let fx = c.handle(
        5,
        CoordinatorInput::OperatorCoordinatorFailed {
            id: 2,
            coordinator: names[0].clone(),
        },
    );
    assert!(fx.contains(&CoordinatorEffect::CheckpointAborted {
        id: 2,
        reason: CheckpointFailureReason::TRIGGER_CHECKPOINT_FAILURE
    }));
    assert!(
        fx.contains(&CoordinatorEffect::NotifyOperatorCoordinatorsAborted {
            id: 2,
            coordinators: names
        })
    );
    assert_eq!(c.triggering_checkpoint(), None);
}

/// With asynchronous triggering a checkpoint completes only once its master side is in too
/// (tasks acknowledged early are completed by `triggerCheckpointRequest`). Aborting the
/// checkpoint being triggered fails its master-trigger promise; the promise's handler ends the
/// triggering when the timer runs it (`TriggeringDone`), reporting the failure once more.
#[test]
fn async_trigger_waits_for_the_master_side_and_ends_on_abort() {
    let mut c = coordinator(config(10)).with_async_trigger();
    user_trigger(&mut c, 0);
    let fx = ack_all(&mut c, 1, 1);
    assert!(!fx
        .iter()
        .any(|e| matches!(e, CoordinatorEffect::CheckpointCompleted { .. })));
    let fx = c.handle(2, CoordinatorInput::TriggeringDone { id: Some(1) });
    assert_eq!(triggered(&fx), [1]);
    assert!(fx
        .iter()
        .any(|e| matches!(e, CoordinatorEffect::CheckpointCompleted { .. })));
    user_trigger(&mut c, 3);
    user_trigger(&mut c, 4);
    assert_eq!(c.triggering_checkpoint(), Some(2));
    let fx = c.handle(5, CoordinatorInput::ExpiryTimerFired { id: 2 });
    assert!(!fx
        .iter()
        .any(|e| matches!(e, CoordinatorEffect::TriggeringCheckpoint { .. })));
    assert_eq!(
        c.triggering_checkpoint(),
        Some(2),
        "aborted, still triggering"
    );
    assert!(c.pending_checkpoint(2).is_none());
    let failed = c.stats().counts.failed;
    let fx = c.handle(6, CoordinatorInput::TriggeringDone { id: None });
    assert!(triggered(&fx).is_empty());
    assert!(fx.contains(&CoordinatorEffect::TriggeringCheckpoint { id: 3 }));
    assert_eq!(c.triggering_checkpoint(), Some(3));
    assert_eq!(
        c.stats().counts.failed,
        failed + 1,
        "onTriggerFailure of the disposed checkpoint: failed once more, without in-progress stats"
    );
}

/// Flink 2.3's `abortPendingCheckpoint` asks the failure manager (which may fail the job) before
/// it sends the aborted messages (`finally`).
#[test]
fn the_job_fails_before_the_tasks_hear_of_the_abort() {
    let mut c = coordinator(config(10));
    user_trigger(&mut c, 0);
    let fx = decline(&mut c, 1, 1, CheckpointFailureReason::CHECKPOINT_DECLINED);
    let position = |pred: fn(&CoordinatorEffect) -> bool| fx.iter().position(pred).unwrap();
    let failed = position(|e| matches!(e, CoordinatorEffect::FailJob { .. }));
    let notified = position(|e| matches!(e, CoordinatorEffect::NotifyCheckpointAborted { .. }));
    assert!(failed < notified, "{fx:?}");
}

/// `checkAllTasksInitiated`: while a task of the plan is not RUNNING every trigger fails.
#[test]
fn triggers_fail_while_a_task_is_not_running() {
    let mut c = coordinator(config(10));
    c.handle(
        0,
        CoordinatorInput::TasksNotRunning {
            tasks: vec![st(1, 0)],
        },
    );
    let fx = user_trigger(&mut c, 1);
    assert!(fx.contains(&CoordinatorEffect::RequestRejected {
        props: CheckpointProperties::user_checkpoint(),
        reason: CheckpointFailureReason::NOT_ALL_REQUIRED_TASKS_RUNNING,
    }));
    assert_eq!(c.stats().counts.failed, 1);
    c.handle(
        2,
        CoordinatorInput::TasksRunning {
            tasks: vec![st(1, 0)],
        },
    );
    assert_eq!(triggered(&user_trigger(&mut c, 3)), [1]);
}

/// `trackPendingCheckpointStats`: a checkpoint after some tasks finished has every vertex at its
/// full parallelism in its statistics, the finished subtasks acknowledged at once.
#[test]
fn statistics_count_finished_tasks_as_acknowledged() {
    let mut c = coordinator(config(10));
    c.handle(
        0,
        CoordinatorInput::TasksFinished {
            tasks: vec![st(0, 0)],
        },
    );
    assert_eq!(triggered(&user_trigger(&mut c, 1)), [1]);
    let stats = c.stats().get(1).unwrap();
    assert_eq!((stats.num_subtasks(), stats.num_acknowledged()), (2, 1));
}

/// `failUnacknowledgedPendingCheckpointsFor`: a failed task aborts only the pending checkpoints
/// it has not acknowledged yet.
#[test]
fn a_task_failure_spares_checkpoints_the_task_acknowledged() {
    let mut c = coordinator(config(10));
    user_trigger(&mut c, 0);
    ack(&mut c, 1, 1, st(0, 0));
    let aborted = |fx: &[CoordinatorEffect]| {
        fx.iter()
            .any(|e| matches!(e, CoordinatorEffect::NotifyCheckpointAborted { id: 1, .. }))
    };
    let fx = c.handle(
        2,
        CoordinatorInput::TaskFailure {
            subtask: Some(st(0, 0)),
        },
    );
    assert!(!aborted(&fx), "{fx:?}");
    assert_eq!(c.pending_checkpoints().len(), 1);
    let fx = c.handle(
        3,
        CoordinatorInput::TaskFailure {
            subtask: Some(st(1, 0)),
        },
    );
    assert!(aborted(&fx), "{fx:?}");
    assert!(c.pending_checkpoints().is_empty());
}

#[test]
fn a_pending_checkpoint_waits_for_each_operator_coordinator_once() {
    let names = ["enumerator".to_string(), "sink-committer".to_string()];
    let mut p = PendingCheckpoint::new(
        1,
        CheckpointProperties::user_checkpoint(),
        0,
        false,
        &[],
        vec![],
    )
    .with_coordinators(&names);
    assert!(!p.are_coordinators_fully_acknowledged());
    assert!(p.acknowledge_coordinator("enumerator"));
    assert!(!p.acknowledge_coordinator("enumerator"));
    let waiting: Vec<&String> = p.coordinators_not_yet_acknowledged().collect();
    assert_eq!(waiting, vec!["sink-committer"]);
    assert!(p.acknowledge_coordinator("sink-committer"));
    assert!(p.are_coordinators_fully_acknowledged());
}

/// The queue's order is Flink's comparator: savepoints before checkpoints even when the
/// checkpoint is forced and the savepoint is not (unaligned checkpoints on), then forced, then
/// non-periodic, then older.
#[test]
fn queued_requests_sort_savepoints_first_then_forced() {
    let mut d = CheckpointRequestDecider::with_max_queued(1, 0, 3);
    let first = d.next_seq();
    let forced_checkpoint = CheckpointProperties {
        forced: true,
        ..CheckpointProperties::user_checkpoint()
    };
    let unforced_savepoint = CheckpointProperties {
        forced: false,
        ..CheckpointProperties::savepoint()
    };
    // While a trigger is in flight nothing executes, forced or not: both wait in the queue.
    let triggering = DeciderContext {
        is_triggering: true,
        ..pending(1)
    };
    let out = d.submit(forced_checkpoint, 1, triggering);
    assert!(out.failed.is_empty() && out.execute.is_none(), "{out:?}");
    assert_eq!(d.next_seq(), first + 1);
    assert!(d.is_queued(first));
    let out = d.submit(unforced_savepoint, 2, triggering);
    assert!(
        out.failed.is_empty(),
        "a queue with room takes user requests"
    );
    let order: Vec<bool> = d.queued().iter().map(|r| r.props.is_savepoint()).collect();
    assert_eq!(order, vec![true, false]);
}
