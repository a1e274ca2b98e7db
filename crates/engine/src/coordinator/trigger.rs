//! Triggering: every request passes the `CheckpointRequestDecider`; a chosen one becomes a
//! `PendingCheckpoint` and a `TriggerTasks` RPC (`CheckpointCoordinator.startTriggeringCheckpoint`).

use std::collections::{BTreeMap, BTreeSet};

use super::checkpoint_coordinator::{CheckpointCoordinator, CheckpointPlan};
use super::failure_manager::CheckpointFailureReason;
use super::messages::{CoordinatorCall, CoordinatorEffect, CoordinatorTimer};
use super::pending_checkpoint::{PendingCheckpoint, SubtaskCheckpointMetrics};
use super::properties::CheckpointProperties;
use super::request_decider::{CheckpointTriggerRequest, DeciderOutcome};
use crate::types::{CheckpointId, Micros, SubtaskId};
use CoordinatorEffect as E;

impl CheckpointCoordinator {
    /// `triggerCheckpoint`: every request goes through the `CheckpointRequestDecider`.
    pub(super) fn trigger_checkpoint(
        &mut self,
        now: Micros,
        props: CheckpointProperties,
        fx: &mut Vec<CoordinatorEffect>,
    ) {
        let seq = self.decider.next_seq();
        let outcome = self.decider.submit(props, now, self.decider_context());
        if self.decider.is_queued(seq) {
            fx.push(E::RequestQueued { props });
        }
        self.run_decider(now, outcome, fx);
    }

    /// `executeQueuedRequest` (what `scheduleTriggerRequest` eventually runs).
    pub(super) fn execute_queued_request(&mut self, now: Micros, fx: &mut Vec<CoordinatorEffect>) {
        let outcome = self.decider.choose_queued(now, self.decider_context());
        self.run_decider(now, outcome, fx);
    }

    /// Applies a decision; after each trigger (success or failure) the queue is examined again,
    /// like `onTriggerSuccess`/`onTriggerFailure` → `executeQueuedRequest`.
    pub(super) fn run_decider(
        &mut self,
        now: Micros,
        mut outcome: DeciderOutcome,
        fx: &mut Vec<CoordinatorEffect>,
    ) {
        loop {
            for (request, reason) in std::mem::take(&mut outcome.failed) {
                self.on_trigger_failure(now, request.props, reason, fx);
            }
            if let Some(delay) = outcome.reschedule_periodic_after.take() {
                // `rescheduleTrigger`: the periodic trigger waits out the min-pause.
                if self.periodic_scheduling {
                    self.cancel_periodic_trigger(fx);
                    self.schedule_trigger_with_delay(now, delay, fx);
                }
            }
            let Some(request) = outcome.execute.take() else {
                break;
            };
            self.start_triggering_checkpoint(now, request, fx);
            outcome = self.decider.choose_queued(now, self.decider_context());
        }
    }

