//! `CheckpointCoordinator` as a pure state machine (seed §3 and §7, flink-model.md §4).
//!
//! Flink's trigger path is an asynchronous `CompletableFuture` chain; here
//! `startTriggeringCheckpoint` (plan → id → `PendingCheckpoint` + `CheckpointCanceller` → stats →
//! `triggerTasks`) happens within one input, so `isTriggering` is never observed as true. The
//! asynchronous `scheduleTriggerRequest` after a completion or abort runs at the end of the same
//! step, after the cleanup, which is the order Flink's timer thread gives it.

use crate::coordinator::completed_store::{CompletedCheckpoint, CompletedCheckpointStore};
use crate::coordinator::config::CheckpointCoordinatorConfiguration;
use crate::coordinator::failure_manager::{CheckpointFailureManager, CheckpointFailureReason};
use crate::coordinator::messages::{
    CoordinatorCall, CoordinatorEffect, CoordinatorInput, CoordinatorTimer,
};
use crate::coordinator::pending_checkpoint::{
    PendingCheckpoint, SubtaskCheckpointMetrics, TaskAcknowledgeResult,
};
use crate::coordinator::properties::CheckpointProperties;
use crate::coordinator::request_decider::{
    CheckpointRequestDecider, CheckpointTriggerRequest, DeciderContext,
};
use crate::coordinator::trigger::Triggering;
use crate::stats::tracker::{CheckpointStatsTracker, RestoredCheckpointStats};
use crate::stats::DEFAULT_HISTORY_SIZE;
use crate::types::{CheckpointId, Micros, SubtaskId};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

use CoordinatorEffect as E;

/// A pending checkpoint as the UI shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PendingCheckpointView {
    pub id: CheckpointId,
    pub props: CheckpointProperties,
    pub trigger_timestamp: Micros,
    pub acknowledged: usize,
    pub total: usize,
}

/// `CheckpointPlan`: who is triggered, waited for and committed to.
pub(super) struct CheckpointPlan {
    pub(super) tasks_to_trigger: Vec<SubtaskId>,
    pub(super) tasks_to_wait_for: Vec<SubtaskId>,
    pub(super) tasks_to_commit_to: Vec<SubtaskId>,
}

/// `CheckpointCoordinator`.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct CheckpointCoordinator {
    pub(super) config: CheckpointCoordinatorConfiguration,
    pub(super) job_id: String,
    pub(super) sources: Vec<SubtaskId>,
    pub(super) all: Vec<SubtaskId>,
    pub(super) finished: BTreeSet<SubtaskId>,
    /// Subtasks of the plan not RUNNING yet (deploying); none in the simulation, whose plan is
    /// set once its tasks run.
    pub(super) not_running: BTreeSet<SubtaskId>,
    /// `checkpointIdCounter`: ids start at 1 and never go back, across restarts.
    pub(super) next_id: CheckpointId,
    pub(super) pending: BTreeMap<CheckpointId, PendingCheckpoint>,
    pub(super) decider: CheckpointRequestDecider,
    pub(super) failure_manager: CheckpointFailureManager,
    pub(super) store: CompletedCheckpointStore,
    pub(super) stats: CheckpointStatsTracker,
    /// `periodicScheduling`.
    pub(super) periodic_scheduling: bool,
    /// Whether triggering waits for `TriggeringDone` (see `start_triggering_checkpoint`).
    pub(super) async_trigger: bool,
    /// `isTriggering`: the request or checkpoint whose asynchronous triggering has not finished.
    pub(super) triggering: Option<Triggering>,
    /// Calls armed to fail (`FailNextCalls`), with the exception and how many more times.
    pub(super) failing_calls: BTreeMap<CoordinatorCall, FailingCall>,
    /// The next `CheckpointIDCounter.getAndIncrement` stops the scheduler first.
    pub(super) stop_in_next_id_counter_call: bool,
    /// `coordinatorsToCheckpoint`, by name (the simulation's jobs have none).
    pub(super) operator_coordinators: Vec<String>,
    /// The first start uses the random initial delay; later starts wait min-pause.
    pub(super) scheduler_started_once: bool,
    /// `nextCheckpointTriggeringRelativeTime` while the `ScheduledTrigger` is armed.
    pub(super) next_periodic_at: Option<Micros>,
    /// `lastCheckpointCompletionRelativeTime`.
    pub(super) last_completion: Option<Micros>,
    pub(super) shutdown: bool,
    /// Base of the checkpoint directories (without the job id).
    pub(super) checkpoint_dir: String,
    /// Where savepoints go.
    pub(super) savepoint_dir: String,
}

