//! "Why was checkpoint N slow?", answered from the engine's own record of the checkpoint: its
//! statistics (per-subtask phases, persisted data) and the [`BarrierLog`] of what the barriers
//! met on their way. Nothing here depends on when, or how often, anyone looked at the running
//! job, so the CLI and the playground give the same answer at every speed.

mod sentences;
pub mod text;

pub use crate::network::{BarrierLog, PersistedChannelState, QueuedAhead, KEEP_CHECKPOINTS};

use crate::sim::Simulation;
use crate::stats::{AbstractCheckpointStats, CheckpointStatsStatus};
use crate::types::{CheckpointId, Micros, MICROS_PER_SEC};
use sentences::{persisted_sentence, Critical};
use text::{duration, share};

/// The rule for "slow": a checkpoint is slow when it took more than a tenth of the checkpoint
/// interval end to end (beyond that, checkpointing takes a visible share of every interval and
/// eats into the pause before the next trigger), or when any subtask spent more than
/// [`SLOW_PHASE`] in one phase (a phase standing out, whatever the interval). Otherwise nothing
/// was slow, and the answer says so rather than blaming the largest of a few milliseconds.
pub const SLOW_SHARE_OF_INTERVAL: u64 = 10;
pub const SLOW_PHASE: Micros = MICROS_PER_SEC;

/// The answer: a few plain sentences plus the numbers behind them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Why {
    pub id: CheckpointId,
    pub slow: bool,
    pub sentences: Vec<String>,
    /// Flink's phase name → µs, for the last subtask to acknowledge.
    pub phases: Vec<(&'static str, Micros)>,
    /// The phase that took longest on the critical path (`"acknowledgement"` when the time went
    /// after the subtask's own phases).
    pub dominant: &'static str,
    /// The last subtask to acknowledge, labelled.
    pub last_subtask: String,
    /// Data buffers queued ahead of that subtask's barrier, as the engine noted them.
    pub buffers_ahead: Option<u32>,
    /// `persisted_data`: in-flight bytes the checkpoint wrote as channel state.
    pub persisted: u64,
}

/// Explains checkpoint `id`, if its statistics are still known and a subtask acknowledged it.
/// `short` names a job vertex in the sentences (the playground shortens chains).
pub fn explain(sim: &Simulation, id: CheckpointId, short: impl Fn(&str) -> String) -> Option<Why> {
    let cp = sim.coordinator.stats().get(id)?;
    let names = sim.vertex_names();
    let vertex_name = |v: u32| short(names.get(v as usize).map_or("", |n| n.as_str()));
    let (vertex, last) = cp
        .tasks
        .iter()
        .flat_map(|(v, t)| t.subtasks.values().map(move |s| (*v, s)))
        .max_by_key(|(v, s)| (s.ack_timestamp, *v, s.index))?;
    let label = format!("{} #{}", vertex_name(vertex), last.index);
    let m = &last.metrics;
    let total = last.end_to_end_duration(cp.trigger_timestamp);
    let phases = vec![
        ("start delay", m.start_delay),
        ("alignment", m.alignment_duration),
        ("sync", m.sync_duration),
        ("async", m.async_duration),
    ];
    let after = total.saturating_sub(phases.iter().map(|p| p.1).sum());
    let (dominant, dominant_us) = phases
        .iter()
        .copied()
        .chain([("acknowledgement", after)])
        .max_by_key(|(_, us)| *us)
        .unwrap_or(("start delay", 0));
    let task = sim
        .tasks
        .iter()
        .position(|t| t.id.vertex == vertex && t.id.subtask == last.index)
        .map(|i| i as u32);
    let queued = task.and_then(|t| sim.barrier_log.queued_ahead(id, t));
    let interval = sim.coordinator.config().interval.filter(|i| *i > 0);
    let slow = is_slow(cp, interval);

    let e2e = cp.end_to_end_duration().unwrap_or(total);
    let of_interval = interval.map_or(String::new(), |i| {
        format!(", {} of the {} interval", share(e2e, i), duration(i))
    });
    let mut sentences = vec![match cp.status {
        CheckpointStatsStatus::FAILED => format!(
            "Checkpoint {id} failed {} after its trigger: {}.",
            duration(e2e),
            cp.failure_message.as_deref().unwrap_or("no reason given")
        ),
        CheckpointStatsStatus::IN_PROGRESS => format!(
            "Checkpoint {id} is still in progress: {} of {} subtasks have acknowledged, the last {} after the trigger.",
            cp.num_acknowledged(),
            cp.num_subtasks(),
            duration(e2e)
        ),
        CheckpointStatsStatus::COMPLETED if !slow => format!(
            "Nothing was slow: checkpoint {id} took {} end to end{of_interval}, and no subtask spent over {} in any phase.",
            duration(e2e),
            duration(SLOW_PHASE)
        ),
        CheckpointStatsStatus::COMPLETED => format!(
            "Checkpoint {id} took {} end to end{of_interval}; its last acknowledgement came from {label}.",
            duration(e2e)
        ),
    }];
    let breakdown = format!(
        "start delay {}, alignment {}, sync {}, async {}",
        duration(m.start_delay),
        duration(m.alignment_duration),
        duration(m.sync_duration),
        duration(m.async_duration)
    );
    if slow {
        sentences.push(format!(
            "For {label}: {breakdown}. The {dominant} phase dominated ({} of its {}).",
            share(dominant_us, total),
            duration(total)
        ));
        let ctx = Critical {
            sim,
            cp,
            vertex,
            last,
            label: &label,
            queued,
        };
        sentences.push(ctx.dominant_sentence(dominant, after));
    } else {
        sentences.push(format!(
            "Its last acknowledgement came from {label} ({breakdown})."
        ));
    }
    if cp.is_unaligned() {
        sentences.push(persisted_sentence(sim, cp, &vertex_name));
    }
    if let Some((paths, cost)) = sim.warmed_up_by(id) {
        sentences.push(format!(
            "It ran on cold TaskManager JVMs: its {} ran there for the first time, loading and \
             initializing their classes, up to {} along its path (the barrierlab.warm-up.* \
             settings). Later checkpoints run warm, also after a failover: the TaskManagers stay \
             up.",
            text::list(&paths),
            duration(cost)
        ));
    }
    Some(Why {
        id,
        slow,
        sentences,
        phases,
        dominant,
        last_subtask: label,
        buffers_ahead: queued.map(|q| q.buffers),
        persisted: cp.persisted_data(),
    })
}

/// The rule of [`SLOW_SHARE_OF_INTERVAL`] and [`SLOW_PHASE`]; a failed checkpoint always needs
/// explaining.
fn is_slow(cp: &AbstractCheckpointStats, interval: Option<Micros>) -> bool {
    if cp.status == CheckpointStatsStatus::FAILED {
        return true;
    }
    let e2e = cp.end_to_end_duration().unwrap_or(0);
    let longest_phase = cp
        .tasks
        .values()
        .flat_map(|t| t.subtasks.values())
        .map(|s| {
            let m = &s.metrics;
            m.start_delay
                .max(m.alignment_duration)
                .max(m.sync_duration)
                .max(m.async_duration)
        })
        .max()
        .unwrap_or(0);
    interval.is_some_and(|i| e2e > i / SLOW_SHARE_OF_INTERVAL) || longest_phase > SLOW_PHASE
}
