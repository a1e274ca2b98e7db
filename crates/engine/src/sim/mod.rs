//! The event loop (after dslab-core's queue and madsim's seeded runtime): it owns time and the
//! seeded RNG, delivers RPCs with their latency, fires timers, and runs tasks when they are due.
//! The whole `Simulation` is `Clone`, so a UI can keep snapshots and re-run from them.

mod build;
mod channel_state;
mod coordination;
pub mod divergence;
mod external;
mod failover;
mod faults;
mod queue;
mod remote;
mod report;
#[cfg(test)]
mod report_tests;
mod rest_job;
pub(crate) mod snapshot;
mod verify;

pub use coordination::UserRequest;
pub use external::{ExternalSink, ExternalSystem};
pub use queue::EventQueue;
pub use report::{CheckpointRow, RestReport, VertexPhases};
pub use rest_job::{
    backpressure_level, BackPressureLevelFields, JobDetailsInfo, JobStatusTimestamps,
    JobVertexBackPressureInfo, JobVertexDetailsInfo, SubtaskBackPressureInfo,
    VertexBackPressureLevel, VertexBackPressureStatus,
};
pub use snapshot::HandOverCost;
pub use verify::{InFlightRecord, SinkVerification, StateVerification, Verification};

use std::collections::{BTreeMap, BTreeSet};

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

use crate::channel_state::ChannelStateWriters;
use crate::coordinator::{
    CheckpointCoordinator, CheckpointCoordinatorConfiguration, CoordinatorInput, CoordinatorTimer,
};
use crate::network::BarrierLog;
use crate::network::Network;
use crate::scenario::{CheckpointingMode, JobGraph, Scenario};
use crate::task::{Mail, StreamTask, TaskCtx, TaskEffect, TaskParams, TaskStateSnapshot};
use crate::trace::Trace;
use crate::types::{CheckpointId, Micros};
use channel_state::channel_state_writers;

/// Salts the seed for the `ViewUpdater`'s phase, so it is not the job id's hash.
const VIEW_UPDATER_SALT: u64 = 0x5649_4557_5550_4454;

/// Flink's `JobStatus`, as far as the simulation reaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum JobStatus {
    Running,
    /// Failed over; the restart strategy's delay runs.
    Restarting,
    Finished,
    Failed,
    /// Cancelled by the user (terminal).
    Canceled,
}

impl JobStatus {
    /// Running, or failed over and about to restart: time still moves for the job.
    pub fn is_live(self) -> bool {
        matches!(self, JobStatus::Running | JobStatus::Restarting)
    }

    /// Flink's name for the status, as the Web UI shows it.
    pub fn flink_name(self) -> &'static str {
        match self {
            JobStatus::Running => "RUNNING",
            JobStatus::Restarting => "RESTARTING",
            JobStatus::Finished => "FINISHED",
            JobStatus::Failed => "FAILED",
            JobStatus::Canceled => "CANCELED",
        }
    }
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) enum Event {
    TaskWake {
        task: u32,
    },
    /// An RPC reaches a task's mailbox.
    MailArrive {
        task: u32,
        mail: Box<Mail>,
        urgent: bool,
    },
    /// An RPC reaches the JobManager's coordinator.
    ToCoordinator(Box<CoordinatorInput>),
    CoordinatorTimer {
        timer: CoordinatorTimer,
        generation: u64,
    },
    OutputFlush {
        task: u32,
    },
    AsyncDone {
        task: u32,
        id: CheckpointId,
    },
    /// The channel-state file of `group` for checkpoint `id` is closed.
    ChannelStateWritten {
        group: u32,
        id: CheckpointId,
    },
    AlignmentTimer {
        task: u32,
        id: CheckpointId,
    },
    ProcessingTimer {
        task: u32,
        at: Micros,
    },
    /// The next item on `channel`'s wire (`InputChannel::wire`) arrives.
    NetArrive {
        channel: u32,
        backlog: u32,
    },
    CreditArrive {
        channel: u32,
        credit: u32,
    },
    ResumeArrive {
        channel: u32,
    },
    /// A consumer's new buffer size (`NewBufferSize`) reaches the sender of `channel`.
    BufferSizeArrive {
        channel: u32,
        size: u32,
    },
    /// The task's next buffer size recalculation is due.
    DebloatTimer {
        task: u32,
    },
    /// A scripted fault (`Simulation::faults[index]`) is due.
    Fault {
        index: u32,
    },
    /// The restart strategy's delay is over.
    Restart,
    /// The tasks of deployment number `deployment` switched to RUNNING.
    TasksRunning {
        deployment: u32,
    },
    /// The first task of the job's first deployment switched to RUNNING, ahead of the others.
    FirstTaskRunning {
        deployment: u32,
    },
}

