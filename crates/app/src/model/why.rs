//! "Why was checkpoint N slow?": the critical path from the trigger to the last acknowledgement,
//! from the statistics history (per-subtask metrics in µs), the tasks' busy/backpressured split
//! and the buffers seen queued ahead of each barrier while it travelled.

use std::collections::BTreeMap;

use barrierlab_engine::network::{NetEvent, NetItem};
use barrierlab_engine::sim::Simulation;
use barrierlab_engine::task::TimeSplit;
use barrierlab_engine::types::{CheckpointId, Micros, MICROS_PER_SEC};

use crate::format;
use crate::model::subtask_label;

/// Most data buffers seen ahead of a barrier: (checkpoint, consumer task index) → buffers.
#[derive(Debug, Clone, Default)]
pub struct QueueLog {
    pub ahead: BTreeMap<(CheckpointId, u32), u32>,
}

/// Checkpoints whose observations are kept.
const KEEP_CHECKPOINTS: u64 = 40;

/// Notes, for every barrier in a channel queue now, how many data buffers are ahead of it.
pub fn observe_barriers(sim: &Simulation, log: &mut QueueLog) {
    let mut newest = 0;
    for p in &sim.net.partitions {
        for (sub, s) in p.subpartitions.iter().enumerate() {
            let Some(channel) = sim.net.channels.get(p.consumer(sub) as usize) else {
                continue;
            };
            let mut buffers = channel
                .received
                .iter()
                .filter(|i| matches!(i, NetItem::Buffer(_)))
                .count() as u32;
            for item in s.queue.iter() {
                match item {
                    NetItem::Buffer(_) => buffers += 1,
                    NetItem::Event(NetEvent::Barrier(b)) => {
                        newest = newest.max(b.id);
                        let e = log.ahead.entry((b.id, channel.task)).or_insert(0);
                        *e = (*e).max(buffers);
                    }
                    _ => {}
                }
            }
        }
    }
    if newest > KEEP_CHECKPOINTS {
        let cut = newest - KEEP_CHECKPOINTS;
        log.ahead.retain(|(id, _), _| *id >= cut);
    }
}

