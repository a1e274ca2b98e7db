//! Drives the `CheckpointCoordinator` through a script. The driver owns the coordinator's timers
//! (it applies `ScheduleTimer`/`CancelTimer`) and fires them in time order on `advance`.

use std::collections::BTreeMap;

use serde_json::Value;

use super::coordinator_script::{
    coordinator_config, CoordinatorScript, CoordinatorStep, ExceptionKind, COORDINATOR_STEP_KINDS,
};
use super::report::{
    CoordinatorSnapshot, DriverNote, Effect, Emitted, FailingCallView, MachineState,
    PendingSnapshot, ReplayReport, ReplayStart, ReplayStep, ScheduledTimer, StatsEntry, StatsView,
    Via,
};
use super::values::task_name;
use super::{parse_script, parse_step, step_error, MAX_TIMERS_PER_ADVANCE};
use crate::coordinator::{
    CheckpointCoordinator, CoordinatorCall, CoordinatorEffect, CoordinatorInput, CoordinatorTimer,
};
use crate::types::Micros;

/// The coordinator's job: names the checkpoint and savepoint directories in `CheckpointCompleted`
/// pointers, and an ack or decline whose `job` is another is ignored.
pub const JOB_ID: &str = "replay";

pub(super) fn run(value: Value) -> Result<ReplayReport, String> {
    let script: CoordinatorScript = parse_script(value)?;
    let config = coordinator_config(&script.config)?;
    let (sources, all) = script.tasks.plan()?;
    let mut driver = CoordinatorDriver {
        coordinator: {
            let c = CheckpointCoordinator::new(config, JOB_ID)
                .with_operator_coordinators(script.operator_coordinators.clone());
            if script.async_trigger {
                c.with_async_trigger()
            } else {
                c
            }
        },
        now: 0,
        timers: BTreeMap::new(),
        out: Vec::new(),
        job_failed: None,
    };
    driver.feed(CoordinatorInput::SetPlan { sources, all }, Via::Input);
    driver.feed(
        CoordinatorInput::StartScheduler {
            random: script.random,
        },
        Via::Input,
    );
    let start = ReplayStart {
        time: 0,
        effects: std::mem::take(&mut driver.out),
        state: driver.snapshot(),
    };
    let mut steps = Vec::with_capacity(script.steps.len());
    for (index, raw) in script.steps.into_iter().enumerate() {
        // Assertions about the step before; `expect::check` reads them from the report.
        if super::is_expect(&raw) {
            continue;
        }
        let step: CoordinatorStep = parse_step(index, &raw, COORDINATOR_STEP_KINDS)?;
        driver
            .step(index, step)
            .map_err(|message| step_error(index, &raw, message))?;
        steps.push(ReplayStep {
            step: index,
            time: driver.now,
            input: raw,
            effects: std::mem::take(&mut driver.out),
            state: driver.snapshot(),
        });
    }
    Ok(ReplayReport::new(
        script.version,
        script.machine,
        start,
        steps,
    ))
}

struct CoordinatorDriver {
    coordinator: CheckpointCoordinator,
    now: Micros,
    /// Armed timers and when they fire; re-scheduling a timer replaces it, as in Flink.
    timers: BTreeMap<CoordinatorTimer, Micros>,
    out: Vec<Emitted>,
    job_failed: Option<String>,
}

impl CoordinatorDriver {
    fn step(&mut self, index: usize, step: CoordinatorStep) -> Result<(), String> {
        let input = match step {
            CoordinatorStep::Advance(d) => return self.advance(d.0),
            CoordinatorStep::Trigger(kind) => CoordinatorInput::TriggerRequest {
                props: kind.props(),
            },
            CoordinatorStep::Ack(ack) => CoordinatorInput::Acknowledge {
                job: ack.job.clone(),
                id: ack.id,
                subtask: ack.task.0,
                metrics: ack.metrics(),
                // The coordinator only carries the key through to the completed checkpoint; the
                // step index makes it point back at the ack that produced it.
                handle_key: index as u64,
            },
            CoordinatorStep::Decline(d) => CoordinatorInput::Decline {
                job: d.job,
                id: d.id,
                subtask: d.task.0,
                reason: d.reason,
            },
            CoordinatorStep::Expire(e) => CoordinatorInput::ExpiryTimerFired { id: e.id },
            CoordinatorStep::TriggerDone(e) => CoordinatorInput::TriggeringDone { id: e.id },
            CoordinatorStep::AbortPendingCheckpoints(a) => {
                CoordinatorInput::AbortPendingCheckpoints { reason: a.reason }
            }
            CoordinatorStep::FailNext(f) => CoordinatorInput::FailNextCalls {
                call: f.call,
                io_exception: f.exception == ExceptionKind::IoException,
                times: f.times,
            },
            CoordinatorStep::CoordinatorAck(c) => CoordinatorInput::OperatorCoordinatorAck {
                id: c.id,
                coordinator: c.coordinator,
            },
            CoordinatorStep::CoordinatorFail(c) => CoordinatorInput::OperatorCoordinatorFailed {
                id: c.id,
                coordinator: c.coordinator,
            },
            CoordinatorStep::FailTask(t) => CoordinatorInput::TaskFailure { subtask: Some(t.0) },
            CoordinatorStep::StopScheduler(s) => match s.during {
                None => CoordinatorInput::SuspendScheduler,
                Some(CoordinatorCall::CheckpointIdCounter) => {
                    CoordinatorInput::StopSchedulerInNextIdCounterCall
                }
                Some(_) => {
                    return Err(
                        "\"during\": the scheduler can only be stopped during \"checkpoint_id_counter\""
                            .into(),
                    )
                }
            },
            CoordinatorStep::StartScheduler(s) => {
                CoordinatorInput::StartScheduler { random: s.random }
            }
            CoordinatorStep::Shutdown(_) => CoordinatorInput::Shutdown,
            CoordinatorStep::TasksFinished(tasks) => CoordinatorInput::TasksFinished {
                tasks: tasks.into_iter().map(|t| t.0).collect(),
            },
            CoordinatorStep::TasksNotRunning(tasks) => CoordinatorInput::TasksNotRunning {
                tasks: tasks.into_iter().map(|t| t.0).collect(),
            },
            CoordinatorStep::TasksRunning(tasks) => CoordinatorInput::TasksRunning {
                tasks: tasks.into_iter().map(|t| t.0).collect(),
            },
        };
        self.feed(input, Via::Input);
        Ok(())
    }

