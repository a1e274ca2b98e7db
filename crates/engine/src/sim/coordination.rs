//! The JobManager side: feeding the pure `CheckpointCoordinator` and carrying out its effects
//! (RPCs to tasks with their latency, timers, the completed-checkpoint store's state).

use super::{Event, InFlightRecord, JobStatus, Simulation};
use crate::barrier::{CheckpointBarrier, CheckpointOptions, CheckpointType};
use crate::coordinator::{
    CheckpointFailureReason, CheckpointKind, CoordinatorEffect, CoordinatorInput,
};
use crate::task::TaskStateSnapshot;
use crate::task::{ColdPath, Mail};
use crate::trace::TraceKind;
use crate::types::{CheckpointId, Micros, SubtaskId};
use std::collections::BTreeMap;

impl Simulation {
    pub(crate) fn coordinator_input(&mut self, input: CoordinatorInput) {
        if let CoordinatorInput::Acknowledge { id, subtask, .. } = &input {
            self.trace.record(
                self.now,
                Some(*subtask),
                TraceKind::Acknowledged { id: *id },
            );
        }
        let effects = self.coordinator.handle(self.now, input);
        for effect in effects {
            self.apply_coordinator_effect(effect);
        }
    }

    fn task_index(&self, id: SubtaskId) -> Option<u32> {
        self.tasks.iter().position(|t| t.id == id).map(|i| i as u32)
    }

    fn send_mail(&mut self, to: &[SubtaskId], mail: impl Fn() -> Mail, urgent: bool) {
        self.send_mail_after(self.params.rpc_latency, None, to, mail, urgent);
    }

    /// Sends `mail` to each task `latency` from now. Trigger RPCs (`trigger`: of that checkpoint)
    /// also get thread jitter, and each TaskExecutor handles them one after another: the k-th task
    /// triggered on a TaskManager gets its mail k × `trigger_dispatch` later.
    fn send_mail_after(
        &mut self,
        latency: Micros,
        trigger: Option<CheckpointId>,
        to: &[SubtaskId],
        mail: impl Fn() -> Mail,
        urgent: bool,
    ) {
        let mut handled: BTreeMap<u32, Micros> = BTreeMap::new();
        for id in to {
            if let Some(task) = self.task_index(*id) {
                let extra = if let Some(id) = trigger {
                    let tm = self.taskmanager.get(task as usize).copied().unwrap_or(0);
                    let queued = handled.entry(tm).or_insert(0);
                    let behind = *queued;
                    *queued = queued.saturating_add(self.params.trigger_dispatch);
                    let extra = behind.saturating_add(self.jitter());
                    // A cold TaskManager first loads the trigger path's classes (`warm_up.rs`).
                    let at = self.now.saturating_add(latency).saturating_add(extra);
                    let cold = self.warm_ups.get_mut(tm as usize).map_or(0, |w| {
                        w.wait(ColdPath::Trigger, at, &self.params.task.warm_up, id)
                    });
                    extra.saturating_add(cold)
                } else {
                    0
                };
                self.queue.push(
                    // Saturating: a user can set latencies up to years.
                    self.now.saturating_add(latency).saturating_add(extra),
                    Event::MailArrive {
                        task,
                        mail: Box::new(mail()),
                        urgent,
                    },
                );
            }
        }
    }

    /// A trigger RPC reached the TaskExecutor of a task that has finished. Flink's `Task.doRun`
    /// reports FINISHED (`notifyFinalState`) and the TaskExecutor unregisters the task from its
    /// `TaskSlotTable` before it tells the JobManager (`unregisterTaskAndNotifyFinalState`), so
    /// `TaskExecutor.triggerCheckpoint` finds no task: it answers with a failed future, "TaskManager
    /// received a checkpoint request for unknown task …" (TASK_CHECKPOINT_FAILURE). Nothing reaches
    /// the task and nothing declines; the coordinator aborts the checkpoint when the failure
    /// returns (`triggerTasks`' future fails).
    pub(super) fn trigger_for_unknown_task(&mut self, id: CheckpointId) {
        let input = CoordinatorInput::TriggerTasksFailed {
            id,
            reason: CheckpointFailureReason::TASK_CHECKPOINT_FAILURE,
        };
        self.queue.push(
            self.now.saturating_add(self.params.rpc_latency),
            Event::ToCoordinator(Box::new(input)),
        );
    }