/// Latencies and timings the loop applies.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct SimParams {
    pub rpc_latency: Micros,
    /// From the job's start until the tasks are RUNNING.
    pub task_deploy_time: Micros,
    /// At the job's start: the first task is RUNNING this long before the last.
    pub task_running_spread: Micros,
    /// At the job's start: a source's rate limiter exists this long before its task is RUNNING.
    pub source_open_lead: Micros,
    /// After a failover: from the restart until the tasks start to restore their state.
    pub task_redeploy_time: Micros,
    /// Trigger timestamp → trigger mail at a source; async end → ack recorded (before jitter).
    pub trigger_latency: Micros,
    /// A TaskExecutor handles trigger RPCs one after another, this long each.
    pub trigger_dispatch: Micros,
    pub ack_latency: Micros,
    /// Upper bound of the uniform thread hand-off noise (0 = none).
    pub thread_jitter: Micros,
    pub network_throughput: u64,
    pub buffer_timeout: Option<Micros>,
    pub task: TaskParams,
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Simulation {
    #[serde(with = "crate::types::snapshot_forms::json_when_compact")]
    pub scenario: Scenario,
    pub graph: JobGraph,
    pub now: Micros,
    pub status: JobStatus,
    pub tasks: Vec<StreamTask>,
    pub net: Network,
    pub taskmanager: Vec<u32>,
    /// Each TaskManager's RocksDB/ForSt flush thread, which its subtasks' sync phases queue for.
    pub flush_threads: Vec<crate::state::FlushThread>,
    /// Each TaskManager's JVM warming up: its first checkpoint runs cold (`task/warm_up.rs`).
    pub warm_ups: Vec<crate::task::WarmUp>,
    /// The TaskManagers' shared channel-state files (unaligned checkpoints).
    pub channel_state: ChannelStateWriters,
    pub coordinator: CheckpointCoordinator,
    pub trace: Trace,
    /// What barriers found queued ahead of them ("why was checkpoint N slow?"); not traced.
    pub barrier_log: BarrierLog,
    /// Scratch for `network::credit`'s effects, kept to spare an allocation per send.
    net_effects: Vec<crate::network::NetEffect>,
    pub params: SimParams,
    /// State acknowledged for checkpoints still pending: (id, task) → snapshot.
    pub(crate) acked_state: BTreeMap<(CheckpointId, u32), TaskStateSnapshot>,
    /// State of completed checkpoints (and savepoints) still retained: id → per task.
    pub completed_state: BTreeMap<CheckpointId, BTreeMap<u32, TaskStateSnapshot>>,
    /// What the sinks wrote, outside the job.
    pub external: ExternalSystem,
    /// What a failover restores: the newest completed checkpoint, or a checkpoint or savepoint
    /// restored by request since.
    pub latest_restorable: Option<CheckpointId>,
    /// A retained checkpoint this job was submitted from (`flink run -s`): restored in
    /// `NO_CLAIM` mode, so the job never takes its RocksDB files over.
    pub unclaimed_restore: Option<CheckpointId>,
    /// The JobManager's `SharedStateRegistry`: the incremental RocksDB files the retained
    /// checkpoints refer to, discarded once none does.
    pub shared_state: crate::coordinator::SharedStateRegistry,
    /// Source positions (origin → next seq) of every completed checkpoint and savepoint.
    pub checkpoint_offsets: BTreeMap<CheckpointId, BTreeMap<u32, u64>>,
    /// Records each completed checkpoint holds as channel state (unaligned): before the cut at
    /// the sources, but not yet past the sinks. One entry per copy, with the operator it enters.
    pub checkpoint_in_flight: BTreeMap<CheckpointId, Vec<InFlightRecord>>,
    /// The scenario's faults, resolved, and which have fired.
    pub faults: Vec<crate::scenario::ResolvedFault>,
    fired: Vec<bool>,
    /// Operator costs changed by `slow` faults (scenario operator index → cost per record).
    cost_overrides: BTreeMap<usize, Micros>,
    pub restart: failover::RestartState,
    /// Deployments so far (the first and every restart); a stale `TasksRunning` is ignored.
    pub(crate) deployments: u32,
    /// When the tasks of the latest deployment switched to RUNNING, and of the first.
    pub tasks_running_at: Micros,
    pub first_tasks_running_at: Option<Micros>,
    queue: EventQueue<Event>,
    rng: ChaCha8Rng,
    /// The metric registry's `ViewUpdater` ticks this long after the job's submission plus
    /// multiples of 5 s (`TimerGauge`, task/timer_gauge.rs). Its thread starts with the cluster,
    /// not the job, so the phase is anything: drawn from the seed, apart from `rng` (it decides
    /// no event, only what the REST gauges read).
    view_updater_phase: Micros,
    wake_at: Vec<Option<Micros>>,
    /// Deployed but not RUNNING yet (at the job's start, the tasks with keyed state while the
    /// others already run): such a task neither wakes nor reads its input.
    initializing: Vec<bool>,
    timer_at: Vec<Option<Micros>>,
    alignment_timers: BTreeSet<(u32, CheckpointId)>,
    coordinator_timers: BTreeMap<CoordinatorTimer, u64>,
    /// Generations handed out to coordinator timers so far.
    timer_generations: u64,
    effects: Vec<TaskEffect>,
    /// Events processed so far.
    pub events: u64,
    /// Fold final sink records into their verdict (on; tests turn it off to compare).
    #[doc(hidden)]
    pub fold_records: bool,
    /// Built by [`Simulation::new_over_budget`]: the user consented to a job beyond the cost
    /// budget, so a rescale of it is not held to the budget either.
    pub over_budget_consented: bool,
}

