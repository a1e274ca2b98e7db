//! Deploying a job: subtasks into slots, result partitions and input channels between them
//! (`ExecutionGraph` + `ShuffleEnvironment` in Flink), operators with their initial state.

use crate::barrier::{AnyBarrierHandler, CheckpointBarrierTracker, SingleCheckpointBarrierHandler};
use crate::network::{
    ChannelKind, ChannelRoute, InputChannel, InputGate, Network, ResultPartition,
};
use crate::scenario::{CheckpointingMode, JobGraph, Partitioner, Scenario};
use crate::task::{pointwise_targets, Operator, OutputRoute, StreamTask};
use crate::types::{Micros, SubtaskId};
use rand_core::RngCore;

/// The deployed job: one task per subtask, the network between them.
pub struct Deployment {
    pub tasks: Vec<StreamTask>,
    pub net: Network,
    /// TaskManager of each task (slot sharing: subtask i of every vertex shares slot i).
    pub taskmanager: Vec<u32>,
}

/// Which consumers producer `i` of an edge feeds.
fn targets(partitioner: Partitioner, i: u32, up: u32, down: u32) -> Vec<u32> {
    match partitioner {
        Partitioner::Forward | Partitioner::Rescale => pointwise_targets(i, up, down),
        Partitioner::Hash | Partitioner::Rebalance | Partitioner::Broadcast => (0..down).collect(),
    }
}

