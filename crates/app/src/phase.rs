//! "Step to the next checkpoint phase": run event by event until the engine traces something a
//! checkpoint goes through (trigger, barrier, alignment, sync/async snapshot, ack, completion,
//! notification, abort), then pause there and say which phase it was.

use barrierlab_engine::sim::Simulation;
use barrierlab_engine::trace::{TraceEvent, TraceKind};
use barrierlab_engine::types::Micros;

use crate::budget::{deadline, run_budgeted, RunEnd};
use crate::format;
use crate::model::subtask_label;

/// Longest a phase step may run, in wall-clock milliseconds (a job with checkpointing off, or a
/// long interval, must not freeze the page); it then stops wherever it got to and says so.
pub const PHASE_STEP_BUDGET_MS: f64 = 400.0;

/// Where a phase step stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhaseStop {
    /// The trace event's sequence number (the event log highlights it), if a phase was reached.
    pub seq: Option<u64>,
    pub time: Micros,
    /// The phase, as the controls show it: "barrier received · map #1 · checkpoint 3".
    pub text: String,
}

/// The checkpoint phase a trace event marks, named as the UI shows it; `None` for events that
/// are not part of a checkpoint (records, mails, timers, restarts).
pub fn phase_name(kind: &TraceKind) -> Option<&'static str> {
    use TraceKind::*;
    Some(match kind {
        CheckpointTriggered { .. } => "trigger",
        TriggerRejected { .. } => "trigger rejected",
        BarrierEmitted { .. } => "barrier emitted",
        BarrierOvertaking { .. } => "barrier overtaking",
        BarrierPromoted { .. } => "barrier promoted to unaligned",
        BarrierReceived { .. } => "barrier received",
        ChannelBlocked { .. } => "alignment start (channel blocked)",
        ChannelResumed { .. } => "alignment end (channels unblocked)",
        AlignmentTimedOut { .. } => "aligned checkpoint timeout",
        InFlightPersisted { .. } => "in-flight data persisted",
        PreCommit { .. } => "pre-commit",
        SyncStart { .. } => "sync start",
        SyncEnd { .. } => "sync end",
        AsyncEnd { .. } => "async end",
        Acknowledged { .. } => "acknowledged",
        Declined { .. } => "declined",
        CheckpointCompleted { .. } => "complete",
        CheckpointAborted { .. } => "abort",
        CancelMarkerEmitted { .. } => "cancel marker emitted",
        NotifyComplete { .. } => "notify complete",
        NotifyAborted { .. } => "notify aborted",
        Commit { .. } => "commit",
        _ => return None,
    })
}

/// The checkpoint id an event is about, if it names one.
fn checkpoint_of(kind: &TraceKind) -> Option<u64> {
    use TraceKind::*;
    match kind {
        CheckpointTriggered { id, .. }
        | BarrierEmitted { id, .. }
        | BarrierOvertaking { id, .. }
        | BarrierPromoted { id, .. }
        | BarrierReceived { id, .. }
        | AlignmentTimedOut { id }
        | InFlightPersisted { id, .. }
        | PreCommit { id, .. }
        | SyncStart { id }
        | SyncEnd { id, .. }
        | AsyncEnd { id, .. }
        | Acknowledged { id }
        | Declined { id, .. }
        | CheckpointCompleted { id, .. }
        | CheckpointAborted { id, .. }
        | CancelMarkerEmitted { id }
        | NotifyComplete { id }
        | NotifyAborted { id }
        | Commit { id, .. } => Some(*id),
        _ => None,
    }
}