/// A call armed to fail (`FailNextCalls`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(super) struct FailingCall {
    pub(super) io_exception: bool,
    pub(super) remaining: u32,
}

/// A fully acknowledged checkpoint that could not be completed (`_metadata` write or store).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct FinalizeFailure {
    pub(super) props: CheckpointProperties,
    /// The cause was an `IOException` (`getCheckpointException` then says IO_EXCEPTION).
    pub(super) io_exception: bool,
}

/// Where checkpoints go when `execution.checkpointing.dir` is unset. (Flink would keep them in
/// the JobManager's memory; the simulator names a directory so every checkpoint has a path.)
pub const DEFAULT_CHECKPOINT_DIR: &str = "file:/tmp/flink-checkpoints";
/// Where savepoints go when `execution.checkpointing.savepoint-dir` is unset.
pub const DEFAULT_SAVEPOINT_DIR: &str = "file:/tmp/flink-savepoints";

impl CheckpointCoordinator {
    /// `job_id` only names the checkpoint directories (`file:/tmp/flink-checkpoints/<job>/chk-N`).
    pub fn new(config: CheckpointCoordinatorConfiguration, job_id: &str) -> Self {
        Self {
            checkpoint_dir: DEFAULT_CHECKPOINT_DIR.to_string(),
            savepoint_dir: DEFAULT_SAVEPOINT_DIR.to_string(),
            decider: CheckpointRequestDecider::new(config.max_concurrent, config.min_pause),
            failure_manager: CheckpointFailureManager::new(config.tolerable_failed_checkpoints),
            store: CompletedCheckpointStore::new(config.num_retained),
            stats: CheckpointStatsTracker::new(DEFAULT_HISTORY_SIZE),
            config,
            job_id: job_id.to_string(),
            sources: Vec::new(),
            all: Vec::new(),
            finished: BTreeSet::new(),
            not_running: BTreeSet::new(),
            next_id: 1,
            pending: BTreeMap::new(),
            periodic_scheduling: false,
            async_trigger: false,
            triggering: None,
            failing_calls: BTreeMap::new(),
            stop_in_next_id_counter_call: false,
            operator_coordinators: Vec::new(),
            scheduler_started_once: false,
            next_periodic_at: None,
            last_completion: None,
            shutdown: false,
        }
    }

    /// Triggering completes only on [`CoordinatorInput::TriggeringDone`], so a request can
    /// arrive while another trigger is in flight (replay scripts; the simulation triggers in
    /// one step).
    pub fn with_async_trigger(mut self) -> Self {
        self.async_trigger = true;
        self
    }

    /// Operator coordinators (a FLIP-27 source's `SourceCoordinator`, …) that checkpoint before
    /// the tasks are triggered and are told of completions and aborts.
    pub fn with_operator_coordinators(mut self, names: Vec<String>) -> Self {
        self.operator_coordinators = names;
        self
    }

    /// Names checkpoints `<checkpoint_dir>/<job>/chk-N` and savepoints
    /// `<savepoint_dir>/savepoint-<job>-<id>` (`execution.checkpointing.dir` and
    /// `execution.checkpointing.savepoint-dir`); `None` keeps the defaults.
    pub fn with_directories(
        mut self,
        checkpoint_dir: Option<&str>,
        savepoint_dir: Option<&str>,
    ) -> Self {
        if let Some(dir) = checkpoint_dir {
            self.checkpoint_dir = dir.trim_end_matches('/').to_string();
        }
        if let Some(dir) = savepoint_dir {
            self.savepoint_dir = dir.trim_end_matches('/').to_string();
        }
        self
    }

    /// Replaces the stats tracker (e.g. for a different `web.checkpoints.history`).
    pub fn with_stats_history(mut self, history_size: usize) -> Self {
        self.stats = CheckpointStatsTracker::new(history_size);
        self
    }