pub fn coordinator_config(graph: &JobGraph) -> CheckpointCoordinatorConfiguration {
    let c = &graph.config;
    CheckpointCoordinatorConfiguration {
        interval: c.checkpoint_interval,
        timeout: c.checkpoint_timeout,
        min_pause: c.min_pause,
        max_concurrent: c.max_concurrent_checkpoints,
        tolerable_failed_checkpoints: c.tolerable_failed_checkpoints,
        num_retained: c.num_retained,
        exactly_once: c.checkpointing_mode == CheckpointingMode::ExactlyOnce,
        unaligned: c.unaligned_enabled,
        aligned_checkpoint_timeout: c.aligned_checkpoint_timeout,
        checkpoints_after_tasks_finish: c.checkpoints_after_tasks_finish,
        externalized_retention: c.externalized_checkpoint_retention,
    }
}

/// How to run a scenario over the budget on purpose, appended to the refusal.
pub const CONSENT_HINT: &str =
    "Simulate it anyway only on purpose: `--force` on the command line, \"Run anyway\" in the playground";

impl Simulation {
    /// Validates the scenario, checks its cost estimate against the budget
    /// ([`crate::scenario::cost`]) and deploys the job at time 0; nothing has run yet.
    pub fn new(scenario: Scenario) -> Result<Simulation, String> {
        let graph = scenario.job_graph()?;
        if let Some(why) = crate::scenario::estimate(&scenario, &graph).over_budget() {
            return Err(format!("{why}. {CONSENT_HINT}"));
        }
        Self::deploy(scenario, graph)
    }

    /// [`Simulation::new`] for a scenario over the budget, which the user chose to run anyway.
    pub fn new_over_budget(scenario: Scenario) -> Result<Simulation, String> {
        let graph = scenario.job_graph()?;
        let mut sim = Self::deploy(scenario, graph)?;
        sim.over_budget_consented = true;
        Ok(sim)
    }

