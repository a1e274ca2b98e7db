//! The timeline's data: per checkpoint, each subtask's phases in microseconds after the trigger,
//! read from the coordinator's statistics tracker (the REST shapes round to milliseconds).

use barrierlab_engine::sim::Simulation;
use barrierlab_engine::stats::CheckpointStatsStatus;
use barrierlab_engine::trace::TraceKind;
use barrierlab_engine::types::{CheckpointId, Micros};

use super::subtask_label;

/// Checkpoints the timeline model keeps, newest first (Flink's default
/// `web.checkpoints.history`): the newest few are drawn, any of them can be pinned.
pub const TIMELINE_CHECKPOINTS: usize = 10;

/// The outlier rule, as the legend states it. A subtask is an outlier when it acknowledged more
/// than `OUTLIER_RATIO` times later than the median subtask of the same job vertex in that
/// checkpoint (sources ack almost at once, so a job-wide median would flag every downstream
/// subtask; Flink's UI also compares subtasks per operator), and at least
/// `OUTLIER_MIN` later: microsecond jitter is not a finding); a checkpoint is one when its
/// end-to-end duration exceeds `OUTLIER_RATIO` times the median of the finished checkpoints in
/// the history (at least three of them, at least `OUTLIER_MIN` more).
pub const OUTLIER_RULE: &str = "outlier: a subtask that acknowledged more than 2× later than the median subtask of the same operator in that checkpoint, or a checkpoint that took more than 2× the median of the finished checkpoints in the history (and at least 1 ms more in both cases)";
const OUTLIER_RATIO: u64 = 2;
const OUTLIER_MIN: Micros = 1_000;

/// Whether `value` is an outlier against `median` under the rule above.
fn is_outlier(value: Micros, median: Micros) -> bool {
    value > median.saturating_mul(OUTLIER_RATIO) && value >= median + OUTLIER_MIN
}

/// The lower median (an element of the data: no fractional microseconds).
fn median(mut values: Vec<Micros>) -> Option<Micros> {
    if values.is_empty() {
        return None;
    }
    values.sort_unstable();
    Some(values[(values.len() - 1) / 2])
}

#[derive(Debug, Clone, PartialEq)]
pub struct TimelineSubtask {
    pub label: String,
    /// The job vertex (operator chain) the subtask belongs to.
    pub vertex: u32,
    /// `None` until the subtask acknowledged.
    pub phases: Option<Phases>,
    /// Acknowledged far later than the checkpoint's median subtask (see `OUTLIER_RULE`).
    pub outlier: bool,
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
    pub status: CheckpointStatsStatus,
    pub savepoint: bool,
    pub trigger: Micros,
    /// Completion or failure time relative to the trigger.
    pub end: Option<Micros>,
    pub subtasks: Vec<TimelineSubtask>,
    /// When the first subtask received the JobManager's notifyCheckpointComplete (or
    /// notifyCheckpointAborted), relative to the trigger; `None` if not (or no longer) traced.
    pub notify: Option<Micros>,
    /// Took far longer than the history's median checkpoint (see `OUTLIER_RULE`).
    pub outlier: bool,
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
            .max(self.notify.unwrap_or(0))
    }
}

pub fn timeline_model(sim: &Simulation) -> Vec<TimelineCheckpoint> {
    let names = sim.vertex_names();
    // First notification per checkpoint, from the trace ring (oldest first).
    let mut notified: std::collections::BTreeMap<CheckpointId, Micros> = Default::default();
    for e in sim.trace.events() {
        if let TraceKind::NotifyComplete { id } | TraceKind::NotifyAborted { id } = e.kind {
            notified.entry(id).or_insert(e.time);
        }
    }
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
                        vertex: t.id.vertex,
                        phases,
                        outlier: false,
                    }
                })
                .collect();
            let end = cp
                .completion_timestamp
                .or(cp.failure_timestamp)
                .map(|e| e.saturating_sub(cp.trigger_timestamp));
            TimelineCheckpoint {
                id: cp.id,
                status: cp.status,
                savepoint: cp.props.kind
                    != barrierlab_engine::coordinator::CheckpointKind::Checkpoint,
                trigger: cp.trigger_timestamp,
                end,
                subtasks,
                notify: notified
                    .get(&cp.id)
                    .map(|t| t.saturating_sub(cp.trigger_timestamp)),
                outlier: false,
            }
        })
        .collect();
    checkpoints.sort_by_key(|c| std::cmp::Reverse(c.id));
    checkpoints.truncate(TIMELINE_CHECKPOINTS);
    mark_outliers(&mut checkpoints);
    checkpoints
}