    /// `startTriggeringCheckpoint`: `preCheckGlobalState`, `calculateCheckpointPlan`,
    /// `checkpointIdCounter.getAndIncrement`, `createPendingCheckpoint` (`preCheckGlobalState`
    /// again, `reportPendingCheckpoint`, the `CheckpointCanceller` timer),
    /// `initializeCheckpointLocation`, the operator coordinators' and master hooks' checkpoints,
    /// then `triggerCheckpointRequest` → `triggerTasks`. In one step by default; with
    /// [`Self::with_async_trigger`] the pending checkpoint waits for
    /// [`CoordinatorInput::TriggeringDone`] before its tasks are triggered, and the decider starts
    /// nothing else meanwhile (`isTriggering`), as in Flink, where the storage location, master
    /// hooks and operator coordinators are prepared asynchronously and the outcome is handled on
    /// the timer thread. A failure once `isTriggering` is set (the plan, the id counter, the
    /// second pre-check, the storage location) is then reported at `TriggeringDone` too.
    ///
    /// [`CoordinatorInput::TriggeringDone`]: super::CoordinatorInput::TriggeringDone
    pub(super) fn start_triggering_checkpoint(
        &mut self,
        now: Micros,
        request: CheckpointTriggerRequest,
        fx: &mut Vec<CoordinatorEffect>,
    ) {
        let props = request.props;
        if props.periodic && !self.periodic_scheduling {
            self.on_trigger_failure(
                now,
                props,
                CheckpointFailureReason::PERIODIC_SCHEDULER_SHUTDOWN,
                fx,
            );
            return;
        }
        let plan = match self.calculate_checkpoint_plan() {
            Ok(plan) => plan,
            Err(reason) => {
                self.fail_before_pending_checkpoint(now, props, reason, fx);
                return;
            }
        };
        // `checkpointIdCounter.getAndIncrement`: a failure leaves no pending checkpoint (and
        // no pending statistics), and the id is not used up.
        if let Some(io_exception) = self.fail_call(CoordinatorCall::CheckpointIdCounter) {
            let reason = trigger_failure_reason(io_exception);
            self.fail_before_pending_checkpoint(now, props, reason, fx);
            return;
        }
        if std::mem::take(&mut self.stop_in_next_id_counter_call) {
            // Flink's `StoppingCheckpointIDCounter`: the scheduler stops inside the call.
            self.stop_checkpoint_scheduler(
                now,
                CheckpointFailureReason::CHECKPOINT_COORDINATOR_SUSPEND,
                fx,
            );
        }
        let id = self.next_id;
        self.next_id += 1;
        // `createPendingCheckpoint` checks the global state again: the scheduler may have been
        // stopped since the request passed the first check.
        if props.periodic && !self.periodic_scheduling {
            let reason = CheckpointFailureReason::PERIODIC_SCHEDULER_SHUTDOWN;
            self.fail_before_pending_checkpoint(now, props, reason, fx);
            return;
        }
        let unaligned = self.config.unaligned_for(props.is_savepoint());
        // `trackPendingCheckpointStats`: every vertex at its full parallelism, the tasks that
        // finished already counted as acknowledged now (`reportFinishedTasks`).
        let finished: Vec<SubtaskId> = self
            .all
            .iter()
            .filter(|s| self.finished.contains(s))
            .copied()
            .collect();
        let mut per_vertex: BTreeMap<u32, u32> = BTreeMap::new();
        for s in plan.tasks_to_wait_for.iter().chain(&finished) {
            *per_vertex.entry(s.vertex).or_insert(0) += 1;
        }
        self.stats
            .report_pending(id, now, props, unaligned, &per_vertex);
        for s in finished {
            let metrics = SubtaskCheckpointMetrics::default();
            self.stats.report_subtask(id, s, now, metrics);
        }
        let coordinators = &self.operator_coordinators;
        let mut pending = PendingCheckpoint::new(
            id,
            props,
            now,
            unaligned,
            &plan.tasks_to_wait_for,
            plan.tasks_to_commit_to,
        );
        // Triggered in one step, the master side and the coordinators' checkpoints complete
        // within it too; asynchronously, the checkpoint waits for them.
        if self.async_trigger {
            pending = pending
                .with_coordinators(coordinators)
                .with_master_state_pending();
        }
        self.pending.insert(id, pending);
        // `initializeCheckpointLocation`: after a failure the operator coordinators are not
        // asked to checkpoint, and `onTriggerFailure` aborts the checkpoint.
        let location_failure = self
            .fail_call(CoordinatorCall::StorageLocation)
            .map(trigger_failure_reason);
        let coordinators = &self.operator_coordinators;
        if !coordinators.is_empty() && location_failure.is_none() {
            fx.push(E::CheckpointOperatorCoordinators {
                id,
                coordinators: coordinators.clone(),
            });
        }
        fx.push(E::ScheduleTimer {
            at: now.saturating_add(self.config.timeout),
            timer: CoordinatorTimer::Expiry(id),
        });
        let trigger = TriggerTasks {
            id,
            timestamp: now,
            props,
            unaligned,
            tasks: plan.tasks_to_trigger,
        };
        if self.async_trigger {
            fx.push(E::TriggeringCheckpoint { id });
            self.triggering = Some(Triggering::Checkpoint {
                tasks: trigger,
                failure: location_failure,
            });
            return;
        }
        // In one step the master hooks snapshot right away (`snapshotMasterState`).
        let failure = location_failure.or_else(|| {
            self.fail_call(CoordinatorCall::MasterHooks)
                .map(trigger_failure_reason)
        });
        if let Some(reason) = failure {
            self.abort_pending_checkpoint(now, id, reason, false, false, fx);
            return;
        }
        if self.trigger_tasks(trigger, fx) {
            let reason = CheckpointFailureReason::TRIGGER_CHECKPOINT_FAILURE;
            self.abort_pending_checkpoint(now, id, reason, false, false, fx);
        }
    }

    /// A failure once the request is triggering but before its pending checkpoint exists:
    /// `onTriggerFailure(request, …)`, asynchronously when the triggering ends.
    fn fail_before_pending_checkpoint(
        &mut self,
        now: Micros,
        props: CheckpointProperties,
        reason: CheckpointFailureReason,
        fx: &mut Vec<CoordinatorEffect>,
    ) {
        if self.async_trigger {
            self.triggering = Some(Triggering::Request { props, reason });
        } else {
            self.on_trigger_failure(now, props, reason, fx);
        }
    }

