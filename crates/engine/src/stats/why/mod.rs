//! "Why was checkpoint N slow?", answered from the engine's own record of the checkpoint: its
//! statistics (per-subtask phases, persisted data) and the [`BarrierLog`] of what the barriers
//! met on their way. Nothing here depends on when, or how often, anyone looked at the running
//! job, so the CLI and the playground give the same answer at every speed.

mod barrier_log;
mod text;

pub use barrier_log::{BarrierLog, PersistedChannelState, QueuedAhead, KEEP_CHECKPOINTS};

use crate::network::BUFFERS_PER_CHANNEL;
use crate::sim::Simulation;
use crate::stats::{AbstractCheckpointStats, CheckpointStatsStatus, SubtaskStateStats};
use crate::types::{CheckpointId, Micros, MICROS_PER_SEC};
use text::{bytes, duration, share};

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

/// The critical path's last subtask, for the sentence on its dominant phase.
struct Critical<'a> {
    sim: &'a Simulation,
    cp: &'a AbstractCheckpointStats,
    vertex: u32,
    last: &'a SubtaskStateStats,
    label: &'a str,
    queued: Option<QueuedAhead>,
}

impl Critical<'_> {
    fn dominant_sentence(&self, dominant: &str, after: Micros) -> String {
        let (label, m) = (self.label, &self.last.metrics);
        match dominant {
            "start delay" => self.start_delay(),
            "alignment" => {
                let mut s = format!(
                    "{label}'s first barrier arrived {} after the trigger and its last {} after that; meanwhile the channels that had delivered theirs were blocked.",
                    duration(m.start_delay),
                    duration(m.alignment_duration)
                );
                if let Some(q) = self.queued {
                    s.push_str(&format!(
                        " Upstream emitted the barrier between {} and {} after the trigger, behind up to {} ({}) on one channel.",
                        duration(q.first_emitted.saturating_sub(self.cp.trigger_timestamp)),
                        duration(q.last_emitted.saturating_sub(self.cp.trigger_timestamp)),
                        buffers(q.buffers),
                        bytes(q.bytes)
                    ));
                }
                s.push_str(" Unaligned checkpoints avoid this wait.");
                s
            }
            "sync" => format!(
                "The synchronous snapshot dominated: {label}'s operators took {} copying their state references.",
                duration(m.sync_duration)
            ),
            "async" => format!(
                "The asynchronous part dominated: {label} wrote {} of state, {} of it in-flight data.",
                bytes(m.checkpointed_size),
                bytes(m.persisted_bytes)
            ),
            _ => format!(
                "Most of the time went after {label}'s own phases: its acknowledgement reached the JobManager {} after its snapshot was done.",
                duration(after)
            ),
        }
    }

    /// Start delay: the barrier's way from the trigger to the subtask's first input channel.
    fn start_delay(&self) -> String {
        let label = self.label;
        let delay = self.last.metrics.start_delay;
        let is_source = self
            .sim
            .graph
            .vertices
            .get(self.vertex as usize)
            .is_some_and(|v| v.inputs.is_empty());
        if is_source {
            return format!(
                "{label} is a source: its start delay is the trigger RPC's way to it and the wait in its mailbox until the task took it."
            );
        }
        let Some(q) = self.queued else {
            return format!(
                "The engine keeps what barriers met for the last {KEEP_CHECKPOINTS} checkpoints only; this one is older."
            );
        };
        let emitted = q.first_emitted.saturating_sub(self.cp.trigger_timestamp);
        let waited = delay.saturating_sub(emitted);
        if q.buffers == 0 {
            return if emitted >= waited {
                format!(
                    "Upstream emitted the barrier only {} after the trigger, with no data queued ahead of it: the delay built up upstream.",
                    duration(emitted)
                )
            } else {
                format!(
                    "Upstream emitted the barrier {} after the trigger with no data queued ahead of it; {label} reached it {} later, busy with the data in hand.",
                    duration(emitted),
                    duration(waited)
                )
            };
        }
        let mut s = format!(
            "Upstream emitted the barrier {} after the trigger, behind up to {} ({}) queued on one of {label}'s input channels. ",
            duration(emitted),
            buffers(q.buffers),
            bytes(q.bytes),
        );
        if self.cp.is_unaligned() {
            s.push_str(&format!(
                "Even an unaligned barrier cannot overtake data already on the wire: {label} saw its first barrier {} later.",
                duration(waited)
            ));
        } else {
            s.push_str(&format!(
                "An aligned barrier cannot overtake data, so {label} saw its first barrier only {} later, after processing them.",
                duration(waited)
            ));
            if q.buffers > BUFFERS_PER_CHANNEL {
                s.push_str(&format!(
                    " Queues this full mean backpressure: {label} could not keep up with its input. Unaligned checkpoints let barriers overtake them."
                ));
            }
        }
        s
    }
}

/// `1 data buffer`, `8 data buffers`.
fn buffers(n: u32) -> String {
    format!("{n} data buffer{}", if n == 1 { "" } else { "s" })
}

/// Unaligned: how much in-flight data the checkpoint persisted and which subtasks' input channels
/// and output buffers it came from.
fn persisted_sentence(
    sim: &Simulation,
    cp: &AbstractCheckpointStats,
    vertex_name: &dyn Fn(u32) -> String,
) -> String {
    let total = cp.persisted_data();
    if total == 0 {
        return "It was unaligned, but no data was in flight where the barriers overtook it: nothing was persisted.".into();
    }
    // Per vertex: (input channel state, result subpartition state).
    let mut by_vertex = std::collections::BTreeMap::<u32, (u64, u64)>::new();
    for (task, p) in sim.barrier_log.persisted(cp.id) {
        if let Some(t) = sim.tasks.get(task as usize) {
            let e = by_vertex.entry(t.id.vertex).or_default();
            e.0 += p.input;
            e.1 += p.output;
        }
    }
    let mut parts = Vec::new();
    for (v, (input, output)) in &by_vertex {
        if *output > 0 {
            parts.push(format!(
                "{} from {}'s output buffers",
                bytes(*output),
                vertex_name(*v)
            ));
        }
        if *input > 0 {
            parts.push(format!(
                "{} from {}'s input channels",
                bytes(*input),
                vertex_name(*v)
            ));
        }
    }
    if parts.is_empty() {
        // Older than the log: the statistics still say which vertex persisted how much.
        parts = cp
            .tasks
            .iter()
            .filter(|(_, t)| t.persisted_data() > 0)
            .map(|(v, t)| format!("{} at {}", bytes(t.persisted_data()), vertex_name(*v)))
            .collect();
    }
    format!(
        "It was unaligned: the barriers overtook {} of in-flight data, persisted with the checkpoint as channel state ({}). Restoring replays it before new input.",
        bytes(total),
        parts.join(", ")
    )
}
