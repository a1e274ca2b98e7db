//! The words of `barrierlab explain` (and the playground's "Why was checkpoint N slow?" for an
//! opened bundle): [`explain`](super::explain::explain)'s typed answer as sentences, in the words
//! of `run --why`. Here rather than in the CLI so that both say the same.

use std::fmt::Write;

use super::explain::{
    CheckpointExplanation, CriticalSubtask, Evidence, Explanation, Phase, SubtaskLoad, SubtaskRef,
    Summary, VertexBackpressure, SLOW_PHASE_MS,
};
use super::rest::{CheckpointStatsStatus, VertexBackPressureLevel};
use crate::stats::why::text::{bytes, duration, share};

/// Control characters out of text from the bundle before it reaches a terminal.
pub fn printable(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { '\u{fffd}' } else { c })
        .collect()
}

/// Flink's milliseconds, printed as the simulator prints durations.
fn ms(ms: i64) -> String {
    if ms <= 0 {
        return "0 ms".into();
    }
    duration(ms as u64 * 1_000)
}

fn pct(part: i64, total: i64) -> String {
    share(part.max(0) as u64, total.max(0) as u64)
}

fn label(s: &SubtaskRef) -> String {
    format!("{} #{}", printable(&s.vertex_name), s.index)
}

fn level(l: Option<VertexBackPressureLevel>) -> &'static str {
    match l {
        Some(VertexBackPressureLevel::Ok) => "ok",
        Some(VertexBackPressureLevel::Low) => "low",
        Some(VertexBackPressureLevel::High) => "high",
        Some(VertexBackPressureLevel::Unknown) | None => "unknown",
    }
}

/// The whole explanation: one paragraph per checkpoint, then the summary.
pub fn render(e: &Explanation) -> String {
    let mut s = String::new();
    let interval = e.summary.interval;
    let _ = writeln!(
        s,
        "Job '{}' ({}): {} checkpoint{} with details in the bundle{}.\n",
        printable(&e.job_name),
        printable(&e.job_id),
        e.checkpoints.len(),
        if e.checkpoints.len() == 1 { "" } else { "s" },
        match (e.summary.unaligned_enabled, interval) {
            (Some(u), Some(i)) => format!(
                ", {} checkpoints every {}",
                if u { "unaligned" } else { "aligned" },
                ms(i)
            ),
            _ => String::new(),
        }
    );
    for c in &e.checkpoints {
        for line in checkpoint(c, interval) {
            let _ = writeln!(s, "{line}");
        }
        s.push('\n');
    }
    if e.checkpoints.len() > 1 {
        let _ = writeln!(s, "{}", summary(&e.summary));
    }
    s
}

/// A checkpoint's sentences: the headline, the critical subtask's phases, the evidence.
pub fn checkpoint(c: &CheckpointExplanation, interval: Option<i64>) -> Vec<String> {
    let id = c.id;
    let e2e = ms(c.end_to_end_duration);
    let of_interval = interval.map_or(String::new(), |i| {
        format!(
            ", {} of the {} interval",
            pct(c.end_to_end_duration, i),
            ms(i)
        )
    });
    let sizes = format!(
        "checkpointed size {}, state size {}",
        bytes(c.checkpointed_size),
        bytes(c.state_size)
    );
    let mut out = Vec::new();
    match c.status {
        CheckpointStatsStatus::IN_PROGRESS => {
            let waiting: Vec<String> = c.pending.iter().map(label).collect();
            out.push(format!(
                "Checkpoint {id} was still in progress when the bundle was collected: {} of {} subtasks had acknowledged, the latest {e2e} after the trigger.",
                c.num_acknowledged_subtasks, c.num_subtasks
            ));
            if !waiting.is_empty() {
                out.push(format!(
                    "  Still waiting for {}: its explanation comes with a bundle collected after it completed.",
                    waiting.join(", ")
                ));
            }
            return out;
        }
        CheckpointStatsStatus::FAILED => out.push(format!(
            "Checkpoint {id} failed {e2e} after its trigger: {}.",
            printable(c.failure_message.as_deref().unwrap_or("no reason given"))
        )),
        _ if !c.slow => out.push(format!(
            "Nothing was slow: checkpoint {id} took {e2e} end to end{of_interval}, and no subtask spent over {} in any phase ({sizes}).",
            ms(SLOW_PHASE_MS)
        )),
        _ => out.push(format!(
            "Checkpoint {id} took {e2e} end to end{of_interval} ({sizes}{}).",
            if c.unaligned {
                format!(", persisted data {}", bytes(c.persisted_data))
            } else {
                String::new()
            }
        )),
    }
    let Some(cr) = &c.critical else {
        if !c.pending.is_empty() {
            let waiting: Vec<String> = c.pending.iter().map(label).collect();
            out.push(format!("  {} never acknowledged it.", waiting.join(", ")));
        } else if let Some((_, name)) = &c.critical_vertex {
            out.push(format!(
                "  Its last acknowledgement came from {}; the bundle has no per-subtask details of it, so its phases are unknown.",
                printable(name)
            ));
        }
        return out;
    };
    let who = label(&cr.subtask);
    let breakdown = Phase::ALL
        .iter()
        .map(|p| format!("{p} {}", ms(cr.phase(*p))))
        .collect::<Vec<_>>()
        .join(", ");
    let Some(dominant) = c.dominant else {
        return out;
    };
    let total: i64 = cr.phases.iter().map(|(_, ms)| ms).sum();
    out.push(format!(
        "  Its last acknowledgement came from {who}: {breakdown}. The {dominant} phase dominated ({} of its {}).",
        pct(cr.phase(dominant), total),
        ms(total)
    ));
    if let Some(ev) = &c.evidence {
        out.push(format!("  {}", evidence(&who, cr, ev)));
    }
    out
}

