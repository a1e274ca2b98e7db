//! The timeline's data: per checkpoint, each subtask's phases in microseconds after the trigger,
//! read from the coordinator's statistics tracker (the REST shapes round to milliseconds).

use barrierlab_engine::sim::Simulation;
use barrierlab_engine::stats::CheckpointStatsStatus;
use barrierlab_engine::types::{CheckpointId, Micros};

use super::subtask_label;

/// Checkpoints the timeline shows, newest first.
pub const TIMELINE_CHECKPOINTS: usize = 4;

#[derive(Debug, Clone, PartialEq)]
pub struct TimelineSubtask {
    pub label: String,
    /// `None` until the subtask acknowledged.
    pub phases: Option<Phases>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Phases {
    pub start_delay: Micros,
    pub alignment: Micros,
    pub sync: Micros,
    pub async_: Micros,
    /// Acknowledgement time relative to the trigger.
    pub ack: Micros,
    pub unaligned: bool,
    pub persisted: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TimelineCheckpoint {
    pub id: CheckpointId,
    pub status: &'static str,
    pub savepoint: bool,
    pub trigger: Micros,
    /// Completion or failure time relative to the trigger.
    pub end: Option<Micros>,
    pub subtasks: Vec<TimelineSubtask>,
}

impl TimelineCheckpoint {
    /// The latest moment the row needs on the time axis (relative to the trigger).
    pub fn span(&self) -> Micros {
        let acks = self
            .subtasks
            .iter()
            .filter_map(|s| {
                s.phases
                    .map(|p| p.ack.max(p.start_delay + p.alignment + p.sync + p.async_))
            })
            .max()
            .unwrap_or(0);
        acks.max(self.end.unwrap_or(0))
    }
}

pub fn timeline_model(sim: &Simulation) -> Vec<TimelineCheckpoint> {
    let names = sim.vertex_names();
    let mut checkpoints: Vec<TimelineCheckpoint> = sim
        .coordinator
        .stats()
        .history()
        .map(|cp| {
            let subtasks = sim
                .tasks
                .iter()
                .map(|t| {
                    let name = names.get(t.id.vertex as usize).map_or("?", String::as_str);
                    let phases = cp
                        .tasks
                        .get(&t.id.vertex)
                        .and_then(|v| v.subtasks.get(&t.id.subtask))
                        .map(|s| Phases {
                            start_delay: s.metrics.start_delay,
                            alignment: s.metrics.alignment_duration,
                            sync: s.metrics.sync_duration,
                            async_: s.metrics.async_duration,
                            ack: s.ack_timestamp.saturating_sub(cp.trigger_timestamp),
                            unaligned: s.metrics.unaligned,
                            persisted: s.metrics.persisted_bytes,
                        });
                    TimelineSubtask {
                        label: subtask_label(name, t.id.subtask),
                        phases,
                    }
                })
                .collect();
            let end = cp
                .completion_timestamp
                .or(cp.failure_timestamp)
                .map(|e| e.saturating_sub(cp.trigger_timestamp));
            TimelineCheckpoint {
                id: cp.id,
                status: match cp.status {
                    CheckpointStatsStatus::IN_PROGRESS => "IN_PROGRESS",
                    CheckpointStatsStatus::COMPLETED => "COMPLETED",
                    CheckpointStatsStatus::FAILED => "FAILED",
                },
                savepoint: cp.props.kind
                    != barrierlab_engine::coordinator::CheckpointKind::Checkpoint,
                trigger: cp.trigger_timestamp,
                end,
                subtasks,
            }
        })
        .collect();
    checkpoints.sort_by_key(|c| std::cmp::Reverse(c.id));
    checkpoints.truncate(TIMELINE_CHECKPOINTS);
    checkpoints
}