    /// Takes one input at time `now` and returns what the event loop must do.
    pub fn handle(&mut self, now: Micros, input: CoordinatorInput) -> Vec<CoordinatorEffect> {
        let mut fx = Vec::new();
        if self.shutdown && matches!(input, CoordinatorInput::Restored { .. }) {
            // A job restored from a savepoint after it stopped runs again: in Flink a new
            // coordinator, continuing the checkpoint ids after the restored one.
            self.shutdown = false;
        }
        if self.shutdown {
            // A shut-down coordinator only answers trigger requests (with a rejection).
            if let CoordinatorInput::TriggerRequest { props } = input {
                self.on_trigger_failure(
                    now,
                    props,
                    CheckpointFailureReason::CHECKPOINT_COORDINATOR_SHUTDOWN,
                    &mut fx,
                );
            }
            return fx;
        }
        match input {
            CoordinatorInput::SetPlan { sources, all } => {
                self.sources = sources;
                self.all = all;
                self.finished.clear();
                self.not_running.clear();
            }
            CoordinatorInput::StartScheduler { random } => {
                self.start_checkpoint_scheduler(now, Some(random), &mut fx)
            }
            CoordinatorInput::PeriodicTimerFired => self.on_periodic_timer(now, &mut fx),
            CoordinatorInput::TriggerRequest { mut props } => {
                if props.is_savepoint() {
                    // `triggerSavepoint` / `triggerSynchronousSavepoint` build the properties
                    // with `forced = !unalignedCheckpointsEnabled`: with unaligned checkpoints
                    // on, a savepoint waits in the queue like any other request.
                    props.forced = !self.config.unaligned;
                }
                if props.is_synchronous() {
                    // Stop-with-savepoint stops the scheduler first, aborting what is in flight.
                    self.stop_checkpoint_scheduler(
                        now,
                        CheckpointFailureReason::CHECKPOINT_COORDINATOR_SUSPEND,
                        &mut fx,
                    );
                }
                self.trigger_checkpoint(now, props, &mut fx);
            }
            CoordinatorInput::Acknowledge {
                job: Some(job),
                id,
                subtask,
                ..
            }
            | CoordinatorInput::Decline {
                job: Some(job),
                id,
                subtask,
                ..
            } if job != self.job_id => {
                // Flink logs an ack for another job and returns false; a decline for another
                // job throws IllegalArgumentException. Either way nothing changes here.
                fx.push(E::WrongJob { id, subtask, job });
            }
            CoordinatorInput::Acknowledge {
                id,
                subtask,
                metrics,
                handle_key,
                ..
            } => self.receive_acknowledge_message(now, id, subtask, metrics, handle_key, &mut fx),
            CoordinatorInput::Decline {
                id,
                subtask,
                reason,
                ..
            } => self.receive_decline_message(now, id, subtask, reason, &mut fx),
            CoordinatorInput::TriggeringDone { id } => self.triggering_done(now, id, &mut fx),
            CoordinatorInput::OperatorCoordinatorAck { id, coordinator } => {
                self.operator_coordinator_ack(now, id, &coordinator, &mut fx)
            }
            CoordinatorInput::OperatorCoordinatorFailed { id, .. } => {
                self.operator_coordinator_failed(now, id, &mut fx)
            }
            CoordinatorInput::ExpiryTimerFired { id } => {
                if self.pending.contains_key(&id) {
                    self.abort_pending_checkpoint(
                        now,
                        id,
                        CheckpointFailureReason::CHECKPOINT_EXPIRED,
                        false,
                        true,
                        &mut fx,
                    );
                }
            }
            // `triggerCheckpointRequest`'s handler of the failed future: a `CheckpointException`
            // keeps its reason; `abortPendingCheckpoint(checkpoint, cause)` runs on the timer
            // with no execution attempt (job level), and does nothing to a disposed checkpoint.
            CoordinatorInput::TriggerTasksFailed { id, reason } => {
                self.abort_pending_checkpoint(now, id, reason, false, true, &mut fx)
            }
            CoordinatorInput::TaskFailure { subtask } => {
                let ids: Vec<CheckpointId> = self
                    .pending
                    .values()
                    .filter(|p| subtask.is_none_or(|s| !p.is_acknowledged_by(s)))
                    .map(|p| p.id)
                    .collect();
                for id in ids {
                    self.abort_pending_checkpoint(
                        now,
                        id,
                        CheckpointFailureReason::TASK_FAILURE,
                        false,
                        true,
                        &mut fx,
                    );
                }
            }
            CoordinatorInput::SuspendScheduler => self.stop_checkpoint_scheduler(
                now,
                CheckpointFailureReason::CHECKPOINT_COORDINATOR_SUSPEND,
                &mut fx,
            ),
            CoordinatorInput::Shutdown => {
                self.stop_checkpoint_scheduler(
                    now,
                    CheckpointFailureReason::CHECKPOINT_COORDINATOR_SHUTDOWN,
                    &mut fx,
                );
                self.shutdown = true;
            }
            CoordinatorInput::TasksFinished { tasks } => self.finished.extend(tasks),
            CoordinatorInput::TasksNotRunning { tasks } => self.not_running.extend(tasks),
            CoordinatorInput::TasksRunning { tasks } => {
                for t in tasks {
                    self.not_running.remove(&t);
                }
            }
            CoordinatorInput::AbortPendingCheckpoints { reason } => {
                // Each abort schedules a trigger request (`scheduleTriggerRequest`); the queue is
                // examined once, after all of them.
                let ids: Vec<CheckpointId> = self.pending.keys().copied().collect();
                for id in ids {
                    self.abort_pending_checkpoint(now, id, reason, false, false, &mut fx);
                }
                self.execute_queued_request(now, &mut fx);
            }
            CoordinatorInput::FailNextCalls {
                call,
                io_exception,
                times,
            } => {
                if times == 0 {
                    self.failing_calls.remove(&call);
                } else {
                    self.failing_calls.insert(
                        call,
                        FailingCall {
                            io_exception,
                            remaining: times,
                        },
                    );
                }
            }
            CoordinatorInput::StopSchedulerInNextIdCounterCall => {
                self.stop_in_next_id_counter_call = true;
            }
            CoordinatorInput::Restored { id } => {
                // Savepoints are not in the store; their statistics still know them.
                let known = match self.store.get(id) {
                    Some(cp) => Some((cp.props.is_savepoint(), Some(cp.external_pointer.clone()))),
                    None => self
                        .stats
                        .get(id)
                        .map(|cp| (cp.props.is_savepoint(), cp.external_path.clone())),
                };
                if let Some((is_savepoint, external_path)) = known {
                    self.stats.report_restored(RestoredCheckpointStats {
                        id,
                        restore_timestamp: now,
                        is_savepoint,
                        external_path,
                    });
                }
            }
        }
        fx
    }