fn load(l: &SubtaskLoad) -> String {
    let mut parts = Vec::new();
    if let Some(b) = l.busy_time_ms_per_second {
        parts.push(format!("busyTimeMsPerSecond {b:.0}"));
    }
    if let Some(b) = l.back_pressured_time_ms_per_second {
        parts.push(format!("backPressuredTimeMsPerSecond {b:.0}"));
    }
    if let Some(r) = l.busy_ratio {
        parts.push(format!("busyRatio {r:.2}"));
    }
    if let Some(r) = l.ratio {
        parts.push(format!("backpressure ratio {r:.2}"));
    }
    parts.join(", ")
}

fn vertex_bp(v: &VertexBackpressure) -> String {
    let edge = v
        .ship_strategy
        .as_deref()
        .map_or(String::new(), |s| format!(", {}", printable(s)));
    let ratio = v
        .max_ratio
        .map_or(String::new(), |r| format!(", ratio up to {r:.2}"));
    format!(
        "{} (backpressureLevel {}{ratio}{edge})",
        printable(&v.vertex_name),
        level(v.level)
    )
}

/// The sentence on the dominant phase, with the bundle's figures.
fn evidence(who: &str, cr: &CriticalSubtask, ev: &Evidence) -> String {
    match ev {
        Evidence::StartDelay {
            is_source: true, ..
        } => format!(
            "{who} is a source: its start delay is the trigger RPC's way to it and the wait in its mailbox until the task took it."
        ),
        Evidence::StartDelay {
            critical, upstream, ..
        } => {
            let mut s = format!(
                "Its first barrier arrived {} after the trigger: it was stuck behind the data queued ahead of it, since an aligned barrier cannot overtake records.",
                ms(cr.phase(Phase::StartDelay))
            );
            let own = load(critical);
            if !own.is_empty() {
                let _ = write!(s, " When the bundle was collected it had {own}");
                s.push_str(if critical.busy_time_ms_per_second.is_some_and(|b| b >= 900.0)
                    || critical.busy_ratio.is_some_and(|r| r >= 0.9)
                {
                    ": it cannot keep up with its input."
                } else {
                    "."
                });
            }
            let pressed: Vec<String> = upstream
                .iter()
                .filter(|u| {
                    matches!(
                        u.level,
                        Some(VertexBackPressureLevel::Low | VertexBackPressureLevel::High)
                    )
                })
                .map(vertex_bp)
                .collect();
            if !pressed.is_empty() {
                let _ = write!(
                    s,
                    " Upstream is back-pressured: {}.",
                    pressed.join("; ")
                );
            } else if !upstream.is_empty() {
                let all: Vec<String> = upstream.iter().map(vertex_bp).collect();
                let _ = write!(s, " Its inputs: {}.", all.join("; "));
            }
            s
        }
        Evidence::Alignment {
            processed,
            persisted,
            unaligned,
            ..
        } => {
            let mut s = format!(
                "{who}'s first barrier arrived {} after the trigger and its last {} after that; meanwhile the channels that had delivered theirs were blocked. It processed {} during alignment",
                ms(cr.phase(Phase::StartDelay)),
                ms(cr.phase(Phase::Alignment)),
                bytes(*processed)
            );
            if *unaligned {
                let _ = write!(s, " and persisted {} of in-flight data.", bytes(*persisted));
            } else {
                s.push_str(". Unaligned checkpoints, or an aligned checkpoint timeout (execution.checkpointing.aligned-checkpoint-timeout), avoid this wait.");
            }
            s
        }
        Evidence::Sync { sync_ms } => format!(
            "The synchronous snapshot dominated: {who}'s operators took {} in their snapshot before the task went on processing.",
            ms(*sync_ms)
        ),
        Evidence::Async {
            async_ms,
            checkpointed_size,
            state_size,
            state_backend,
            incremental,
            usual_checkpointed_size,
            reuploaded,
        } => {
            let backend = state_backend
                .as_deref()
                .map_or(String::new(), |b| format!(" ({})", printable(b)));
            let mut s = format!(
                "The asynchronous part dominated: {who} took {} uploading {} (checkpointed size) of {} of state (state size){backend}.",
                ms(*async_ms),
                bytes(*checkpointed_size),
                bytes(*state_size)
            );
            if *reuploaded {
                let _ = write!(
                    s,
                    " The checkpoint is incremental, and this one re-uploaded more than usual: {} against a median of {} in the bundle's other checkpoints (RocksDB compaction rewrote files the last checkpoint held, or a previous checkpoint failed).",
                    bytes(*checkpointed_size),
                    bytes(usual_checkpointed_size.unwrap_or(0))
                );
            } else if *incremental {
                s.push_str(" The checkpoint is incremental: it uploaded only what the last one did not hold.");
            } else {
                s.push_str(" The whole state is uploaded each time: incremental checkpoints (execution.checkpointing.incremental with RocksDB) upload only what changed.");
            }
            s
        }
        Evidence::Acknowledgement {
            ack_latency,
            after_last_ack,
        } => {
            let mut s = format!(
                "Most of the time went after {who}'s own phases: its acknowledgement reached the JobManager {} after its snapshot was done",
                ms(*ack_latency)
            );
            if *after_last_ack > 0 {
                let _ = write!(
                    s,
                    ", and the checkpoint completed {} after that acknowledgement",
                    ms(*after_last_ack)
                );
            }
            s.push_str(" (a busy JobManager, a slow RPC, or a mailbox busy between the phases).");
            s
        }
    }
}