/// Applies `OUTLIER_RULE` to subtasks within each checkpoint and to checkpoints within the list.
pub fn mark_outliers(checkpoints: &mut [TimelineCheckpoint]) {
    let finished: Vec<Micros> = checkpoints.iter().filter_map(|c| c.end).collect();
    let history = (finished.len() >= 3).then(|| median(finished)).flatten();
    for cp in checkpoints.iter_mut() {
        cp.outlier = match (cp.end, history) {
            (Some(end), Some(m)) => is_outlier(end, m),
            _ => false,
        };
        let vertices: std::collections::BTreeSet<u32> =
            cp.subtasks.iter().map(|s| s.vertex).collect();
        for v in vertices {
            let acks: Vec<Micros> = cp
                .subtasks
                .iter()
                .filter(|s| s.vertex == v)
                .filter_map(|s| s.phases.map(|p| p.ack))
                .collect();
            if acks.len() < 2 {
                continue;
            }
            let Some(m) = median(acks) else { continue };
            for s in cp.subtasks.iter_mut().filter(|s| s.vertex == v) {
                s.outlier = s.phases.is_some_and(|p| is_outlier(p.ack, m));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use barrierlab_engine::scenario::preset;

    fn run(name: &str, until: Micros) -> Vec<TimelineCheckpoint> {
        let mut sim = Simulation::new(preset(name).unwrap()).unwrap();
        sim.run_until(until);
        timeline_model(&sim)
    }

    #[test]
    fn the_median_is_an_element_and_the_rule_needs_a_margin() {
        assert_eq!(median(vec![5, 1, 3, 4]), Some(3));
        assert_eq!(median(vec![]), None);
        assert!(is_outlier(10_000, 4_000));
        assert!(!is_outlier(8_000, 4_000));
        // Twice a tiny median is still jitter.
        assert!(!is_outlier(900, 300));
    }

    #[test]
    fn backpressure_marks_slow_subtasks_and_the_seed_demo_does_not() {
        let calm = run("seed-demo", 20_000_000);
        assert!(calm.len() >= 3, "{calm:#?}");
        // The JobManager row's notify marker: after completion, for every finished checkpoint.
        for c in calm
            .iter()
            .filter(|c| c.status == CheckpointStatsStatus::COMPLETED)
        {
            assert!(c.notify.unwrap() >= c.end.unwrap(), "{c:#?}");
        }
        // Only checkpoint 1 stands out: it runs on cold JVMs (68 ms against 10-13 ms).
        for c in &calm {
            let marked = c.outlier || c.subtasks.iter().any(|s| s.outlier);
            assert_eq!(marked, c.id == 1, "{c:#?}");
        }
        let slow = run("seed-backpressure", 30_000_000);
        let marked = slow
            .iter()
            .flat_map(|c| &c.subtasks)
            .filter(|s| s.outlier)
            .count();
        assert!(marked > 0, "{slow:#?}");
        // Sources acknowledge at once; the slow operator's subtasks are the ones compared.
        assert!(slow
            .iter()
            .flat_map(|c| &c.subtasks)
            .filter(|s| s.outlier)
            .all(|s| s.label.starts_with("count-per-key")));
    }
}