    // ----------------------------------------------------------------------------------------
    // Scheduler
    // ----------------------------------------------------------------------------------------

    /// `startCheckpointScheduler`: stop first (as Flink does), then arm the `ScheduledTrigger`.
    pub(super) fn start_checkpoint_scheduler(
        &mut self,
        now: Micros,
        random: Option<u64>,
        fx: &mut Vec<CoordinatorEffect>,
    ) {
        if !self.config.is_periodic_checkpointing_configured() {
            return;
        }
        self.stop_checkpoint_scheduler(
            now,
            CheckpointFailureReason::CHECKPOINT_COORDINATOR_SUSPEND,
            fx,
        );
        self.periodic_scheduling = true;
        let delay = match random {
            Some(r) if !self.scheduler_started_once => self.config.initial_triggering_delay(r),
            _ => self.config.min_pause,
        };
        self.scheduler_started_once = true;
        self.schedule_trigger_with_delay(now, delay, fx);
    }

    /// `stopCheckpointScheduler` → `abortPendingAndQueuedCheckpoints(reason)`.
    pub(super) fn stop_checkpoint_scheduler(
        &mut self,
        now: Micros,
        reason: CheckpointFailureReason,
        fx: &mut Vec<CoordinatorEffect>,
    ) {
        self.periodic_scheduling = false;
        self.cancel_periodic_trigger(fx);
        for request in self.decider.abort_all() {
            self.on_trigger_failure(now, request.props, reason, fx);
        }
        let ids: Vec<CheckpointId> = self.pending.keys().copied().collect();
        for id in ids {
            self.abort_pending_checkpoint(now, id, reason, false, false, fx);
        }
    }

    pub(super) fn schedule_trigger_with_delay(
        &mut self,
        now: Micros,
        delay: Micros,
        fx: &mut Vec<CoordinatorEffect>,
    ) {
        let at = now.saturating_add(delay);
        self.next_periodic_at = Some(at);
        fx.push(E::ScheduleTimer {
            at,
            timer: CoordinatorTimer::Periodic,
        });
    }

    pub(super) fn cancel_periodic_trigger(&mut self, fx: &mut Vec<CoordinatorEffect>) {
        if self.next_periodic_at.take().is_some() {
            fx.push(E::CancelTimer {
                timer: CoordinatorTimer::Periodic,
            });
        }
    }