    /// Moves the clock by `delta`, firing every timer due by then in (time, timer) order; a
    /// timer armed by a fired one fires too if it is also due.
    fn advance(&mut self, delta: Micros) -> Result<(), String> {
        let target = self
            .now
            .checked_add(delta)
            .ok_or("the clock would overflow (u64 microseconds)")?;
        let mut fired = 0;
        while let Some((timer, at)) = self.next_due(target) {
            fired += 1;
            if fired > MAX_TIMERS_PER_ADVANCE {
                return Err(format!(
                    "this advance would fire more than {MAX_TIMERS_PER_ADVANCE} timers; split it into shorter advances"
                ));
            }
            self.timers.remove(&timer);
            self.now = self.now.max(at);
            self.out.push(Emitted {
                at: self.now,
                via: Via::Timer,
                effect: Effect::Driver(DriverNote::CoordinatorTimerFired { timer }),
            });
            let input = match timer {
                CoordinatorTimer::Periodic => CoordinatorInput::PeriodicTimerFired,
                CoordinatorTimer::Expiry(id) => CoordinatorInput::ExpiryTimerFired { id },
            };
            self.feed(input, Via::Timer);
        }
        self.now = target;
        Ok(())
    }

    fn next_due(&self, target: Micros) -> Option<(CoordinatorTimer, Micros)> {
        self.timers
            .iter()
            .filter(|(_, at)| **at <= target)
            .min_by_key(|(timer, at)| (**at, **timer))
            .map(|(timer, at)| (*timer, *at))
    }

    fn feed(&mut self, input: CoordinatorInput, via: Via) {
        let at = self.now;
        for effect in self.coordinator.handle(at, input) {
            match &effect {
                CoordinatorEffect::ScheduleTimer { at, timer } => {
                    self.timers.insert(*timer, *at);
                }
                CoordinatorEffect::CancelTimer { timer } => {
                    self.timers.remove(timer);
                }
                CoordinatorEffect::FailJob { reason } => self.job_failed = Some(reason.clone()),
                _ => {}
            }
            self.out.push(Emitted {
                at,
                via,
                effect: Effect::Coordinator(effect),
            });
        }
    }

    fn snapshot(&self) -> MachineState {
        let c = &self.coordinator;
        let pending = c
            .pending_checkpoints()
            .into_iter()
            .map(|p| PendingSnapshot {
                waiting_for: c
                    .pending_checkpoint(p.id)
                    .map(|pc| pc.not_yet_acknowledged().map(|s| task_name(*s)).collect())
                    .unwrap_or_default(),
                waiting_for_coordinators: c
                    .pending_checkpoint(p.id)
                    .map(|pc| pc.coordinators_not_yet_acknowledged().cloned().collect())
                    .unwrap_or_default(),
                id: p.id,
                props: p.props,
                trigger_timestamp: p.trigger_timestamp,
                acknowledged: p.acknowledged,
                total: p.total,
            })
            .collect();
        let mut timers: Vec<ScheduledTimer> = self
            .timers
            .iter()
            .map(|(timer, at)| ScheduledTimer {
                at: *at,
                timer: *timer,
            })
            .collect();
        timers.sort_by_key(|t| (t.at, t.timer));
        MachineState::Coordinator(CoordinatorSnapshot {
            pending,
            queued: c.queued_requests().to_vec(),
            triggering: c.triggering_checkpoint(),
            is_triggering: c.is_triggering(),
            failing_calls: c
                .failing_calls()
                .map(|(call, io_exception, times)| FailingCallView {
                    call,
                    exception: if io_exception {
                        "IOException"
                    } else {
                        "Exception"
                    },
                    times,
                })
                .collect(),
            stop_scheduler_during: c
                .stops_scheduler_in_next_id_counter_call()
                .then_some(CoordinatorCall::CheckpointIdCounter),
            failure_counter: c.failure_counter(),
            tolerable_failed_checkpoints: c.failure_manager().tolerable_failed_checkpoints(),
            latest_completed: c.latest_completed_id(),
            retained: c
                .completed_store()
                .all_checkpoints()
                .map(|cp| cp.id)
                .collect(),
            next_checkpoint_id: c.next_checkpoint_id(),
            periodic_scheduling: c.is_periodic_scheduling(),
            timers,
            job_failed: self.job_failed.clone(),
            stats: StatsView {
                counts: c.stats().counts,
                history: c
                    .stats()
                    .history()
                    .map(|h| StatsEntry {
                        id: h.id,
                        status: h.status,
                        num_acknowledged_subtasks: h.num_acknowledged(),
                        failure_message: h.failure_message.clone(),
                    })
                    .collect(),
            },
        })
    }
}