    fn deploy(scenario: Scenario, graph: crate::scenario::JobGraph) -> Result<Simulation, String> {
        let deployment = build::deploy(&scenario, &graph)?;
        let faults = scenario
            .faults
            .iter()
            .map(|f| {
                f.resolve(
                    |name| scenario.operator_index(name),
                    |op| scenario.parallelism(op),
                )
            })
            .collect::<Result<Vec<_>, _>>()?;
        let c = &graph.config;
        let params = SimParams {
            rpc_latency: c.rpc_latency,
            task_deploy_time: c.task_deploy_time,
            task_running_spread: c.task_running_spread,
            source_open_lead: c.source_open_lead,
            task_redeploy_time: c.task_redeploy_time,
            trigger_latency: c.trigger_latency,
            trigger_dispatch: c.trigger_dispatch,
            ack_latency: c.ack_latency,
            thread_jitter: c.thread_jitter,
            network_throughput: c.network_throughput,
            buffer_timeout: (c.buffer_timeout_enabled && c.buffer_timeout > 0)
                .then_some(c.buffer_timeout),
            task: TaskParams {
                segment_size: c.segment_size as u32,
                debloat_period: c.debloat.map(|d| d.period),
                storage_write_latency: c.storage_write_latency,
                storage_write_throughput: c.storage_write_throughput,
                inline_threshold: c.data_inline_threshold,
                wait_for_final_checkpoint: c.checkpoints_after_tasks_finish
                    && c.checkpoint_interval.is_some(),
                shared_channel_state_files: c.unaligned_enabled,
                recover_output_on_downstream: c.recover_output_on_downstream,
                checkpoint_during_recovery: c.recover_output_on_downstream
                    && c.checkpointing_during_recovery
                    && c.unaligned_enabled,
                warm_up: c.warm_up,
            },
        };
        let job_id = format!(
            "{:032x}",
            u128::from(crate::task::mix64(scenario.seed)) << 64
                | u128::from(crate::task::mix64(!scenario.seed))
        );
        let coordinator = CheckpointCoordinator::new(coordinator_config(&graph), &job_id)
            .with_directories(c.checkpoint_dir.as_deref(), c.savepoint_dir.as_deref())
            .with_stats_history(c.web_checkpoints_history as usize);
        let n = deployment.tasks.len();
        let channel_state = channel_state_writers(&graph, &deployment.taskmanager);
        let mut sim = Simulation {
            rng: ChaCha8Rng::seed_from_u64(scenario.seed),
            view_updater_phase: crate::task::mix64(scenario.seed ^ VIEW_UPDATER_SALT)
                % crate::task::UPDATE_INTERVAL,
            scenario,
            graph,
            now: 0,
            status: JobStatus::Running,
            tasks: deployment.tasks,
            net: deployment.net,
            channel_state,
            taskmanager: deployment.taskmanager,
            flush_threads: Vec::new(),
            warm_ups: Vec::new(),
            coordinator,
            trace: Trace::default(),
            barrier_log: BarrierLog::default(),
            net_effects: Vec::new(),
            params,
            acked_state: BTreeMap::new(),
            completed_state: BTreeMap::new(),
            external: ExternalSystem::default(),
            latest_restorable: None,
            unclaimed_restore: None,
            shared_state: Default::default(),
            checkpoint_offsets: BTreeMap::new(),
            checkpoint_in_flight: BTreeMap::new(),
            fired: vec![false; faults.len()],
            faults,
            cost_overrides: BTreeMap::new(),
            restart: Default::default(),
            deployments: 0,
            tasks_running_at: 0,
            first_tasks_running_at: None,
            queue: EventQueue::default(),
            wake_at: vec![None; n],
            initializing: vec![false; n],
            timer_at: vec![None; n],
            alignment_timers: BTreeSet::new(),
            coordinator_timers: BTreeMap::new(),
            timer_generations: 0,
            effects: Vec::new(),
            events: 0,
            fold_records: true,
            over_budget_consented: false,
        };
        sim.size_taskmanagers();
        for (i, f) in sim.faults.iter().enumerate() {
            if let Some(at) = f.time() {
                sim.queue.push(at, Event::Fault { index: i as u32 });
            }
        }
        sim.check_edge_faults()?;
        sim.start(sim.params.task_deploy_time);
        Ok(sim)
    }