fn describe(sim: &Simulation, e: &TraceEvent, phase: &str) -> String {
    let who = match e.task {
        Some(t) => {
            let names = sim.vertex_names();
            subtask_label(
                names.get(t.vertex as usize).map_or("?", String::as_str),
                t.subtask,
            )
        }
        None => "JobManager".to_string(),
    };
    let channel = match e.kind {
        TraceKind::BarrierReceived { channel, .. }
        | TraceKind::ChannelBlocked { channel }
        | TraceKind::InFlightPersisted { channel, .. } => format!(" (input channel {channel})"),
        _ => String::new(),
    };
    match checkpoint_of(&e.kind) {
        Some(id) => format!("{phase} · {who} · checkpoint {id}{channel}"),
        None => format!("{phase} · {who}{channel}"),
    }
}

/// The oldest checkpoint phase among the `new` newest trace events.
fn first_phase(sim: &Simulation, new: usize) -> Option<PhaseStop> {
    let mut events: Vec<&TraceEvent> = sim.trace.events().rev().take(new).collect();
    events.reverse();
    events.into_iter().find_map(|e| {
        phase_name(&e.kind).map(|phase| PhaseStop {
            seq: Some(e.seq),
            time: e.time,
            text: describe(sim, e, phase),
        })
    })
}

/// Moves to the next checkpoint phase after trace event `after` (the previous stop, if any).
/// One engine event often traces several phases at the same instant (a barrier received ends
/// the alignment, takes the sync snapshot and starts the async part); those are visited one per
/// call without stepping. Otherwise steps `sim` until an event traces a phase, the job stops,
/// nothing is left to do, or `budget_ms` of wall-clock time is spent.
pub fn step_to_phase(sim: &mut Simulation, after: Option<u64>, budget_ms: f64) -> PhaseStop {
    if let Some(after) = after {
        let new = sim.trace.total().saturating_sub(after) as usize;
        if let Some(stop) = first_phase(sim, new) {
            return stop;
        }
    }
    let mut seen = sim.trace.total();
    let mut found = None;
    let end = run_budgeted(sim, Micros::MAX, deadline(budget_ms), |sim| {
        let total = sim.trace.total();
        let new = (total - seen) as usize;
        seen = total;
        found = first_phase(sim, new);
        found.is_some()
    });
    if let Some(stop) = found {
        return stop;
    }
    if end == RunEnd::OutOfTime {
        return PhaseStop {
            seq: None,
            time: sim.now,
            text: format!(
                "no checkpoint phase before {} (ran out of time; step again)",
                format::sim_time(sim.now)
            ),
        };
    }
    PhaseStop {
        seq: None,
        time: sim.now,
        text: format!(
            "no checkpoint phase: the job is {}",
            sim.status.flink_name()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use barrierlab_engine::scenario::preset;

    #[test]
    fn stops_at_each_phase_of_the_first_checkpoint_in_order() {
        let mut sim = Simulation::new(preset("seed-demo").unwrap()).unwrap();
        // As in Flink, the scheduler's first trigger finds tasks still INITIALIZING.
        let rejected = step_to_phase(&mut sim, None, 10_000.0);
        assert!(
            rejected.text.starts_with("trigger rejected · JobManager"),
            "{rejected:?}"
        );
        let first = step_to_phase(&mut sim, rejected.seq, 10_000.0);
        assert!(
            first
                .text
                .starts_with("trigger · JobManager · checkpoint 1"),
            "{first:?}"
        );
        let last = sim.trace.events().last().unwrap();
        assert!(last.seq >= first.seq.unwrap());
        let mut phases = vec![first.text.clone()];
        let mut prev = first;
        for _ in 0..200 {
            let stop = step_to_phase(&mut sim, prev.seq, 10_000.0);
            assert!(stop.seq > prev.seq, "{stop:?} after {prev:?}");
            phases.push(stop.text.clone());
            if stop.text.starts_with("complete") {
                break;
            }
            prev = stop;
        }
        assert!(
            phases.iter().any(|p| p.starts_with("barrier received")),
            "{phases:?}"
        );
        assert!(
            phases.iter().any(|p| p.starts_with("sync start")),
            "{phases:?}"
        );
        assert!(phases
            .last()
            .unwrap()
            .starts_with("complete · JobManager · checkpoint 1"));
    }
}
