//! Scripted faults acting on the running job (see `scenario::Fault`).

use super::Simulation;
use crate::coordinator::CheckpointFailureReason;
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
            ResolvedFault::Slow { operator, cost, .. } => {
                self.cost_overrides.insert(operator, cost);
                for t in &mut self.tasks {
                    let v = &self.graph.vertices[t.id.vertex as usize];
                    if let Some(pos) = v.operators.iter().position(|o| *o == operator) {
                        t.costs[pos] = cost;
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
}