    /// `triggerTasks`: the trigger RPC to each task. True when an RPC failed (an armed
    /// `TriggerRpc` failure): the caller aborts the checkpoint with TRIGGER_CHECKPOINT_FAILURE,
    /// as Flink's handler of the RPC futures does on the timer.
    fn trigger_tasks(&mut self, trigger: TriggerTasks, fx: &mut Vec<CoordinatorEffect>) -> bool {
        fx.push(trigger.effect());
        self.fail_call(CoordinatorCall::TriggerRpc).is_some()
    }

    /// Takes one armed failure of `call`: `Some(io_exception)` when this call fails.
    pub(super) fn fail_call(&mut self, call: CoordinatorCall) -> Option<bool> {
        let armed = self.failing_calls.get_mut(&call)?;
        let io_exception = armed.io_exception;
        armed.remaining = armed.remaining.saturating_sub(1);
        if armed.remaining == 0 {
            self.failing_calls.remove(&call);
        }
        Some(io_exception)
    }

    /// The asynchronous part of triggering ended (`TriggeringDone`): the handler of the
    /// master-trigger promise runs (`startTriggeringCheckpoint`'s `handleAsync`). A request that
    /// failed before it got a pending checkpoint fails now; a checkpoint aborted meanwhile is
    /// reported once more; otherwise the master side (storage location, hooks) is done, or its
    /// failure aborts the checkpoint.
    pub(super) fn triggering_done(
        &mut self,
        now: Micros,
        id: Option<CheckpointId>,
        fx: &mut Vec<CoordinatorEffect>,
    ) {
        let Some(triggering) = &self.triggering else {
            return;
        };
        if id.is_some_and(|id| triggering.id() != Some(id)) {
            return;
        }
        match self.triggering.take() {
            Some(Triggering::Request { props, reason }) => {
                self.on_trigger_failure(now, props, reason, fx);
                self.execute_queued_request(now, fx);
            }
            Some(Triggering::Aborted { id, props, reason }) => {
                self.on_trigger_failure_of_disposed(id, props, reason, fx);
                self.execute_queued_request(now, fx);
            }
            Some(Triggering::Checkpoint {
                tasks,
                failure: Some(reason),
            }) => self.abort_pending_checkpoint(now, tasks.id, reason, false, true, fx),
            Some(Triggering::Checkpoint {
                tasks,
                failure: None,
            }) => {
                let id = tasks.id;
                let master_done = self
                    .pending
                    .get(&id)
                    .is_none_or(|p| p.is_master_state_acknowledged());
                if !master_done {
                    // `snapshotMasterState`: a hook whose snapshot fails fails the trigger.
                    if let Some(io_exception) = self.fail_call(CoordinatorCall::MasterHooks) {
                        let reason = trigger_failure_reason(io_exception);
                        self.abort_pending_checkpoint(now, id, reason, false, true, fx);
                        return;
                    }
                }
                if let Some(pending) = self.pending.get_mut(&id) {
                    pending.acknowledge_master_state();
                }
                self.triggering = Some(Triggering::Checkpoint {
                    tasks,
                    failure: None,
                });
                self.maybe_finish_triggering(now, fx);
            }
            None => {}
        }
    }

    /// `onTriggerFailure(checkpoint, …)` for a checkpoint that is disposed already (aborted while
    /// it was triggering, or failed to complete when its triggering ended): Flink hands the
    /// failure to the failure manager once more, without the checkpoint's pending statistics, so
    /// the statistics count one more failed checkpoint.
    fn on_trigger_failure_of_disposed(
        &mut self,
        id: CheckpointId,
        props: CheckpointProperties,
        reason: CheckpointFailureReason,
        fx: &mut Vec<CoordinatorEffect>,
    ) {
        self.stats.report_failed_without_in_progress();
        if let Some(message) =
            self.failure_manager
                .handle_checkpoint_exception(&props, reason, Some(id), false)
        {
            fx.push(E::FailJob { reason: message });
        }
    }

    /// `acknowledgeCoordinatorState`; the last one may finish the triggering.
    pub(super) fn operator_coordinator_ack(
        &mut self,
        now: Micros,
        id: CheckpointId,
        coordinator: &str,
        fx: &mut Vec<CoordinatorEffect>,
    ) {
        if let Some(pending) = self.pending.get_mut(&id) {
            pending.acknowledge_coordinator(coordinator);
        }
        if self.triggering_checkpoint_in_flight() == Some(id) {
            self.maybe_finish_triggering(now, fx);
        }
    }

