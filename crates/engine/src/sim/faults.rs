//! Scripted faults acting on the running job (see `scenario::Fault`).

use super::Simulation;
use crate::coordinator::CheckpointFailureReason;
use crate::network::ChannelKind;
use crate::scenario::ResolvedFault;
use crate::types::{CheckpointId, Micros, SubtaskId};

impl Simulation {
    /// Whether scenario operator `op`, subtask `subtask` is the task `task`.
    fn is_task(&self, op: usize, subtask: u32, task: SubtaskId) -> bool {
        task.subtask == subtask
            && self.graph.vertices[task.vertex as usize]
                .operators
                .contains(&op)
    }

    pub(crate) fn fire_fault(&mut self, index: usize) {
        if self.fired[index] {
            return;
        }
        self.fired[index] = true;
        match self.faults[index].clone() {
            ResolvedFault::Kill {
                operator, subtask, ..
            } => {
                if let Some(v) = self.graph.vertex_of_operator(operator) {
                    let task = SubtaskId {
                        vertex: v.id,
                        subtask,
                    };
                    let name = &self.scenario.operators[operator].name;
                    self.fail_task(task, format!("{name}#{subtask} failed (injected kill)"));
                }
            }
            ResolvedFault::ConnectionLoss { from_op, to_op, .. } => {
                // The first consumer subtask reading this edge over the network notices first.
                let consumer = self
                    .edge_channels(from_op, to_op)
                    .find(|&c| self.net.channels[c as usize].kind == ChannelKind::Remote)
                    .map(|c| self.tasks[self.net.channels[c as usize].task as usize].id);
                if let Some(task) = consumer {
                    let ops = &self.scenario.operators;
                    let (from, to) = (&ops[from_op].name, &ops[to_op].name);
                    let name = &self.graph.vertices[task.vertex as usize].name;
                    self.fail_task(
                        task,
                        format!(
                            "{name} ({}/{}) switched from RUNNING to FAILED: \
                             RemoteTransportException: Connection unexpectedly closed by remote \
                             task manager (injected connection loss on edge {from} -> {to})",
                            task.subtask + 1,
                            self.graph.vertices[task.vertex as usize].parallelism,
                        ),
                    );
                }
            }
            ResolvedFault::Slow { operator, cost, .. } => {
                self.cost_overrides.insert(operator, cost);
                for t in &mut self.tasks {
                    let v = &self.graph.vertices[t.id.vertex as usize];
                    if let Some(pos) = v.operators.iter().position(|o| *o == operator) {
                        t.costs[pos] = cost + t.operators[pos].state_access_micros();
                    }
                }
            }
            _ => {}
        }
    }

    /// An injected decline for `task`'s ack of `id`: a storage failure window (the async write
    /// fails: CHECKPOINT_ASYNC_EXCEPTION) or a scripted decline (CHECKPOINT_DECLINED).
    pub(crate) fn injected_decline(
        &self,
        task: SubtaskId,
        id: CheckpointId,
    ) -> Option<CheckpointFailureReason> {
        self.faults.iter().find_map(|f| match *f {
            ResolvedFault::StorageFailure { from, until } if (from..until).contains(&self.now) => {
                Some(CheckpointFailureReason::CHECKPOINT_ASYNC_EXCEPTION)
            }
            ResolvedFault::Decline {
                operator,
                subtask,
                checkpoint,
            } if checkpoint == id && self.is_task(operator, subtask, task) => {
                Some(CheckpointFailureReason::CHECKPOINT_DECLINED)
            }
            _ => None,
        })
    }

    /// Extra latency of `task`'s acks now.
    pub(crate) fn injected_ack_delay(&self, task: SubtaskId) -> Micros {
        self.faults
            .iter()
            .map(|f| match *f {
                ResolvedFault::DelayAcks {
                    operator,
                    subtask,
                    by,
                    from,
                    until,
                } if (from..until).contains(&self.now) && self.is_task(operator, subtask, task) => {
                    by
                }
                _ => 0,
            })
            .sum()
    }