    fn apply_coordinator_effect(&mut self, effect: CoordinatorEffect) {
        let now = self.now;
        match effect {
            CoordinatorEffect::ScheduleTimer { at, timer } => {
                // Never reused: a cancelled timer's event still in the queue must not match a
                // timer scheduled after the cancel.
                self.timer_generations += 1;
                let generation = self.timer_generations;
                self.coordinator_timers.insert(timer, generation);
                self.queue
                    .push(at, Event::CoordinatorTimer { timer, generation });
            }
            CoordinatorEffect::CancelTimer { timer } => {
                self.coordinator_timers.remove(&timer);
            }
            CoordinatorEffect::TriggerTasks {
                id,
                timestamp,
                props,
                unaligned,
                tasks,
            } => {
                let savepoint = props.kind != CheckpointKind::Checkpoint;
                let c = &self.graph.config;
                let options = CheckpointOptions::for_config(
                    if savepoint {
                        CheckpointType::Savepoint
                    } else {
                        CheckpointType::Checkpoint
                    },
                    c.checkpointing_mode == crate::scenario::CheckpointingMode::ExactlyOnce,
                    c.unaligned_enabled,
                    c.aligned_checkpoint_timeout,
                );
                let urgent = options.is_unaligned();
                self.trace.record(
                    now,
                    None,
                    TraceKind::CheckpointTriggered {
                        id,
                        savepoint,
                        unaligned: unaligned && urgent,
                    },
                );
                let barrier = CheckpointBarrier {
                    id,
                    timestamp,
                    options,
                };
                let latency = self.params.trigger_latency;
                self.send_mail_after(
                    latency,
                    Some(id),
                    &tasks,
                    || Mail::TriggerCheckpoint { barrier },
                    urgent,
                );
            }
            CoordinatorEffect::CheckpointCompleted { checkpoint } => {
                let id = checkpoint.id;
                self.drop_channel_state_files(id);
                let size: u64 = checkpoint.handles.iter().map(|h| h.checkpointed_size).sum();
                self.trace.record(
                    now,
                    None,
                    TraceKind::CheckpointCompleted {
                        id,
                        duration: now.saturating_sub(checkpoint.trigger_timestamp),
                        size,
                    },
                );
                let keys: Vec<(u64, u32)> = self
                    .acked_state
                    .range((id, 0)..=(id, u32::MAX))
                    .map(|(k, _)| *k)
                    .collect();
                let mut state = std::collections::BTreeMap::new();
                for key in keys {
                    if let Some(s) = self.acked_state.remove(&key) {
                        state.insert(key.1, s);
                    }
                }
                // Subtasks that finished before this checkpoint are part of it as finished.
                for (i, t) in self.tasks.iter().enumerate() {
                    if t.status == crate::task::TaskStatus::Finished
                        && !state.contains_key(&(i as u32))
                    {
                        let mut snap = crate::task::TaskStateSnapshot {
                            task: t.id,
                            finished: true,
                            ..Default::default()
                        };
                        if let Some(crate::task::Operator::Datagen(dg)) = t.operators.first() {
                            snap.operator.push((0, dg.state.snapshot(id)));
                        }
                        state.insert(i as u32, snap);
                    }
                }
                self.register_shared_state(id, &state);
                self.keep_completed_state(id, state);
                if checkpoint.props.kind == CheckpointKind::Checkpoint {
                    self.latest_restorable = Some(id);
                }
                if checkpoint.props.kind == CheckpointKind::SyncSavepoint {
                    self.stop_after_savepoint();
                }
            }
            CoordinatorEffect::NotifyCheckpointComplete { id, tasks } => {
                let delivered: Vec<_> = tasks
                    .into_iter()
                    .filter(|t| !self.notification_lost(*t, id))
                    .collect();
                self.send_mail(&delivered, || Mail::NotifyCheckpointComplete { id }, false);
            }
            CoordinatorEffect::NotifyCheckpointAborted { id, tasks } => {
                self.send_mail(&tasks, || Mail::NotifyCheckpointAborted { id }, false);
            }
            CoordinatorEffect::CheckpointAborted { id, reason } => {
                self.trace.record(
                    now,
                    None,
                    TraceKind::CheckpointAborted {
                        id,
                        reason: reason.name().to_string(),
                    },
                );
                self.acked_state.retain(|(cid, _), _| *cid != id);
                self.drop_channel_state_files(id);
            }
            CoordinatorEffect::RequestQueued { .. } => {}
            CoordinatorEffect::RequestRejected { reason, .. } => self.trace.record(
                now,
                None,
                TraceKind::TriggerRejected {
                    reason: reason.name().to_string(),
                },
            ),
            CoordinatorEffect::AckIgnored { .. } => {}
            // The simulation triggers in one step, its tasks talk only to their own job, and
            // its jobs have no operator coordinators.
            CoordinatorEffect::TriggeringCheckpoint { .. }
            | CoordinatorEffect::WrongJob { .. }
            | CoordinatorEffect::CheckpointOperatorCoordinators { .. }
            | CoordinatorEffect::NotifyOperatorCoordinatorsComplete { .. }
            | CoordinatorEffect::NotifyOperatorCoordinatorsAborted { .. } => {}
            CoordinatorEffect::FailJob { reason } => self.fail_job(reason, None),
            CoordinatorEffect::Subsumed { id } => {
                self.completed_state.remove(&id);
            }
        }
    }
}