    /// A coordinator's checkpoint failed while triggering: `onTriggerFailure(checkpoint, …)`
    /// aborts the pending checkpoint and looks at the queue again.
    pub(super) fn operator_coordinator_failed(
        &mut self,
        now: Micros,
        id: CheckpointId,
        fx: &mut Vec<CoordinatorEffect>,
    ) {
        if self.triggering_checkpoint_in_flight() == Some(id) {
            self.triggering = None;
            let reason = CheckpointFailureReason::TRIGGER_CHECKPOINT_FAILURE;
            self.abort_pending_checkpoint(now, id, reason, false, true, fx);
        }
    }

    /// The checkpoint being triggered, unless it was aborted meanwhile.
    fn triggering_checkpoint_in_flight(&self) -> Option<CheckpointId> {
        match &self.triggering {
            Some(Triggering::Checkpoint { tasks, .. }) => Some(tasks.id),
            _ => None,
        }
    }

    /// `onTriggerSuccess` once the master side is done and every coordinator acknowledged:
    /// trigger the tasks (`triggerCheckpointRequest`), complete the checkpoint if the tasks
    /// acknowledged already (`maybeCompleteCheckpoint`), then look at the queue.
    fn maybe_finish_triggering(&mut self, now: Micros, fx: &mut Vec<CoordinatorEffect>) {
        let ready = match &self.triggering {
            Some(Triggering::Checkpoint {
                tasks,
                failure: None,
            }) => self.pending.get(&tasks.id).is_none_or(|p| {
                p.is_master_state_acknowledged() && p.are_coordinators_fully_acknowledged()
            }),
            _ => false,
        };
        if !ready {
            return;
        }
        let Some(Triggering::Checkpoint { tasks: trigger, .. }) = self.triggering.take() else {
            return;
        };
        let id = trigger.id;
        if let Some(pending) = self.pending.get(&id) {
            let complete = pending.is_fully_acknowledged();
            let props = pending.props;
            let rpc_failed = self.trigger_tasks(trigger, fx);
            // `triggerCheckpointRequest`: the tasks may have acknowledged already (a source
            // whose checkpoints are induced externally, by a master hook).
            if complete {
                match self.complete_pending_checkpoint(now, id, fx) {
                    Ok(()) => return, // completion examines the queue itself
                    Err(failure) => {
                        // `maybeCompleteCheckpoint` catches the `CheckpointException` and calls
                        // `onTriggerFailure` for the checkpoint the failed completion disposed.
                        let reason = if failure.io_exception {
                            CheckpointFailureReason::IO_EXCEPTION
                        } else {
                            CheckpointFailureReason::FINALIZE_CHECKPOINT_FAILURE
                        };
                        self.on_trigger_failure_of_disposed(id, props, reason, fx);
                    }
                }
            } else if rpc_failed {
                let reason = CheckpointFailureReason::TRIGGER_CHECKPOINT_FAILURE;
                self.abort_pending_checkpoint(now, id, reason, false, false, fx);
            }
        }
        self.execute_queued_request(now, fx);
    }

    /// `DefaultCheckpointPlanCalculator`. With every task running: trigger the sources, wait for
    /// and commit to all. After some tasks finished (`calculateAfterTasksFinished`): wait for and
    /// commit to the running tasks, and trigger the running sources plus every running task whose
    /// upstream has fully finished. Without the job graph's edges, "upstream" is approximated as
    /// "every vertex with a smaller index" (vertices are numbered in topological order), which
    /// is exact for pipelines and conservative for parallel branches.
    pub(super) fn calculate_checkpoint_plan(
        &self,
    ) -> Result<CheckpointPlan, CheckpointFailureReason> {
        let not_running = CheckpointFailureReason::NOT_ALL_REQUIRED_TASKS_RUNNING;
        // `checkAllTasksInitiated`/`checkTasksStarted`: every task of the plan must be RUNNING.
        let deploying = self.all.iter().any(|s| self.not_running.contains(s));
        if self.all.is_empty() || self.sources.is_empty() || deploying {
            return Err(not_running);
        }
        if self.finished.is_empty() {
            return Ok(CheckpointPlan {
                tasks_to_trigger: self.sources.clone(),
                tasks_to_wait_for: self.all.clone(),
                tasks_to_commit_to: self.all.clone(),
            });
        }
        if !self.config.checkpoints_after_tasks_finish {
            return Err(not_running);
        }
        let running: Vec<SubtaskId> = self
            .all
            .iter()
            .copied()
            .filter(|s| !self.finished.contains(s))
            .collect();
        let vertex_finished = |v: u32| {
            self.all
                .iter()
                .filter(|s| s.vertex == v)
                .all(|s| self.finished.contains(s))
        };
        let sources: BTreeSet<SubtaskId> = self.sources.iter().copied().collect();
        let trigger: Vec<SubtaskId> = running
            .iter()
            .copied()
            .filter(|s| {
                sources.contains(s)
                    || self
                        .all
                        .iter()
                        .filter(|u| u.vertex < s.vertex)
                        .all(|u| vertex_finished(u.vertex))
            })
            .collect();
        if trigger.is_empty() {
            return Err(not_running);
        }
        Ok(CheckpointPlan {
            tasks_to_trigger: trigger,
            tasks_to_wait_for: running.clone(),
            tasks_to_commit_to: running,
        })
    }