pub fn deploy(scenario: &Scenario, graph: &JobGraph) -> Result<Deployment, String> {
    let config = &graph.config;
    // Task index of (vertex, subtask).
    let mut first_task = Vec::with_capacity(graph.vertices.len());
    let mut count = 0u32;
    for v in &graph.vertices {
        first_task.push(count);
        count += v.parallelism;
    }
    let slots = graph.slots_per_taskmanager.max(1);
    let tms = graph.taskmanagers.max(1);
    let taskmanager_of = |subtask: u32| (subtask / slots).min(tms - 1);
    let mut taskmanager = Vec::with_capacity(count as usize);
    for v in &graph.vertices {
        for i in 0..v.parallelism {
            taskmanager.push(taskmanager_of(i));
        }
    }

    let mut net = Network::default();
    // Per task: its input channels in order (edge order, then producer order), and outputs.
    let mut inputs: Vec<Vec<u32>> = vec![Vec::new(); count as usize];
    let mut outputs: Vec<Vec<OutputRoute>> = vec![Vec::new(); count as usize];
    // (producer task, edge ordinal) -> consumer channel ids in subpartition order.
    for v in &graph.vertices {
        for (e_ord, edge) in v.outputs.iter().enumerate() {
            let w = &graph.vertices[edge.target_vertex as usize];
            let latency = edge.latency.unwrap_or(config.network_latency);
            // One gate per consumer subtask for this edge.
            let gate_base = net.gates.len() as u32;
            for _ in 0..w.parallelism {
                net.gates.push(InputGate::default());
            }
            // Channels are created consumer-major so each consumer's indices follow producer order.
            let mut channel_of = vec![vec![None; w.parallelism as usize]; v.parallelism as usize];
            for j in 0..w.parallelism {
                let consumer = first_task[w.id as usize] + j;
                for i in 0..v.parallelism {
                    if !targets(edge.partitioner, i, v.parallelism, w.parallelism).contains(&j) {
                        continue;
                    }
                    let producer = first_task[v.id as usize] + i;
                    let local = taskmanager[producer as usize] == taskmanager[consumer as usize];
                    let g = net.channels.len() as u32;
                    let index = inputs[consumer as usize].len() as u32;
                    net.channels.push(InputChannel::new(
                        if local {
                            ChannelKind::Local
                        } else {
                            ChannelKind::Remote
                        },
                        0, // partition and subpartition are filled in below
                        0,
                        consumer,
                        index,
                        gate_base + j,
                        if local { 0 } else { latency },
                    ));
                    inputs[consumer as usize].push(g);
                    net.gates[(gate_base + j) as usize].add_channel(g);
                    channel_of[i as usize][j as usize] = Some(g);
                }
            }
            for i in 0..v.parallelism {
                let producer = first_task[v.id as usize] + i;
                let consumers: Vec<u32> =
                    targets(edge.partitioner, i, v.parallelism, w.parallelism)
                        .into_iter()
                        .filter_map(|j| channel_of[i as usize][j as usize])
                        .collect();
                let pid = net.partitions.len() as u32;
                for (sub, &g) in consumers.iter().enumerate() {
                    net.channels[g as usize].partition = pid;
                    net.channels[g as usize].subpartition = sub as u32;
                }
                net.partitions.push(ResultPartition::new(
                    producer,
                    consumers,
                    config.segment_size as u32,
                ));
                outputs[producer as usize].push(OutputRoute {
                    partition: pid,
                    partitioner: edge.partitioner,
                    downstream_parallelism: w.parallelism,
                    downstream_max_parallelism: w.max_parallelism,
                    // Flink's rebalance starts at a random channel; a fixed per-subtask offset
                    // keeps runs reproducible and still spreads the first records.
                    next: i,
                });
                let _ = e_ord;
            }
        }
    }

    net.routes = net.channels.iter().map(ChannelRoute::of).collect();
    if let Some(debloat) = &config.debloat {
        net.enable_debloating(debloat);
    }
    net.ready = inputs
        .iter()
        .map(|i| crate::network::InputReady::new(i.len()))
        .collect();
    let exactly_once = config.checkpointing_mode == CheckpointingMode::ExactlyOnce;
    let mut tasks = Vec::with_capacity(count as usize);
    for v in &graph.vertices {
        for i in 0..v.parallelism {
            let index = first_task[v.id as usize] + i;
            let mut operators = Vec::with_capacity(v.operators.len());
            let mut costs = Vec::with_capacity(v.operators.len());
            for &op in &v.operators {
                let spec = &scenario.operators[op];
                let mut op = Operator::new(
                    &spec.kind,
                    i,
                    v.parallelism,
                    v.max_parallelism,
                    // Stable across restarts and rescaling of other operators.
                    (v.id << 16) | i,
                    scenario.seed,
                )?
                .with_state_ttl(spec.state_ttl_millis()?)?;
                if let Some(k) = op.keyed() {
                    use crate::scenario::StateBackendType as B;
                    k.rocksdb = match config.state_backend {
                        B::HashMap => None,
                        B::RocksDb => Some(crate::state::RocksDbInstance::new(config.incremental)),
                        B::ForSt => Some(crate::state::RocksDbInstance::forst(config.incremental)),
                    };
                }
                costs.push(spec.cost_per_record_micros()? + op.state_access_micros());
                operators.push(op);
            }
            let task_inputs = std::mem::take(&mut inputs[index as usize]);
            let n = task_inputs.len() as u32;
            let handler = (n > 0).then(|| {
                let after_finish = config.checkpoints_after_tasks_finish;
                match AnyBarrierHandler::for_mode(exactly_once, config.unaligned_enabled, n) {
                    AnyBarrierHandler::Tracker(_) => AnyBarrierHandler::Tracker(
                        CheckpointBarrierTracker::new(n)
                            .with_checkpoints_after_tasks_finish(after_finish),
                    ),
                    AnyBarrierHandler::Single(s) => AnyBarrierHandler::Single(
                        SingleCheckpointBarrierHandler::with_mode(s.mode(), n)
                            .with_checkpoints_after_tasks_finish(after_finish),
                    ),
                }
            });
            let input_gates = if config.debloat.is_some() {
                let mut gates: Vec<u32> = task_inputs
                    .iter()
                    .map(|&g| net.channels[g as usize].gate)
                    .collect();
                gates.dedup();
                gates
            } else {
                Vec::new()
            };
            tasks.push(StreamTask::new(
                SubtaskId {
                    vertex: v.id,
                    subtask: i,
                },
                index,
                operators,
                costs,
                task_inputs,
                std::mem::take(&mut outputs[index as usize]),
                handler,
            ));
            if let Some(t) = tasks.last_mut() {
                t.input_gates = input_gates;
            }
        }
    }
    Ok(Deployment {
        tasks,
        net,
        taskmanager,
    })
}

impl super::Simulation {
    /// At the job's start, the first tasks switch to RUNNING: those without keyed state, which
    /// build no keyed state backend while INITIALIZING (in the harness's real runs the sources
    /// are RUNNING 3-65 ms before the keyed subtasks). They run, and sources produce, from now;
    /// the others wait for `tasks_running`. Nothing changes for a job without keyed state.
    pub(super) fn first_tasks_running(&mut self) {
        let keyed = |t: &StreamTask| t.operators.iter().any(|o| o.keyed_ref().is_some());
        self.initializing = self.tasks.iter().map(keyed).collect();
        if !self.initializing.contains(&true) {
            return;
        }
        for t in 0..self.tasks.len() as u32 {
            if !self.initializing[t as usize] {
                self.start_task(t);
            }
        }
    }