/// What a user (CLI, UI, REST) can ask the JobManager for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UserRequest {
    /// `POST /jobs/:id/checkpoints`: a checkpoint now.
    Checkpoint,
    /// `POST /jobs/:id/savepoints`.
    Savepoint,
    /// `POST /jobs/:id/stop`: stop-with-savepoint.
    StopWithSavepoint,
}

impl Simulation {
    /// Stop-with-savepoint completed: the tasks end and the job is FINISHED; the savepoint stays
    /// available to restore from.
    fn stop_after_savepoint(&mut self) {
        for t in &mut self.tasks {
            if t.status == crate::task::TaskStatus::Running {
                t.status = crate::task::TaskStatus::Finished;
                t.time.set(self.now, crate::task::TimeState::Idle);
                self.trace
                    .record(self.now, Some(t.id), TraceKind::TaskFinished);
            }
        }
        self.status = JobStatus::Finished;
        self.coordinator_input(CoordinatorInput::Shutdown);
    }

    /// Hands a user request to the coordinator at the current time.
    pub fn request(&mut self, request: UserRequest) {
        use crate::coordinator::CheckpointProperties as P;
        let props = match request {
            UserRequest::Checkpoint => P::user_checkpoint(),
            UserRequest::Savepoint => P::savepoint(),
            UserRequest::StopWithSavepoint => P::sync_savepoint(),
        };
        if self.status == JobStatus::Running {
            self.coordinator_input(CoordinatorInput::TriggerRequest { props });
        }
    }
}

impl Simulation {
    /// `completePendingCheckpoint`'s `SharedStateRegistry` steps: register the completed
    /// checkpoint's shared files, discard those no retained checkpoint lists (the store has just
    /// subsumed what it no longer keeps), mark the rest confirmed.
    fn register_shared_state(
        &mut self,
        id: CheckpointId,
        state: &BTreeMap<u32, TaskStateSnapshot>,
    ) {
        for s in state.values() {
            for (pos, cp) in &s.rocksdb {
                for (key, f, _) in cp.shared_files(s.task, *pos) {
                    self.shared_state.register_reference(&key, f.bytes, id);
                }
            }
        }
        let lowest = self
            .coordinator
            .completed_store()
            .all_checkpoints()
            .map(|c| c.id)
            .min();
        if let Some(lowest) = lowest {
            let gone = self.shared_state.unregister_unused_state(lowest);
            if !gone.is_empty() {
                self.trace.record(
                    self.now,
                    None,
                    TraceKind::SharedStateDiscarded {
                        files: gone.len() as u32,
                        bytes: gone.iter().map(|e| e.bytes).sum(),
                        lowest_retained: lowest,
                    },
                );
            }
        }
        self.shared_state.checkpoint_completed(id);
    }