/// The summary across the explained checkpoints, and what would help.
pub fn summary(s: &Summary) -> String {
    let Some(dominant) = s.dominant else {
        return "Summary: no checkpoint in the bundle completed with per-subtask details to explain.".into();
    };
    let count = s
        .by_phase
        .iter()
        .find(|(p, _)| *p == dominant)
        .map_or(0, |(_, n)| *n);
    let mut out = format!(
        "Summary: {dominant} dominated {count} of {} checkpoint{}",
        s.explained,
        if s.explained == 1 { "" } else { "s" }
    );
    if let Some((sub, n)) = &s.critical {
        if *n == count && count > 1 {
            let _ = write!(out, ", each at {}", label(sub));
        } else {
            let _ = write!(out, ", {n} of them at {}", label(sub));
        }
    }
    let others: Vec<String> = s
        .by_phase
        .iter()
        .filter(|(p, _)| *p != dominant)
        .map(|(p, n)| format!("{p} {n}"))
        .collect();
    if !others.is_empty() {
        let _ = write!(out, " (otherwise: {})", others.join(", "));
    }
    out.push('.');
    let unaligned = s.unaligned_enabled == Some(true);
    match dominant {
        Phase::StartDelay => {
            if !s.backpressured.is_empty() {
                let v: Vec<String> = s.backpressured.iter().map(vertex_bp).collect();
                let _ = write!(out, " The job is back-pressured: {}", v.join("; "));
                if let Some(b) = &s.busiest {
                    let busy = b
                        .busy_time_ms_per_second
                        .map(|x| format!("busyTimeMsPerSecond {x:.0}"))
                        .or(b.busy_ratio.map(|r| format!("busyRatio {r:.2}")))
                        .unwrap_or_default();
                    let _ = write!(
                        out,
                        ", behind {} ({busy}), the bottleneck",
                        label(&b.subtask)
                    );
                }
                out.push('.');
            }
            out.push_str(if unaligned {
                " Unaligned checkpoints are on already: buffer debloating (taskmanager.network.memory.buffer-debloat.enabled) would shorten the data ahead of the barriers; more parallelism or a cheaper operator at the bottleneck would remove the backpressure."
            } else {
                " Unaligned checkpoints (execution.checkpointing.unaligned.enabled) or buffer debloating (taskmanager.network.memory.buffer-debloat.enabled) would shorten the start delay; more parallelism or a cheaper operator at the bottleneck would remove the backpressure."
            });
        }
        Phase::Alignment => out.push_str(
            " Barriers arrive at different times on different channels: unaligned checkpoints (execution.checkpointing.unaligned.enabled) or an aligned checkpoint timeout (execution.checkpointing.aligned-checkpoint-timeout) avoid the wait.",
        ),
        Phase::Sync => out.push_str(
            " The synchronous snapshot blocks processing: look at the operators' snapshotState (large heap state with HashMapStateBackend, or a RocksDB memtable flush).",
        ),
        Phase::Async => out.push_str(
            " State upload dominates: the checkpoint storage's throughput and the state's size set the pace; incremental RocksDB checkpoints (execution.checkpointing.incremental) upload only what changed.",
        ),
        Phase::Acknowledgement => out.push_str(
            " The time goes after the subtasks' phases: acknowledgements waiting on a busy JobManager or a slow network.",
        ),
    }
    out
}