    /// `ScheduledTrigger.run`: arm the next run at a fixed rate first, then request a checkpoint.
    fn on_periodic_timer(&mut self, now: Micros, fx: &mut Vec<CoordinatorEffect>) {
        let Some(due) = self.next_periodic_at else {
            return; // stale timer: the scheduler was stopped
        };
        if !self.periodic_scheduling || now < due {
            return; // stale timer from before a reschedule
        }
        let interval = self.config.base_interval().max(1);
        let next = due.saturating_add(interval).max(now);
        self.next_periodic_at = Some(next);
        fx.push(E::ScheduleTimer {
            at: next,
            timer: CoordinatorTimer::Periodic,
        });
        self.trigger_checkpoint(now, CheckpointProperties::periodic_checkpoint(), fx);
    }

    // ----------------------------------------------------------------------------------------
    // Acknowledgements, declines, completion, abort
    // ----------------------------------------------------------------------------------------

    /// `receiveAcknowledgeMessage`.
    fn receive_acknowledge_message(
        &mut self,
        now: Micros,
        id: CheckpointId,
        subtask: SubtaskId,
        metrics: SubtaskCheckpointMetrics,
        handle_key: u64,
        fx: &mut Vec<CoordinatorEffect>,
    ) {
        let Some(pending) = self.pending.get_mut(&id) else {
            fx.push(E::AckIgnored {
                id,
                subtask,
                result: self.not_pending_result(id),
            });
            return;
        };
        match pending.acknowledge_task(subtask, metrics, handle_key, now) {
            TaskAcknowledgeResult::Success => {
                let complete = pending.is_fully_acknowledged();
                self.stats.report_subtask(id, subtask, now, metrics);
                if complete && self.complete_pending_checkpoint(now, id, fx).is_err() {
                    // `completePendingCheckpoint`'s `finally`: `scheduleTriggerRequest`. (The
                    // `CheckpointException` it throws goes back to the task's RPC.)
                    self.execute_queued_request(now, fx);
                }
            }
            result => fx.push(E::AckIgnored {
                id,
                subtask,
                result,
            }),
        }
    }

    /// `receiveDeclineMessage`: aborts the checkpoint at task level.
    fn receive_decline_message(
        &mut self,
        now: Micros,
        id: CheckpointId,
        subtask: SubtaskId,
        reason: CheckpointFailureReason,
        fx: &mut Vec<CoordinatorEffect>,
    ) {
        if self.pending.contains_key(&id) {
            self.abort_pending_checkpoint(now, id, reason, true, true, fx);
        } else {
            fx.push(E::AckIgnored {
                id,
                subtask,
                result: self.not_pending_result(id),
            });
        }
    }

    /// A message for a checkpoint that is not pending: an id handed out earlier was expired,
    /// aborted or subsumed (its state is discarded); any other id was never this coordinator's.
    fn not_pending_result(&self, id: CheckpointId) -> TaskAcknowledgeResult {
        if (1..self.next_id).contains(&id) {
            TaskAcknowledgeResult::Discarded
        } else {
            TaskAcknowledgeResult::Unknown
        }
    }