    /// Whether `notifyCheckpointComplete(id)` to `task` is lost.
    pub(crate) fn notification_lost(&self, task: SubtaskId, id: CheckpointId) -> bool {
        self.faults.iter().any(|f| {
            matches!(*f, ResolvedFault::LoseNotification { operator, subtask, checkpoint }
                if checkpoint == id && self.is_task(operator, subtask, task))
        })
    }

    /// The channels (indices into `net.channels`) of the scenario edge `from_op -> to_op`: from a
    /// subtask of the producer's job vertex to one of the consumer's.
    fn edge_channels(&self, from_op: usize, to_op: usize) -> impl Iterator<Item = u32> + '_ {
        (0..self.net.channels.len() as u32).filter(move |&c| self.on_edge(c, from_op, to_op))
    }

    /// Whether `channel` belongs to the scenario edge `from_op -> to_op`.
    fn on_edge(&self, channel: u32, from_op: usize, to_op: usize) -> bool {
        let ch = &self.net.channels[channel as usize];
        let producer = self.net.partitions[ch.partition as usize].producer();
        let vertex = |task: u32| &self.graph.vertices[self.tasks[task as usize].id.vertex as usize];
        vertex(producer).operators.contains(&from_op) && vertex(ch.task).operators.contains(&to_op)
    }

    /// Edge faults must name an edge of the job whose data crosses the network: not chained
    /// (one task), and with at least one remote channel (some producer and consumer subtasks on
    /// different TaskManagers). Called once, when the simulation is built.
    pub(crate) fn check_edge_faults(&self) -> Result<(), String> {
        for f in &self.faults {
            let Some((from_op, to_op)) = f.edge() else {
                continue;
            };
            let ops = &self.scenario.operators;
            let (from, to) = (&ops[from_op].name, &ops[to_op].name);
            let kind = match f {
                ResolvedFault::NetworkDelay { .. } => "network-delay",
                _ => "connection-loss",
            };
            if !self
                .scenario
                .edges
                .iter()
                .any(|e| &e.from == from && &e.to == to)
            {
                return Err(format!(
                    "{kind} on edge '{from} -> {to}': the job has no such edge"
                ));
            }
            let vertex = |op| self.graph.vertex_of_operator(op).map(|v| v.id);
            if vertex(from_op) == vertex(to_op) {
                return Err(format!(
                    "{kind} on edge '{from} -> {to}': the two operators are chained into one \
                     task, so no data crosses the network between them"
                ));
            }
            let remote = self
                .edge_channels(from_op, to_op)
                .any(|c| self.net.channels[c as usize].kind == ChannelKind::Remote);
            if !remote {
                return Err(format!(
                    "{kind} on edge '{from} -> {to}': every channel of this edge is local (its \
                     subtasks share a TaskManager), so nothing crosses the network; run on more \
                     TaskManagers (cluster.taskmanagers) to fault it"
                ));
            }
        }
        Ok(())
    }

    /// Extra one-way latency for an item of `channel` off the sender at `sent` (µs): the largest
    /// active network delay on the channel's edge (overlapping delays do not add up). In the
    /// last `by` of a window the delay shrinks to end exactly at `until`, so items sent later
    /// never arrive earlier: the channel stays FIFO, as a TCP connection is.
    pub(crate) fn injected_network_delay(&self, channel: u32, sent: Micros) -> Micros {
        if self.faults.is_empty() {
            return 0;
        }
        let mut delay = 0;
        for f in &self.faults {
            if let ResolvedFault::NetworkDelay {
                from_op,
                to_op,
                by,
                from,
                until,
            } = *f
            {
                if (from..until).contains(&sent) && self.on_edge(channel, from_op, to_op) {
                    delay = delay.max(by.min(until - sent));
                }
            }
        }
        delay
    }
}