    /// Job (re)start: the job is RUNNING, so Flink 2.3's `ExecutionTrackingCheckpointCoordinator
    /// DeActivator` starts the periodic scheduler (the first start draws the random initial
    /// delay). With a deployment time the tasks are not RUNNING yet: the first task switching to
    /// SCHEDULED stops the scheduler again, and it restarts once every task is RUNNING, then with
    /// `min-pause` as its delay (`startCheckpointScheduler` sets `triggerDelay` to it after the
    /// first start), so the first checkpoint follows the deployment at once. Before that, the
    /// first task to switch to RUNNING makes the ExecutionGraph start the scheduler too
    /// (`DefaultExecutionGraph.updateStateInternal`, when it is not started): that trigger comes
    /// after `min-pause` and fails with NOT_ALL_REQUIRED_TASKS_RUNNING, as the other tasks are
    /// still INITIALIZING (`task-running-spread`; every real run counts this one failure).
    ///
    /// After a failover the restore (`SchedulerBase.restoreState`) restarts the scheduler itself,
    /// with `min-pause`, while the new tasks still deploy: that trigger fails with
    /// NOT_ALL_REQUIRED_TASKS_RUNNING and the next one comes an interval later. The deactivator
    /// keeps the failed attempts as pending executions, so it never starts the scheduler again.
    ///
    /// `deploy`: until the tasks are RUNNING, with the time the restored tasks stay
    /// INITIALIZING, reading their state back (the job's tasks switch to RUNNING together once
    /// the slowest is done).
    fn start(&mut self, deploy: Micros) {
        self.deployments += 1;
        if deploy == 0 {
            self.tasks_running();
        } else {
            self.coordinator_input(CoordinatorInput::SetPlan {
                sources: Vec::new(),
                all: Vec::new(),
            });
            let deployment = self.deployments;
            self.queue.push(
                self.now.saturating_add(deploy),
                Event::TasksRunning { deployment },
            );
            let spread = self.params.task_running_spread.min(deploy);
            if deployment == 1 && spread > 0 && self.tasks.len() > 1 {
                self.queue.push(
                    self.now.saturating_add(deploy - spread),
                    Event::FirstTaskRunning { deployment },
                );
            }
        }
        self.start_checkpoint_scheduler();
        if self.deployments == 1
            && deploy > 0
            && self
                .coordinator
                .config()
                .is_periodic_checkpointing_configured()
        {
            self.coordinator_input(CoordinatorInput::SuspendScheduler);
        }
    }

    fn start_checkpoint_scheduler(&mut self) {
        if self
            .coordinator
            .config()
            .is_periodic_checkpointing_configured()
        {
            let random = self.rng.next_u64();
            self.coordinator_input(CoordinatorInput::StartScheduler { random });
        }
    }

    /// Time of the next event, if any.
    pub fn next_event_time(&self) -> Option<Micros> {
        self.queue.peek_time()
    }

    /// Processes every event up to and including `until`, then sets the clock to `until`.
    pub fn run_until(&mut self, until: Micros) {
        while self.status.is_live() {
            let Some((time, event)) = self.queue.pop_due(until) else {
                break;
            };
            self.now = self.now.max(time);
            self.events += 1;
            self.dispatch(event);
        }
        if until > self.now {
            self.now = until;
        }
        for t in &mut self.tasks {
            t.time.advance(self.now);
        }
    }

    /// Processes the next event. Returns false when there is none.
    pub fn step(&mut self) -> bool {
        let Some((time, event)) = self.queue.pop() else {
            return false;
        };
        self.now = self.now.max(time);
        self.events += 1;
        self.dispatch(event);
        true
    }