    /// `completePendingCheckpoint` → `finalizeCheckpoint`,
    /// `addCompletedCheckpointToStoreAndSubsumeOldest` (checkpoints only),
    /// `reportCompletedCheckpoint`, `cleanupAfterCompletedCheckpoint` (`dropSubsumedCheckpoints`,
    /// `sendAcknowledgeMessages`; skipped for non-synchronous savepoints), then
    /// `scheduleTriggerRequest`.
    ///
    /// When the `_metadata` write or the completed checkpoint store fails, the checkpoint fails
    /// with FINALIZE_CHECKPOINT_FAILURE: statistics, failure manager and `sendAbortedMessages`
    /// as for an abort, and no queue re-examination here (the caller does it). `Err` carries what
    /// the caller needs for `onTriggerFailure`.
    pub(super) fn complete_pending_checkpoint(
        &mut self,
        now: Micros,
        id: CheckpointId,
        fx: &mut Vec<CoordinatorEffect>,
    ) -> Result<(), FinalizeFailure> {
        let Some(props) = self.pending.get(&id).map(|p| p.props) else {
            return Ok(());
        };
        // `PendingCheckpoint.finalizeCheckpoint` writes `_metadata`: a failure aborts the
        // checkpoint (`abortPendingCheckpoint`). Savepoints never enter the store; a checkpoint
        // the store refuses is reported failed (`reportFailedCheckpoint`) and its tasks are told
        // of the abort (`sendAbortedMessages`): the same effects.
        let failed = self.fail_call(CoordinatorCall::Metadata).or_else(|| {
            (!props.is_savepoint())
                .then(|| self.fail_call(CoordinatorCall::CompletedStore))
                .flatten()
        });
        if let Some(io_exception) = failed {
            let reason = CheckpointFailureReason::FINALIZE_CHECKPOINT_FAILURE;
            self.abort_pending_checkpoint(now, id, reason, false, false, fx);
            return Err(FinalizeFailure {
                props,
                io_exception,
            });
        }
        let Some(pending) = self.pending.remove(&id) else {
            return Ok(());
        };
        let pointer = self.external_pointer(id, &props);
        let checkpoint = pending.finalize_checkpoint(pointer.clone(), now);
        fx.push(E::CancelTimer {
            timer: CoordinatorTimer::Expiry(id),
        });
        // Savepoints are not used for failover, so they never enter the store.
        let subsumed = if props.is_savepoint() {
            Vec::new()
        } else {
            self.store
                .add_checkpoint_and_subsume_oldest_one(checkpoint.clone())
        };
        self.failure_manager.handle_checkpoint_success(id);
        self.stats.report_completed(id, now, pointer);
        for old in &subsumed {
            self.stats.mark_discarded(old.id);
            fx.push(E::Subsumed { id: old.id });
        }
        fx.push(E::CheckpointCompleted { checkpoint });
        self.last_completion = Some(now);
        if !props.is_savepoint() || props.is_synchronous() {
            let older: Vec<CheckpointId> = self
                .pending
                .values()
                .filter(|p| p.id < id && p.can_be_subsumed())
                .map(|p| p.id)
                .collect();
            for old in older {
                self.abort_pending_checkpoint(
                    now,
                    old,
                    CheckpointFailureReason::CHECKPOINT_SUBSUMED,
                    false,
                    false,
                    fx,
                );
            }
            fx.push(E::NotifyCheckpointComplete {
                id,
                tasks: pending.tasks_to_commit.clone(),
            });
            if !self.operator_coordinators.is_empty() {
                fx.push(E::NotifyOperatorCoordinatorsComplete {
                    id,
                    coordinators: self.operator_coordinators.clone(),
                });
            }
        }
        self.execute_queued_request(now, fx);
        Ok(())
    }

    /// `abortPendingCheckpoint`: stats, failure manager, `sendAbortedMessages`, and (unless the
    /// caller will) `scheduleTriggerRequest`. `from_task` marks a decline by a task attempt.
    pub(super) fn abort_pending_checkpoint(
        &mut self,
        now: Micros,
        id: CheckpointId,
        reason: CheckpointFailureReason,
        from_task: bool,
        reexamine_queue: bool,
        fx: &mut Vec<CoordinatorEffect>,
    ) {
        let Some(pending) = self.pending.remove(&id) else {
            return;
        };
        // Aborting fails the master-trigger promise (`PendingCheckpoint.abort`). Its handler runs
        // on the timer and ends the triggering (`onTriggerFailure`): at `TriggeringDone`.
        if let Some(Triggering::Checkpoint { tasks, .. }) = &self.triggering {
            if tasks.id == id {
                self.triggering = Some(Triggering::Aborted {
                    id,
                    props: pending.props,
                    reason,
                });
            }
        }
        fx.push(E::CancelTimer {
            timer: CoordinatorTimer::Expiry(id),
        });
        self.stats.report_failed(id, now, reason.message());
        fx.push(E::CheckpointAborted { id, reason });
        // The failure manager first (it may fail the job), then `sendAbortedMessages` in the
        // `finally` block, as Flink 2.3's `abortPendingCheckpoint` orders them.
        if let Some(message) = self.failure_manager.handle_checkpoint_exception(
            &pending.props,
            reason,
            Some(id),
            from_task,
        ) {
            fx.push(E::FailJob { reason: message });
        }
        fx.push(E::NotifyCheckpointAborted {
            id,
            tasks: pending.tasks_to_commit.clone(),
        });
        if !self.operator_coordinators.is_empty() {
            fx.push(E::NotifyOperatorCoordinatorsAborted {
                id,
                coordinators: self.operator_coordinators.clone(),
            });
        }
        if pending.props.is_synchronous() {
            self.restart_scheduler_after_failed_stop(now, reason, fx);
        }
        if reexamine_queue {
            self.execute_queued_request(now, fx);
        }
    }