    /// `onTriggerFailure` without a pending checkpoint: stats count it as failed, the failure
    /// manager sees it at job level, and a failed stop-with-savepoint restarts the scheduler.
    pub(super) fn on_trigger_failure(
        &mut self,
        now: Micros,
        props: CheckpointProperties,
        reason: CheckpointFailureReason,
        fx: &mut Vec<CoordinatorEffect>,
    ) {
        self.stats.report_failed_without_in_progress();
        fx.push(E::RequestRejected { props, reason });
        if let Some(message) = self
            .failure_manager
            .handle_checkpoint_exception(&props, reason, None, false)
        {
            fx.push(E::FailJob { reason: message });
        }
        if props.is_synchronous() {
            self.restart_scheduler_after_failed_stop(now, reason, fx);
        }
    }

    /// A failed stop-with-savepoint resumes periodic checkpoints (unless the coordinator itself
    /// is going away).
    pub(super) fn restart_scheduler_after_failed_stop(
        &mut self,
        now: Micros,
        reason: CheckpointFailureReason,
        fx: &mut Vec<CoordinatorEffect>,
    ) {
        let going_away = matches!(
            reason,
            CheckpointFailureReason::CHECKPOINT_COORDINATOR_SUSPEND
                | CheckpointFailureReason::CHECKPOINT_COORDINATOR_SHUTDOWN
        );
        if !going_away && !self.shutdown && !self.periodic_scheduling {
            self.start_checkpoint_scheduler(now, None, fx);
        }
    }
}

/// `getCheckpointException(TRIGGER_CHECKPOINT_FAILURE, cause)`: an `IOException` in the cause
/// makes it IO_EXCEPTION.
fn trigger_failure_reason(io_exception: bool) -> CheckpointFailureReason {
    if io_exception {
        CheckpointFailureReason::IO_EXCEPTION
    } else {
        CheckpointFailureReason::TRIGGER_CHECKPOINT_FAILURE
    }
}

/// What is being triggered asynchronously (`isTriggering`), until `TriggeringDone`.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(super) enum Triggering {
    /// The request failed before it had a pending checkpoint (the plan, the id counter, the
    /// second pre-check): `onTriggerFailure(request, reason)` when the triggering ends.
    Request {
        props: CheckpointProperties,
        reason: CheckpointFailureReason,
    },
    /// A pending checkpoint whose tasks are triggered once its master side and operator
    /// coordinators are done. `failure`: its storage location could not be initialized, so it
    /// aborts when the triggering ends.
    Checkpoint {
        tasks: TriggerTasks,
        failure: Option<CheckpointFailureReason>,
    },
    /// Its pending checkpoint was aborted (`reason`) while it was triggering; the handler of
    /// the failed master-trigger promise ends the triggering.
    Aborted {
        id: CheckpointId,
        props: CheckpointProperties,
        reason: CheckpointFailureReason,
    },
}

impl Triggering {
    /// The checkpoint's id, once it has one.
    pub(super) fn id(&self) -> Option<CheckpointId> {
        match self {
            Triggering::Request { .. } => None,
            Triggering::Checkpoint { tasks, .. } => Some(tasks.id),
            Triggering::Aborted { id, .. } => Some(*id),
        }
    }
}

/// A checkpoint whose tasks are still to be triggered (while its triggering is asynchronous).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(super) struct TriggerTasks {
    pub(super) id: CheckpointId,
    timestamp: Micros,
    props: CheckpointProperties,
    unaligned: bool,
    tasks: Vec<SubtaskId>,
}

impl TriggerTasks {
    fn effect(self) -> CoordinatorEffect {
        E::TriggerTasks {
            id: self.id,
            timestamp: self.timestamp,
            props: self.props,
            unaligned: self.unaligned,
            tasks: self.tasks,
        }
    }
}
