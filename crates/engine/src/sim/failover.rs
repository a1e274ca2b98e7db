//! Failures, restarts and restores: a full restart of the job (Flink's `RestartAllFailoverStrategy`)
//! after the configured `RestartBackoffTimeStrategy`, restoring every task from the latest
//! completed checkpoint (`CheckpointCoordinator.restoreLatestCheckpointedStateToAll`) or from a
//! chosen retained checkpoint or savepoint.

use std::collections::{BTreeMap, VecDeque};

use rand_core::RngCore;

use super::{build, Event, EventQueue, JobStatus, Simulation};
use crate::coordinator::CoordinatorInput;
use crate::network::{NetBuffer, Record};
use crate::scenario::RestartStrategy;
use crate::task::{Operator, RestoreWork, TaskStateSnapshot};
use crate::trace::TraceKind;
use crate::types::{CheckpointId, Micros, SubtaskId};

/// The restart strategy's memory across failures.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct RestartState {
    /// Restarts so far.
    pub attempts: u32,
    /// Exponential delay: the backoff of the last restart.
    pub backoff: Micros,
    /// Times of failures (failure-rate strategy).
    pub failures: VecDeque<Micros>,
    pub last_failure: Option<Micros>,
}

fn records_bytes(records: &[Record]) -> u32 {
    records.iter().map(|r| r.bytes).sum()
}

impl Simulation {
    /// A task failed (an injected kill): the whole job fails over.
    pub(crate) fn fail_task(&mut self, task: SubtaskId, cause: String) {
        self.fail_job(cause, Some(task));
    }

    /// The job fails (a task failure, or the failure manager past its tolerance): pending
    /// checkpoints abort, every task is cancelled, and the restart strategy decides what next.
    pub(crate) fn fail_job(&mut self, reason: String, task: Option<SubtaskId>) {
        if self.status != JobStatus::Running {
            return;
        }
        self.trace.record(
            self.now,
            task,
            TraceKind::JobFailed {
                reason: reason.clone(),
            },
        );
        self.coordinator_input(CoordinatorInput::TaskFailure { subtask: task });
        self.coordinator_input(CoordinatorInput::SuspendScheduler);
        self.cancel_everything();
        match self.restart_delay() {
            Some(delay) => {
                self.status = JobStatus::Restarting;
                self.queue.push(self.now + delay, Event::Restart);
                self.trace
                    .record(self.now, None, TraceKind::RestartScheduled { delay });
            }
            None => {
                self.status = JobStatus::Failed;
                self.coordinator_input(CoordinatorInput::Shutdown);
            }
        }
    }

    /// Flink's job cancellation (`PATCH /jobs/:jobid?mode=cancel`): pending checkpoints abort,
    /// every task is cancelled, nothing restarts, and the job ends CANCELED. What happens to its
    /// checkpoints is up to checkpoint storage (`externalized-checkpoint-retention`).
    pub fn cancel(&mut self) {
        if !self.status.is_live() {
            return;
        }
        self.coordinator_input(CoordinatorInput::SuspendScheduler);
        self.cancel_everything();
        // Unlike a failover, no scripted fault fires into a cancelled job.
        self.queue = EventQueue::default();
        self.status = JobStatus::Canceled;
        self.coordinator_input(CoordinatorInput::Shutdown);
    }

    /// Cancels all tasks: their timers, mails, in-flight RPCs and network data are gone. Faults
    /// still due stay scheduled.
    fn cancel_everything(&mut self) {
        self.queue = EventQueue::default();
        self.coordinator_timers.clear();
        self.alignment_timers.clear();
        self.acked_state.clear();
        for (i, f) in self.faults.iter().enumerate() {
            if !self.fired[i] {
                if let Some(at) = f.time() {
                    self.queue
                        .push(at.max(self.now), Event::Fault { index: i as u32 });
                }
            }
        }
    }