    fn dispatch(&mut self, event: Event) {
        match event {
            Event::TaskWake { task } => {
                if self.wake_at[task as usize] == Some(self.now) {
                    self.wake_at[task as usize] = None;
                    if !self.initializing[task as usize] {
                        self.with_task(task, |t, ctx| t.step(ctx));
                    }
                }
            }
            Event::MailArrive { task, mail, urgent } => {
                if let Mail::TriggerCheckpoint { barrier } = &*mail {
                    if self.tasks[task as usize].status == crate::task::TaskStatus::Finished {
                        self.trigger_for_unknown_task(barrier.id);
                        return;
                    }
                }
                self.with_task(task, |t, ctx| t.put_mail(*mail, urgent, ctx));
                self.schedule_wake(task, self.now);
            }
            Event::ToCoordinator(input) => self.coordinator_input(*input),
            Event::CoordinatorTimer { timer, generation } => {
                if self.coordinator_timers.get(&timer) == Some(&generation) {
                    self.coordinator_timers.remove(&timer);
                    let input = match timer {
                        CoordinatorTimer::Periodic => CoordinatorInput::PeriodicTimerFired,
                        CoordinatorTimer::Expiry(id) => CoordinatorInput::ExpiryTimerFired { id },
                    };
                    self.coordinator_input(input);
                }
            }
            Event::OutputFlush { task } => {
                if self.tasks[task as usize].status == crate::task::TaskStatus::Running {
                    self.with_task(task, |t, ctx| t.flush_outputs(ctx));
                    if let Some(timeout) = self.params.buffer_timeout {
                        self.queue
                            .push(self.now + timeout, Event::OutputFlush { task });
                    }
                }
            }
            Event::AsyncDone { task, id } => self.with_task(task, |t, ctx| t.async_done(id, ctx)),
            Event::ChannelStateWritten { group, id } => {
                for task in self.channel_state.group_members(group).to_vec() {
                    if self.tasks[task as usize].status == crate::task::TaskStatus::Running {
                        self.with_task(task, |t, ctx| t.channel_state_written(id, ctx));
                    }
                }
            }
            Event::AlignmentTimer { task, id } => {
                if self.alignment_timers.remove(&(task, id)) {
                    self.with_task(task, |t, ctx| {
                        t.put_mail(Mail::AlignmentTimeout { id }, true, ctx)
                    });
                    self.schedule_wake(task, self.now);
                }
            }
            Event::ProcessingTimer { task, at } => {
                if self.timer_at[task as usize] == Some(at) {
                    self.timer_at[task as usize] = None;
                    self.with_task(task, |t, ctx| {
                        t.put_mail(Mail::ProcessingTimeTimers, false, ctx)
                    });
                    self.schedule_wake(task, self.now);
                }
            }
            Event::NetArrive { channel, backlog } => self.net_arrive(channel, backlog),
            Event::CreditArrive { channel, credit } => self.credit_arrive(channel, credit),
            Event::ResumeArrive { channel } => self.resume_arrive(channel),
            Event::BufferSizeArrive { channel, size } => self.net.set_buffer_size(channel, size),
            Event::DebloatTimer { task } => {
                if self.tasks[task as usize].status == crate::task::TaskStatus::Running {
                    self.with_task(task, |t, ctx| t.put_mail(Mail::BufferDebloat, false, ctx));
                    self.schedule_wake(task, self.now);
                }
            }
            Event::Fault { index } => self.fire_fault(index as usize),
            Event::Restart => self.restart(),
            Event::FirstTaskRunning { deployment } => {
                if deployment == self.deployments && self.status == JobStatus::Running {
                    self.first_tasks_running();
                    if !self.coordinator.is_periodic_scheduling() {
                        // Not the first start: its delay is min-pause, no random draw.
                        self.coordinator_input(CoordinatorInput::StartScheduler { random: 0 });
                    }
                }
            }
            Event::TasksRunning { deployment } => {
                if deployment == self.deployments && self.status == JobStatus::Running {
                    self.tasks_running();
                    if self.params.task_deploy_time > 0 && self.deployments == 1 {
                        self.start_checkpoint_scheduler();
                    }
                }
            }
        }
    }

    /// Runs `f` on task `task` with a context over the network and trace, then applies the
    /// effects it reported.
    fn with_task(&mut self, task: u32, f: impl FnOnce(&mut StreamTask, &mut TaskCtx)) {
        let mut effects = std::mem::take(&mut self.effects);
        let tm = self.taskmanager[task as usize] as usize;
        {
            let mut ctx = TaskCtx {
                flush_thread: &mut self.flush_threads[tm],
                warm_up: &mut self.warm_ups[tm],
                now: self.now,
                net: &mut self.net,
                trace: &mut self.trace,
                effects: &mut effects,
                params: &self.params.task,
                barrier_log: &mut self.barrier_log,
            };
            f(&mut self.tasks[task as usize], &mut ctx);
        }
        for effect in effects.drain(..) {
            self.apply_task_effect(effect);
        }
        self.effects = effects;
    }