/// The answer, as a few plain sentences plus the numbers behind them.
#[derive(Debug, Clone, PartialEq)]
pub struct Why {
    pub id: CheckpointId,
    pub sentences: Vec<String>,
    /// Phase name → µs for the last subtask to acknowledge.
    pub phases: Vec<(&'static str, Micros)>,
    pub dominant: &'static str,
    pub last_subtask: String,
}

/// Busy/backpressured split of a task between `from` and `to` (whole seconds, best effort: the
/// task keeps the last 60 s).
fn split_between(
    t: &barrierlab_engine::task::StreamTask,
    now: Micros,
    from: Micros,
    to: Micros,
) -> TimeSplit {
    let now_s = now / MICROS_PER_SEC;
    let newer = (now_s.saturating_sub(to / MICROS_PER_SEC)) as usize;
    let upto = (now_s.saturating_sub(from / MICROS_PER_SEC) + 1) as usize;
    let all = t.time.recent(upto);
    let skip = if newer == 0 {
        TimeSplit::default()
    } else {
        t.time.recent(newer)
    };
    TimeSplit {
        busy: all.busy.saturating_sub(skip.busy),
        idle: all.idle.saturating_sub(skip.idle),
        backpressured: all.backpressured.saturating_sub(skip.backpressured),
    }
}

fn pct(part: Micros, total: Micros) -> String {
    format!("{} %", (part * 100).checked_div(total).unwrap_or(0))
}

pub fn explain(sim: &Simulation, log: &QueueLog, id: CheckpointId) -> Option<Why> {
    let cp = sim.coordinator.stats().history().find(|c| c.id == id)?;
    let names = sim.vertex_names();
    // The last subtask to acknowledge.
    let (vertex, sub) = cp
        .tasks
        .iter()
        .flat_map(|(v, t)| t.subtasks.values().map(move |s| (*v, s)))
        .max_by_key(|(v, s)| (s.ack_timestamp, *v, s.index))?;
    let vname = names.get(vertex as usize).cloned().unwrap_or_default();
    let label = subtask_label(&vname, sub.index);
    let m = &sub.metrics;
    let total = sub.ack_timestamp.saturating_sub(cp.trigger_timestamp);
    let phases = vec![
        ("start delay", m.start_delay),
        ("alignment", m.alignment_duration),
        ("sync", m.sync_duration),
        ("async", m.async_duration),
    ];
    let (dominant, dom_us) = phases
        .iter()
        .copied()
        .max_by_key(|(_, us)| *us)
        .unwrap_or(("start delay", 0));
    let mut sentences = vec![format!(
        "Checkpoint {id} was triggered at {} and its last acknowledgement came from {label} {} later{}.",
        format::sim_time(cp.trigger_timestamp),
        format::micros(total),
        match cp.end_to_end_duration() {
            Some(d) => format!(" (end to end {})", format::micros(d)),
            None => format!(" (status {:?})", cp.status),
        }
    )];
    sentences.push(format!(
        "For {label}: start delay {}, alignment {}, sync {}, async {}. The {dominant} phase dominated ({} of its {}).",
        format::micros(m.start_delay),
        format::micros(m.alignment_duration),
        format::micros(m.sync_duration),
        format::micros(m.async_duration),
        pct(dom_us, total),
        format::micros(total),
    ));
    let task_index = sim
        .tasks
        .iter()
        .position(|t| t.id.vertex == vertex && t.id.subtask == sub.index)
        .map(|i| i as u32);
    match dominant {
        "start delay" => {
            let from = cp.trigger_timestamp;
            let to = cp.trigger_timestamp + m.start_delay;
            let upstream: Vec<u32> = sim
                .graph
                .vertices
                .get(vertex as usize)
                .map(|v| v.inputs.iter().map(|e| e.source_vertex).collect())
                .unwrap_or_default();
            let worst = upstream
                .iter()
                .flat_map(|u| sim.vertex_tasks(*u))
                .map(|t| (t, split_between(t, sim.now, from, to)))
                .max_by_key(|(_, s)| (s.backpressured, s.busy));
            match worst {
                Some((t, s)) => sentences.push(format!(
                    "The barrier waited behind data: upstream {} was backpressured {} and busy {} of that time.",
                    subtask_label(names.get(t.id.vertex as usize).map_or("", |n| n), t.id.subtask),
                    pct(s.backpressured, s.total()),
                    pct(s.busy, s.total()),
                )),
                None => sentences.push(
                    "It is a source: the trigger RPC waited in its mailbox behind the work it was doing."
                        .to_string(),
                ),
            }
            let own = task_index
                .and_then(|i| sim.tasks.get(i as usize))
                .map(|t| split_between(t, sim.now, from, to));
            if let Some(s) = own {
                sentences.push(format!(
                    "{label} itself was busy {} of the time, so it drained its input slowly.",
                    pct(s.busy, s.total())
                ));
            }
            match task_index.and_then(|i| log.ahead.get(&(id, i))) {
                Some(n) => sentences.push(format!(
                    "Up to {n} buffer(s) were seen queued ahead of the barrier on {label}'s input channels."
                )),
                None => sentences
                    .push("No buffers were seen queued ahead of its barrier.".to_string()),
            }
        }
        "alignment" => sentences.push(
            "Alignment dominated: the first barrier arrived long before the last one, and the channels that had delivered theirs were blocked meanwhile. Unaligned checkpoints avoid this wait."
                .to_string(),
        ),
        "sync" => sentences.push(
            "The synchronous snapshot dominated: copying the state references took a while."
                .to_string(),
        ),
        _ => sentences.push(format!(
            "The asynchronous upload dominated: {} of state and {} of in-flight data were written.",
            format::bytes(m.checkpointed_size),
            format::bytes(m.persisted_bytes)
        )),
    }
    Some(Why {
        id,
        sentences,
        phases,
        dominant,
        last_subtask: label,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use barrierlab_engine::scenario::preset;

    #[test]
    fn explains_a_backpressured_checkpoint() {
        let mut sim = Simulation::new(preset("seed-backpressure").unwrap()).unwrap();
        let mut log = QueueLog::default();
        let mut t = 0;
        while t < 30_000_000 {
            t += 40_000;
            sim.run_until(t);
            observe_barriers(&sim, &mut log);
        }
        let id = sim
            .checkpoint_rows()
            .iter()
            .find(|r| r.duration.is_some())
            .map(|r| r.id)
            .expect("a completed checkpoint");
        let why = explain(&sim, &log, id).unwrap();
        assert!(why.sentences.len() >= 3, "{why:?}");
        assert!(!log.ahead.is_empty());
    }
}