    /// `RestartBackoffTimeStrategy`: the delay before the next attempt, or `None` to give up.
    fn restart_delay(&mut self) -> Option<Micros> {
        let now = self.now;
        let state = &mut self.restart;
        let since_last = state.last_failure.map(|t| now - t);
        state.last_failure = Some(now);
        match self.graph.config.restart_strategy {
            RestartStrategy::NoRestart => None,
            RestartStrategy::FixedDelay { attempts, delay } => {
                if state.attempts >= attempts {
                    return None;
                }
                state.attempts += 1;
                Some(delay)
            }
            RestartStrategy::FailureRate {
                max_failures_per_interval,
                interval,
                delay,
            } => {
                state.failures.push_back(now);
                while state
                    .failures
                    .front()
                    .is_some_and(|t| now.saturating_sub(*t) > interval)
                {
                    state.failures.pop_front();
                }
                if state.failures.len() as u32 > max_failures_per_interval {
                    return None;
                }
                state.attempts += 1;
                Some(delay)
            }
            RestartStrategy::ExponentialDelay {
                initial_backoff,
                max_backoff,
                backoff_multiplier_milli,
                jitter_factor_milli,
                reset_backoff_threshold,
                ..
            } => {
                let reset = since_last.is_none_or(|d| d >= reset_backoff_threshold);
                state.backoff = if reset || state.backoff == 0 {
                    initial_backoff
                } else {
                    ((u128::from(state.backoff) * u128::from(backoff_multiplier_milli) / 1000)
                        as Micros)
                        .min(max_backoff)
                };
                state.attempts += 1;
                // Jitter from the seeded RNG: uniform in backoff ± jitter-factor × backoff.
                let range = state.backoff * jitter_factor_milli / 1000;
                let jitter = if range == 0 {
                    0
                } else {
                    self.rng.next_u64() % (2 * range + 1)
                };
                Some((state.backoff + jitter).saturating_sub(range))
            }
        }
    }

    /// The restart: redeploy and restore from the latest completed checkpoint, or the checkpoint
    /// or savepoint restored since (if any).
    pub(crate) fn restart(&mut self) {
        let deploy = self.params.task_redeploy_time;
        if let Err(message) = self.redeploy(self.latest_restorable, deploy) {
            self.trace.record(
                self.now,
                None,
                TraceKind::JobFailed {
                    reason: format!("restore failed: {message}"),
                },
            );
            self.status = JobStatus::Failed;
        }
    }

    /// Stops the job now and restores it from retained checkpoint or savepoint `id`.
    pub fn restore_from(&mut self, id: CheckpointId) -> Result<(), String> {
        if !self.completed_state.contains_key(&id) {
            let known: Vec<String> = self.completed_state.keys().map(|k| k.to_string()).collect();
            return Err(format!(
                "checkpoint {id} is not retained; retained: {}",
                if known.is_empty() {
                    "none".into()
                } else {
                    known.join(", ")
                }
            ));
        }
        self.coordinator_input(CoordinatorInput::SuspendScheduler);
        self.cancel_everything();
        // A job submitted anew from the checkpoint (`flink run -s`): deployed like a new job.
        self.redeploy(Some(id), self.params.task_deploy_time)?;
        // Like Flink's `restoreSavepoint`, which adds the savepoint to the checkpoint store: a
        // failover before the next checkpoint comes back here, not to an older checkpoint.
        self.latest_restorable = Some(id);
        Ok(())
    }

    /// Changes operators' parallelism and restores from the latest completed checkpoint: key
    /// groups are redistributed over the new subtasks. A forward chain changes together.
    pub fn rescale(&mut self, changes: &[(&str, u32)]) -> Result<(), String> {
        let mut scenario = self.scenario.clone();
        for (operator, parallelism) in changes {
            let op = scenario
                .operator_index(operator)
                .ok_or_else(|| format!("no operator named '{operator}'"))?;
            scenario.operators[op].parallelism = Some(*parallelism);
        }
        let graph = scenario.job_graph()?;
        if !self.over_budget_consented {
            if let Some(why) = crate::scenario::estimate(&scenario, &graph).over_budget() {
                return Err(format!("rescaled, {why}"));
            }
        }
        let latest = self.latest_restorable;
        let (old_scenario, old_graph) = (self.scenario.clone(), self.graph.clone());
        self.scenario = scenario;
        self.graph = graph;
        self.coordinator_input(CoordinatorInput::SuspendScheduler);
        self.cancel_everything();
        let deploy = self.params.task_deploy_time;
        let result = self.redeploy(latest, deploy);
        if result.is_err() {
            self.scenario = old_scenario;
            self.graph = old_graph;
            self.redeploy(latest, deploy)?;
        }
        result
    }