    /// One flush thread and one JVM per TaskManager the deployment uses (a redeploy keeps those
    /// there are: the TaskManager processes outlive the tasks).
    pub(crate) fn size_taskmanagers(&mut self) {
        let n = self.taskmanager.iter().max().map_or(0, |&m| m as usize + 1);
        if self.flush_threads.len() < n {
            self.flush_threads.resize(n, Default::default());
        }
        if self.warm_ups.len() < n {
            self.warm_ups.resize(n, Default::default());
        }
    }

    /// The checkpoint paths checkpoint `id` ran first on a TaskManager JVM (`task/warm_up.rs`),
    /// and the most a chain of them cost it (the TaskManagers warm up side by side); `None` when
    /// it warmed nothing that costs anything.
    pub fn warmed_up_by(&self, id: CheckpointId) -> Option<(Vec<&'static str>, Micros)> {
        let costs = &self.params.task.warm_up;
        let mut labels = Vec::new();
        let mut most = 0;
        for w in &self.warm_ups {
            let paths: Vec<_> = w.warmed_by(id).filter(|p| p.cost(costs) > 0).collect();
            most = most.max(paths.iter().map(|p| p.cost(costs)).sum());
            for p in paths {
                if !labels.contains(&p.label()) {
                    labels.push(p.label());
                }
            }
        }
        (most > 0).then_some((labels, most))
    }

    /// Uniform thread hand-off noise in `0..=thread_jitter`, from the seeded RNG.
    pub(crate) fn jitter(&mut self) -> Micros {
        match self.params.thread_jitter {
            0 => 0,
            j => self.rng.next_u64() % (j + 1),
        }
    }

    /// New input (a buffer, or a buffer back in a backpressured producer's pool) for `task`. A
    /// task that waits with nothing scheduled sleeps on its mailbox: the producer's thread
    /// completes the availability future, whose resume mail wakes the task's thread, a thread
    /// hand-off like the trigger's. A task that is busy or already woken finds the input itself.
    pub(crate) fn wake_for_input(&mut self, task: u32) {
        if self.initializing[task as usize] {
            // Its input waits in the channels until it is RUNNING (`tasks_running` wakes it).
            return;
        }
        let t = &self.tasks[task as usize];
        let sleeping = !t.is_source()
            && t.busy_until <= self.now
            && self.wake_at[task as usize].is_none_or(|w| w < self.now);
        let at = if sleeping {
            self.now.saturating_add(self.jitter())
        } else {
            self.now
        };
        self.schedule_wake(task, at);
    }

    pub(crate) fn schedule_wake(&mut self, task: u32, at: Micros) {
        let at = at.max(self.now);
        match self.wake_at[task as usize] {
            Some(t) if t <= at && t >= self.now => {}
            // Already woken for the end of its work: an earlier wake would only find the task
            // busy and wait for that one, so it is left out.
            Some(t) if t > at && t == self.tasks[task as usize].busy_until => {}
            _ => {
                self.wake_at[task as usize] = Some(at);
                self.queue.push(at, Event::TaskWake { task });
            }
        }
    }

