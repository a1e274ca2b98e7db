//! The sentences on the critical path's dominant phase and on an unaligned checkpoint's
//! persisted in-flight data.

use super::text::{bytes, duration};
use super::{QueuedAhead, KEEP_CHECKPOINTS};
use crate::network::BUFFERS_PER_CHANNEL;
use crate::sim::Simulation;
use crate::stats::{AbstractCheckpointStats, SubtaskStateStats};
use crate::types::Micros;

/// The critical path's last subtask, for the sentence on its dominant phase.
pub(super) struct Critical<'a> {
    pub sim: &'a Simulation,
    pub cp: &'a AbstractCheckpointStats,
    pub vertex: u32,
    pub last: &'a SubtaskStateStats,
    pub label: &'a str,
    pub queued: Option<QueuedAhead>,
}

impl Critical<'_> {
    pub(super) fn dominant_sentence(&self, dominant: &str, after: Micros) -> String {
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
pub(super) fn persisted_sentence(
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