    /// The deployed tasks are RUNNING: each task not yet running runs once, and the coordinator
    /// gets its plan.
    pub(super) fn tasks_running(&mut self) {
        let now = self.now;
        self.tasks_running_at = now;
        self.first_tasks_running_at.get_or_insert(now);
        let early = self.initializing.contains(&true);
        for t in 0..self.tasks.len() as u32 {
            if !early || self.initializing[t as usize] {
                self.initializing[t as usize] = false;
                self.start_task(t);
            }
        }
        self.plan_running_tasks();
    }

    /// One task switches to RUNNING: it runs once, its output flusher starts, and a source
    /// anchors its rate limiter (it produces from here on). At the job's start the limiter
    /// has stored permits since the source operator was created, `source-open-lead` before:
    /// Guava's SmoothBursty keeps up to a second's, so the source begins with a burst.
    fn start_task(&mut self, t: u32) {
        let now = self.now;
        // The task's metric group registers its gauges (`TaskIOMetricGroup`).
        let phase = self.view_updater_phase;
        self.tasks[t as usize].time.register_gauges(now, phase);
        if self.tasks[t as usize].is_source() {
            let lead = self.source_lead();
            if let Some(Operator::Datagen(dg)) = self.tasks[t as usize].operators.first_mut() {
                dg.base_time = now.saturating_sub(lead);
                dg.base_seq = dg.next_seq;
            }
        }
        self.schedule_wake(t, now);
        if let Some(period) = self.params.task.debloat_period {
            // `scheduleBufferDebloater`: tasks with input gates recompute every period.
            if !self.tasks[t as usize].input_gates.is_empty() {
                self.queue
                    .push(now + period, super::Event::DebloatTimer { task: t });
            }
        }
        if let Some(timeout) = self.params.buffer_timeout {
            if !self.tasks[t as usize].outputs.is_empty() {
                // Each task's `OutputFlusher` thread starts with its task, unrelated to the
                // checkpoint timer: a seeded phase, so a barrier finds a partly filled
                // buffer of any age. With `task-deploy-time` 0 (the uncalibrated model,
                // where everything starts at 0) flushers keep phase 0, as that model had.
                let phase = if self.params.task_deploy_time > 0 {
                    self.rng.next_u64() % timeout
                } else {
                    0
                };
                self.queue
                    .push(now + timeout - phase, super::Event::OutputFlush { task: t });
            }
        }
    }

    /// How long a source's rate limiter has stored permits when its task switches to RUNNING.
    /// Each source subtask's operator is created at its own time: uniform within ±25 % of
    /// `source-open-lead` (real runs: 61-134 ms, quartiles 81-97, median 89), so the sources'
    /// record schedules have no fixed phase against the checkpoint timer, as in Flink. The
    /// limiter is created during the deployment, so not before it; there is no lead without a
    /// deployment (the uncalibrated model) nor after a failover (not modelled: the restored
    /// sources' operators are created 14-17 ms before RUNNING on the warm JVM).
    fn source_lead(&mut self) -> Micros {
        let most = self.params.task_deploy_time.min(1_000_000);
        let lead = self.params.source_open_lead.min(most);
        if self.deployments != 1 || lead == 0 {
            return 0;
        }
        let quarter = lead / 4;
        let drawn = lead - quarter + self.rng.next_u64() % (2 * quarter + 1);
        drawn.min(most)
    }

    /// The coordinator learns the RUNNING tasks (its plan); recovering tasks are reported.
    fn plan_running_tasks(&mut self) {
        let sources: Vec<SubtaskId> = self
            .tasks
            .iter()
            .filter(|t| t.is_source())
            .map(|t| t.id)
            .collect();
        let all: Vec<SubtaskId> = self.tasks.iter().map(|t| t.id).collect();
        self.coordinator_input(crate::coordinator::CoordinatorInput::SetPlan { sources, all });
        // Recovered channel state is consumed while INITIALIZING, unless FLIP-547 lets the
        // subtask run (and checkpoint) meanwhile.
        if !self.params.task.checkpoint_during_recovery {
            let mut recovering = Vec::new();
            for t in &mut self.tasks {
                if !t.recovered_input.is_empty() {
                    t.recovering = true;
                    recovering.push(t.id);
                }
            }
            if !recovering.is_empty() {
                let input =
                    crate::coordinator::CoordinatorInput::TasksNotRunning { tasks: recovering };
                self.coordinator_input(input);
            }
        }
    }
}