    /// Deploys the job anew (taking `deploy`) and restores checkpoint `from` into it.
    fn redeploy(&mut self, from: Option<CheckpointId>, deploy: Micros) -> Result<(), String> {
        let mut d = build::deploy(&self.scenario, &self.graph)?;
        for t in &mut d.tasks {
            let v = &self.graph.vertices[t.id.vertex as usize];
            for (pos, op) in v.operators.iter().enumerate() {
                if let Some(cost) = self.cost_overrides.get(op) {
                    t.costs[pos] = *cost + t.operators[pos].state_access_micros();
                }
            }
        }
        let mut restore_time = 0;
        if let Some(id) = from {
            let state = self.completed_state.get(&id).cloned().unwrap_or_default();
            let claimed = self.unclaimed_restore != Some(id);
            restore_time = self.restore_state(&mut d, &state, claimed)?;
        }
        let n = d.tasks.len();
        self.tasks = d.tasks;
        self.net = d.net;
        self.channel_state = super::channel_state_writers(&self.graph, &d.taskmanager);
        self.taskmanager = d.taskmanager;
        self.size_taskmanagers();
        self.wake_at = vec![None; n];
        self.initializing = vec![false; n];
        self.timer_at = vec![None; n];
        self.status = JobStatus::Running;
        if let Some(id) = from {
            self.trace
                .record(self.now, None, TraceKind::Restored { id });
            self.coordinator_input(CoordinatorInput::Restored { id });
        }
        self.start(deploy.saturating_add(restore_time));
        Ok(())
    }