    fn apply_task_effect(&mut self, effect: TaskEffect) {
        let now = self.now;
        match effect {
            TaskEffect::Wake { task, at } => self.schedule_wake(task, at),
            TaskEffect::Poke { task } => self.wake_for_input(task),
            TaskEffect::RecoveredInputConsumed { task } => {
                let tasks = vec![self.tasks[task as usize].id];
                self.coordinator_input(CoordinatorInput::TasksRunning { tasks });
            }
            TaskEffect::SendOnChannel { channel } => self.try_send(channel),
            TaskEffect::AnnounceBufferSize { channel, size } => {
                let latency = self.net.channels[channel as usize].latency;
                self.queue
                    .push(now + latency, Event::BufferSizeArrive { channel, size });
            }
            TaskEffect::DebloatAt { task, at } => self.queue.push(at, Event::DebloatTimer { task }),
            TaskEffect::Resume { channel } => {
                let latency = self.net.channels[channel as usize].latency;
                self.queue
                    .push(now + latency, Event::ResumeArrive { channel });
            }
            TaskEffect::Recycled { channel } => self.remote_recycled(channel),
            TaskEffect::AsyncDone { task, id, at } => {
                // The async part runs on a pool thread: it starts after a hand-off.
                let at = at.saturating_add(self.jitter());
                self.queue.push(at, Event::AsyncDone { task, id })
            }
            TaskEffect::ChannelStateStarted { task, id } => {
                let tasks = &self.tasks;
                let live = |t: u32| tasks[t as usize].status == crate::task::TaskStatus::Running;
                self.channel_state.start(task, id, self.now, &live);
            }
            TaskEffect::ChannelStateComplete { task, id, bytes } => {
                let tasks = &self.tasks;
                let live = |t: u32| tasks[t as usize].status == crate::task::TaskStatus::Running;
                if let Some(done) = self
                    .channel_state
                    .complete(task, id, bytes, self.now, &live)
                {
                    self.close_channel_state_file(done);
                }
            }
            TaskEffect::AlignmentTimer { task, id, at } => {
                if self.alignment_timers.insert((task, id)) {
                    self.queue.push(at, Event::AlignmentTimer { task, id });
                }
            }
            TaskEffect::TimerAt { task, at } => {
                let at = at.max(now);
                match self.timer_at[task as usize] {
                    Some(t) if t <= at => {}
                    _ => {
                        self.timer_at[task as usize] = Some(at);
                        self.queue.push(at, Event::ProcessingTimer { task, at });
                    }
                }
            }
            TaskEffect::Ack {
                task,
                id,
                metrics,
                snapshot,
            } => {
                let subtask = self.tasks[task as usize].id;
                if let Some(reason) = self.injected_decline(subtask, id) {
                    self.apply_task_effect(TaskEffect::Decline { task, id, reason });
                    return;
                }
                self.barrier_log.acknowledged(
                    id,
                    task,
                    snapshot.input_channel_state,
                    snapshot.output_channel_state,
                );
                self.acked_state.insert((id, task), *snapshot);
                let input = CoordinatorInput::Acknowledge {
                    job: None,
                    id,
                    subtask,
                    metrics,
                    handle_key: (id << 32) | u64::from(task),
                };
                let latency = self
                    .params
                    .ack_latency
                    .saturating_add(self.jitter())
                    .saturating_add(self.injected_ack_delay(subtask));
                self.queue.push(
                    now.saturating_add(latency),
                    Event::ToCoordinator(Box::new(input)),
                );
            }
            TaskEffect::Decline { task, id, reason } => {
                let input = CoordinatorInput::Decline {
                    job: None,
                    id,
                    subtask: self.tasks[task as usize].id,
                    reason,
                };
                self.queue.push(
                    now + self.params.rpc_latency,
                    Event::ToCoordinator(Box::new(input)),
                );
            }
            TaskEffect::Finished { task } => {
                self.release_channel_state(task);
                let input = CoordinatorInput::TasksFinished {
                    tasks: vec![self.tasks[task as usize].id],
                };
                self.queue.push(
                    now + self.params.rpc_latency,
                    Event::ToCoordinator(Box::new(input)),
                );
                self.check_all_finished();
            }
            TaskEffect::Commit {
                task,
                operator,
                transaction,
                records,
            } => {
                let (op, subtask) = self.scenario_operator(task, operator);
                self.external.commit(op, subtask, transaction, &records);
            }
            TaskEffect::Write {
                task,
                operator,
                records,
            } => {
                let (op, _) = self.scenario_operator(task, operator);
                self.external.write(op, &records);
            }
        }
    }

    /// The scenario operator index of chain position `pos` in task `task`, and its subtask index.
    pub fn scenario_operator(&self, task: u32, pos: usize) -> (usize, u32) {
        let id = self.tasks[task as usize].id;
        (
            self.graph.vertices[id.vertex as usize].operators[pos],
            id.subtask,
        )
    }

    /// The job is FINISHED once every task is.
    fn check_all_finished(&mut self) {
        if self
            .tasks
            .iter()
            .all(|t| t.status == crate::task::TaskStatus::Finished)
        {
            self.status = JobStatus::Finished;
            self.coordinator_input(CoordinatorInput::Shutdown);
        }
    }

    /// The run's trace fingerprint so far.
    pub fn fingerprint(&self) -> String {
        self.trace.fingerprint()
    }

    /// The subtasks of the vertex with id `vertex`.
    pub fn vertex_tasks(&self, vertex: u32) -> impl Iterator<Item = &StreamTask> {
        self.tasks.iter().filter(move |t| t.id.vertex == vertex)
    }
}