    /// Where `_metadata` would be written.
    fn external_pointer(&self, id: CheckpointId, props: &CheckpointProperties) -> String {
        if props.is_savepoint() {
            let short: String = self.job_id.chars().take(6).collect();
            format!("{}/savepoint-{short}-{id:012x}", self.savepoint_dir)
        } else {
            format!("{}/{}/chk-{id}", self.checkpoint_dir, self.job_id)
        }
    }

    // ----------------------------------------------------------------------------------------
    // Read-only views for the UI
    // ----------------------------------------------------------------------------------------

    pub fn config(&self) -> &CheckpointCoordinatorConfiguration {
        &self.config
    }

    /// Pending checkpoints, oldest first, with acknowledged/total subtasks.
    pub fn pending_checkpoints(&self) -> Vec<PendingCheckpointView> {
        self.pending
            .values()
            .map(|p| PendingCheckpointView {
                id: p.id,
                props: p.props,
                trigger_timestamp: p.trigger_timestamp,
                acknowledged: p.num_acknowledged(),
                total: p.num_total(),
            })
            .collect()
    }

    pub fn pending_checkpoint(&self, id: CheckpointId) -> Option<&PendingCheckpoint> {
        self.pending.get(&id)
    }

    /// What the decider sees: cleanup finishes within one step here.
    pub(super) fn decider_context(&self) -> DeciderContext {
        DeciderContext {
            pending: self.pending.len(),
            is_triggering: self.triggering.is_some(),
            cleaning: 0,
            last_completion: self.last_completion,
        }
    }

    /// The checkpoint whose asynchronous triggering has not finished (also when it was aborted
    /// meanwhile: the triggering ends on `TriggeringDone`).
    pub fn triggering_checkpoint(&self) -> Option<CheckpointId> {
        self.triggering.as_ref().and_then(Triggering::id)
    }

    /// `isTriggering`: a trigger is in flight, with or without a checkpoint id (a request whose
    /// id assignment failed is still triggering until `TriggeringDone`).
    pub fn is_triggering(&self) -> bool {
        self.triggering.is_some()
    }

    /// Calls armed to fail: `(call, throws an IOException, how many more times)`.
    pub fn failing_calls(&self) -> impl Iterator<Item = (CoordinatorCall, bool, u32)> + '_ {
        self.failing_calls
            .iter()
            .map(|(call, f)| (*call, f.io_exception, f.remaining))
    }

    /// Whether the next `CheckpointIDCounter.getAndIncrement` stops the scheduler.
    pub fn stops_scheduler_in_next_id_counter_call(&self) -> bool {
        self.stop_in_next_id_counter_call
    }

    /// The decider's queue, head first.
    pub fn queued_requests(&self) -> &[CheckpointTriggerRequest] {
        self.decider.queued()
    }

    pub fn failure_counter(&self) -> u32 {
        self.failure_manager.continuous_failure_counter()
    }

    pub fn failure_manager(&self) -> &CheckpointFailureManager {
        &self.failure_manager
    }

    /// The newest checkpoint in the completed store (savepoints are not stored).
    pub fn latest_completed_id(&self) -> Option<CheckpointId> {
        self.store.latest_checkpoint_id()
    }

    pub fn completed_store(&self) -> &CompletedCheckpointStore {
        &self.store
    }

    pub fn stats(&self) -> &CheckpointStatsTracker {
        &self.stats
    }

    pub fn is_periodic_scheduling(&self) -> bool {
        self.periodic_scheduling
    }

    pub fn next_checkpoint_id(&self) -> CheckpointId {
        self.next_id
    }

    /// The job id that names the checkpoint directories.
    pub fn job_id(&self) -> &str {
        &self.job_id
    }

    /// `restoreSavepoint` for a checkpoint or savepoint read from checkpoint storage: it joins the
    /// store (so a failover comes back to it) and checkpoint ids continue after it, as Flink's
    /// `checkpointIdCounter.setCount(id + 1)` does.
    pub fn restore_savepoint(&mut self, checkpoint: CompletedCheckpoint) {
        self.next_id = self.next_id.max(checkpoint.id + 1);
        self.store.add_checkpoint_and_subsume_oldest_one(checkpoint);
    }
}