    /// Puts checkpointed state into freshly deployed tasks: keyed state by key group, source
    /// offsets, channel state ahead of new data; pre-committed transactions are committed (again).
    /// `claimed`: the job owns the checkpoint's RocksDB files (a failover, not a new job restored
    /// from it). Returns how long the slowest subtask takes to read its state back.
    fn restore_state(
        &mut self,
        d: &mut build::Deployment,
        state: &BTreeMap<u32, TaskStateSnapshot>,
        claimed: bool,
    ) -> Result<Micros, String> {
        let mut slowest = 0;
        let mut by_vertex: BTreeMap<u32, Vec<&TaskStateSnapshot>> = BTreeMap::new();
        for s in state.values() {
            by_vertex.entry(s.task.vertex).or_default().push(s);
        }
        // Every operator initializes from a restored checkpoint, with or without state of its own.
        for t in &mut d.tasks {
            for op in &mut t.operators {
                if let Operator::TwoPhaseCommitSink(sink) = op {
                    sink.restored();
                }
            }
        }
        // Transactions pre-committed in the checkpoint are committed now; committing twice is a
        // no-op in the external system. Open transactions of the failed attempt are aborted.
        for snaps in by_vertex.values() {
            for s in snaps {
                let v = &self.graph.vertices[s.task.vertex as usize];
                for (pos, cid, records) in &s.committables {
                    self.external
                        .commit(v.operators[*pos], s.task.subtask, *cid, records);
                }
            }
        }
        // FLIP-547 `recover-output-on-downstream`: an upstream's output channel state goes to
        // the consuming subtask, behind that subtask's own input channel state.
        let mut to_downstream: Vec<(u32, u32, Vec<Record>)> = Vec::new();
        for t in &mut d.tasks {
            let v = &self.graph.vertices[t.id.vertex as usize];
            let snaps = by_vertex
                .get(&t.id.vertex)
                .map(Vec::as_slice)
                .unwrap_or(&[]);
            if snaps.is_empty() {
                continue;
            }
            let mut work = RestoreWork::default();
            let same_parallelism = snaps.len() as u32 == v.parallelism;
            let own = snaps.iter().find(|s| s.task.subtask == t.id.subtask);
            let has_channel_state = snaps.iter().any(|s| {
                !s.output_channel_records.is_empty() || !s.input_channel_records.is_empty()
            });
            if !same_parallelism && has_channel_state {
                return Err(format!(
                    "'{}' has unaligned channel state at parallelism {}; it can only be restored at that parallelism",
                    v.name,
                    snaps.len()
                ));
            }
            for pos in 0..t.operators.len() {
                let range = crate::state::KeyGroupRange::for_operator_index(
                    v.max_parallelism,
                    v.parallelism,
                    t.id.subtask,
                );
                let keyed: Vec<_> = snaps
                    .iter()
                    .flat_map(|s| {
                        s.keyed
                            .iter()
                            .filter(|(p, _)| *p == pos)
                            .map(|(_, k)| k.clone())
                    })
                    .collect();
                match &mut t.operators[pos] {
                    Operator::Datagen(dg) => {
                        if !same_parallelism {
                            return Err(format!(
                                "source '{}' ran with parallelism {}; restoring it at {} is not modelled (one split per subtask)",
                                v.name,
                                snaps.len(),
                                v.parallelism
                            ));
                        }
                        let split = own
                            .and_then(|s| s.operator.iter().find(|(p, _)| *p == pos))
                            .map(|(_, o)| o);
                        dg.restore_offset(split, self.now);
                    }
                    op => {
                        if let Some(k) = op.keyed() {
                            if !keyed.is_empty() {
                                let native = own
                                    .filter(|_| same_parallelism)
                                    .and_then(|s| s.rocksdb.iter().find(|(p, _)| *p == pos))
                                    .map(|(_, cp)| cp);
                                k.restore(v.max_parallelism, range, &keyed, (native, claimed))?;
                                restore_reads(&mut work, k, native, range, &keyed);
                            }
                        }
                    }
                }
            }
            if let Some(s) = own {
                work.heap_bytes += s.operator.iter().map(|(_, o)| o.state_size).sum::<u64>();
                work.channel_bytes = s.output_channel_state + s.input_channel_state;
                for (o, sub, records) in &s.output_channel_records {
                    if let Some(route) = t.outputs.get(*o) {
                        let consumer = self
                            .params
                            .task
                            .recover_output_on_downstream
                            .then(|| {
                                d.net.channels.iter().find(|c| {
                                    c.partition == route.partition && c.subpartition == *sub
                                })
                            })
                            .flatten();
                        match consumer {
                            Some(c) => to_downstream.push((c.task, c.index, records.clone())),
                            None => {
                                let bytes = records_bytes(records);
                                d.net.partitions[route.partition as usize].restore_channel_state(
                                    *sub as usize,
                                    records.clone(),
                                    bytes,
                                );
                            }
                        }
                    }
                }
                for (channel, records) in &s.input_channel_records {
                    t.recovered_input.push_back((
                        *channel,
                        NetBuffer {
                            records: records.clone(),
                            bytes: records_bytes(records),
                            slice: true,
                        },
                    ));
                }
            }
            slowest = slowest.max(work.duration(&self.params.task));
        }
        for (task, channel, records) in to_downstream {
            let bytes = records_bytes(&records);
            d.tasks[task as usize].recovered_input.push_back((
                channel,
                NetBuffer {
                    records,
                    bytes,
                    slice: true,
                },
            ));
        }
        Ok(slowest)
    }
}

/// What restoring keyed state reads: a RocksDB subtask at its old parallelism downloads its
/// native checkpoint's files; otherwise (heap, rescaled, a canonical savepoint) the key groups of
/// `range` are read from the handles that hold them, and RocksDB ingests their entries.
fn restore_reads(
    work: &mut RestoreWork,
    k: &crate::task::Keyed,
    native: Option<&crate::state::RocksCheckpoint>,
    range: crate::state::KeyGroupRange,
    keyed: &[crate::state::KeyedStateSnapshot],
) {
    let rocksdb = k.rocksdb.is_some();
    match native.filter(|cp| rocksdb && !cp.files.is_empty()) {
        Some(cp) => work
            .rocksdb_files
            .extend(crate::state::RocksDbInstance::download_sizes(cp)),
        None => {
            // A handle's share of the range: its key groups inside `range`.
            let read: u64 = keyed
                .iter()
                .map(|s| {
                    let own = u64::from(s.key_group_range.len().max(1));
                    let overlap = u64::from(s.key_group_range.intersection(&range).len());
                    s.state_size * overlap / own
                })
                .sum();
            work.heap_bytes += read;
            let entries = k.backend.counters().entries;
            if rocksdb {
                work.rocksdb_ingested += entries;
            } else {
                work.heap_entries += entries;
            }
        }
    }
}