    /// Keeps a completed checkpoint's task states for restores, together with what the
    /// exactly-once verification compares against: source offsets and in-flight records.
    pub(crate) fn keep_completed_state(
        &mut self,
        id: CheckpointId,
        state: BTreeMap<u32, TaskStateSnapshot>,
    ) {
        let offsets = state
            .values()
            .flat_map(|s| {
                s.operator.iter().filter_map(move |(_, o)| {
                    let pos = o.states.first()?.elements.first()?.value.max(0) as u64;
                    Some(((s.task.vertex << 16) | s.task.subtask, pos))
                })
            })
            .collect();
        self.checkpoint_offsets.insert(id, offsets);
        // Each copy with the operator it enters next, the head of its channel's consumer (an
        // output subpartition's downstream vertex, an input channel's own vertex): the
        // verification counts what a copy still owes a sink from there.
        let vertices = &self.graph.vertices;
        let head = |vertex: u32| vertices.get(vertex as usize)?.operators.first().copied();
        let mut in_flight: Vec<InFlightRecord> = Vec::new();
        let mut hold = |records: &[crate::network::Record], operator| {
            in_flight.extend(records.iter().map(|r| InFlightRecord {
                origin: r.origin,
                seq: r.seq,
                operator,
            }));
        };
        for s in state.values() {
            let outputs = vertices.get(s.task.vertex as usize).map(|v| &v.outputs[..]);
            for (o, _, records) in &s.output_channel_records {
                let edge = outputs.and_then(|e| e.get(*o));
                if let Some(to) = edge.and_then(|e| head(e.target_vertex)) {
                    hold(records, to);
                }
            }
            if let Some(to) = head(s.task.vertex) {
                for (_, records) in &s.input_channel_records {
                    hold(records, to);
                }
            }
        }
        if !in_flight.is_empty() {
            self.checkpoint_in_flight.insert(id, in_flight);
        }
        self.completed_state.insert(id, state);
        self.prune_checkpoint_records(id);
    }

    /// Offsets and in-flight records are kept only for checkpoints that can still be restored or
    /// compared against: a long run must not grow with every checkpoint it ever took.
    fn prune_checkpoint_records(&mut self, newest: CheckpointId) {
        let floor = self.oldest_verification_basis(newest);
        let restorable = self.latest_restorable;
        let keep = |id: &CheckpointId, completed: &BTreeMap<CheckpointId, _>| {
            *id >= floor || completed.contains_key(id) || restorable == Some(*id)
        };
        let completed = &self.completed_state;
        self.checkpoint_offsets.retain(|id, _| keep(id, completed));
        self.checkpoint_in_flight
            .retain(|id, _| keep(id, completed));
        // A pending two-phase-commit sink subtask (basis 0) may still commit anything.
        if floor == 0 || !self.fold_records {
            return;
        }
        self.fold_final_records();
        // Committed transactions are remembered for idempotence as far back as a retained
        // checkpoint can commit again: its own and the committables it carries.
        let oldest_commit = self
            .completed_state
            .iter()
            .flat_map(|(id, tasks)| {
                std::iter::once(*id).chain(
                    tasks
                        .values()
                        .flat_map(|t| t.committables.iter().map(|(_, cid, _)| *cid)),
                )
            })
            .fold(floor, CheckpointId::min);
        for sink in self.external.sinks.values_mut() {
            sink.committed_transactions
                .retain(|(cid, _)| *cid >= oldest_commit);
        }
    }
}
