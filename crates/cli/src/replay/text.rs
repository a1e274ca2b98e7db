//! The per-step listing: a header line per step (index, clock, the step as written), one line per
//! emitted item (time, cause, what), then the machine's state.

use std::fmt::Write;

use barrierlab_engine::replay::{
    CoordinatorSnapshot, DeciderSnapshot, Emitted, FailureManagerSnapshot, HandlerSnapshot,
    Machine, MachineState, ReplayReport, Via,
};

use super::effects::{effect, props, request_props, time, timer};

pub fn render(path: &str, report: &ReplayReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "replay {path}: machine {} ({}), {} steps",
        report.machine.name(),
        flink_class(report.machine),
        report.steps.len()
    );
    section(
        &mut out,
        "start",
        report.start.time,
        "",
        &report.start.effects,
        &report.start.state,
    );
    for step in &report.steps {
        section(
            &mut out,
            &format!("step {}", step.step),
            step.time,
            &step.input.to_string(),
            &step.effects,
            &step.state,
        );
    }
    expectations(&mut out, report);
    // No trailing newline: the caller prints one.
    out.truncate(out.trim_end().len());
    out
}

/// The `expect` steps: one line each, and every failure under its step.
fn expectations(out: &mut String, report: &ReplayReport) {
    if report.expectations.is_empty() {
        return;
    }
    let failed = report.failed_expectations().count();
    let _ = writeln!(
        out,
        "\nexpectations: {} of {} held{}",
        report.expectations.len() - failed,
        report.expectations.len(),
        report
            .from
            .as_ref()
            .map_or(String::new(), |f| format!(" (from {f})"))
    );
    for e in &report.expectations {
        let after = e.after.map_or("the start".into(), |i| format!("step {i}"));
        let verdict = if e.passed() { "ok" } else { "FAILED" };
        let note = e.note.as_ref().map_or(String::new(), |n| format!(": {n}"));
        let _ = writeln!(out, "  step {:<3} on {after:<9} {verdict}{note}", e.step);
        for f in &e.failures {
            let _ = writeln!(out, "      {f}");
        }
    }
    if let Some(d) = &report.differs {
        let _ = writeln!(out, "  differs from Flink: {d}");
    }
}

fn flink_class(m: Machine) -> &'static str {
    match m {
        Machine::Aligned => "SingleCheckpointBarrierHandler.aligned",
        Machine::Unaligned => "SingleCheckpointBarrierHandler.unaligned",
        Machine::AlignedWithTimeout => "SingleCheckpointBarrierHandler.alternating",
        Machine::AtLeastOnce => "CheckpointBarrierTracker",
        Machine::Coordinator => "CheckpointCoordinator",
        Machine::RequestDecider => "CheckpointRequestDecider",
        Machine::FailureManager => "CheckpointFailureManager",
    }
}

fn section(
    out: &mut String,
    title: &str,
    at: u64,
    input: &str,
    effects: &[Emitted],
    state: &MachineState,
) {
    let header = format!("{title:<8} t={:<8} {input}", time(at));
    let _ = writeln!(out, "\n{}", header.trim_end());
    if effects.is_empty() {
        let _ = writeln!(out, "  {:>8}  {:<8}  (nothing emitted)", "", "");
    }
    for e in effects {
        let via = match e.via {
            Via::Input => "input",
            Via::Timer => "timer",
            Via::Released => "released",
        };
        let _ = writeln!(out, "  {:>8}  {via:<8}  {}", time(e.at), effect(&e.effect));
    }
    match state {
        MachineState::Handler(h) => handler_state(out, h),
        MachineState::Coordinator(c) => coordinator_state(out, c),
        MachineState::Decider(d) => decider_state(out, d),
        MachineState::FailureManager(f) => failure_state(out, f),
    }
}

const STATE: &str = "  state     ";
const MORE: &str = "            ";

fn handler_state(out: &mut String, h: &HandlerSnapshot) {
    let _ = writeln!(
        out,
        "{STATE}{} | checkpoint {} | pending {} | blocked {} | aligned {} | open {}/{}",
        h.state,
        h.current_checkpoint
            .map_or("-".into(), |id| format!("#{id}")),
        ids(&h.pending_checkpoints),
        channels(&h.blocked_channels),
        channels(&h.aligned_channels),
        h.open_channels,
        h.channels
    );
    let mut extra = Vec::new();
    if !h.announced.is_empty() {
        let parts: Vec<String> = h
            .announced
            .iter()
            .map(|a| format!("ch{} (seq {})", a.channel, a.sequence_number))
            .collect();
        extra.push(format!("announced {}", parts.join(" ")));
    }
    if !h.persisting_channels.is_empty() {
        extra.push(format!("persisting {}", channels(&h.persisting_channels)));
    }
    if !h.persisted.is_empty() {
        let parts: Vec<String> = h
            .persisted
            .iter()
            .map(|p| format!("#{} ch{}={} B", p.checkpoint, p.channel, p.bytes))
            .collect();
        extra.push(format!("persisted {}", parts.join(" ")));
    }
    if let Some(t) = h.alignment_timer {
        extra.push(format!("alignment timer #{} at {}", t.id, time(t.fire_at)));
    }
    if let Some(g) = &h.gate {
        for q in &g.queues {
            let items: Vec<String> = q
                .items
                .iter()
                .map(|item| {
                    let prio = if item.priority { "!" } else { "" };
                    format!("{prio}{}", item.sequence_number)
                })
                .collect();
            extra.push(format!("queue ch{}: [{}]", q.channel, items.join(" ")));
        }
        for w in &g.written {
            extra.push(format!(
                "written #{} ch{}: {} buffer(s) {} B",
                w.checkpoint, w.channel, w.buffers, w.bytes
            ));
        }
    }
    for held in &h.held {
        extra.push(format!(
            "held ch{}: {} event(s)",
            held.channel,
            held.inputs.len()
        ));
    }
    if !extra.is_empty() {
        let _ = writeln!(out, "{MORE}{}", extra.join(" | "));
    }
}

fn coordinator_state(out: &mut String, c: &CoordinatorSnapshot) {
    let pending: Vec<String> = c
        .pending
        .iter()
        .map(|p| {
            let waiting = if p.waiting_for.is_empty() {
                String::new()
            } else {
                format!(" waiting {}", p.waiting_for.join(" "))
            };
            format!(
                "#{} {} acked {}/{}{waiting}",
                p.id,
                props(&p.props),
                p.acknowledged,
                p.total
            )
        })
        .collect();
    let _ = writeln!(
        out,
        "{STATE}pending {}",
        if pending.is_empty() {
            "-".into()
        } else {
            pending.join("; ")
        }
    );
    let queued: Vec<String> = c.queued.iter().map(|q| props(&q.props)).collect();
    let tolerable = if c.tolerable_failed_checkpoints == u32::MAX {
        "unlimited".to_string()
    } else {
        c.tolerable_failed_checkpoints.to_string()
    };
    let _ = writeln!(
        out,
        "{MORE}queued [{}] | failures {} (tolerable {tolerable}) | latest completed {} | retained {} | next id #{}",
        queued.join(", "),
        c.failure_counter,
        c.latest_completed.map_or("-".into(), |id| format!("#{id}")),
        ids(&c.retained),
        c.next_checkpoint_id
    );
    match c.triggering {
        Some(id) if c.pending.iter().any(|p| p.id == id) => {
            let _ = writeln!(out, "{MORE}triggering #{id} (asynchronous, not finished)");
        }
        Some(id) => {
            let _ = writeln!(
                out,
                "{MORE}triggering #{id} (aborted; the triggering ends at trigger_done)"
            );
        }
        None if c.is_triggering => {
            let _ = writeln!(
                out,
                "{MORE}triggering a request that failed before it got an id (reported at trigger_done)"
            );
        }
        None => {}
    }
    let mut armed: Vec<String> = c
        .failing_calls
        .iter()
        .map(|f| {
            let call = serde_json::to_value(f.call)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            format!("{call} throws {} ({}x)", f.exception, f.times)
        })
        .collect();
    if c.stop_scheduler_during.is_some() {
        armed.push("checkpoint_id_counter stops the scheduler".into());
    }
    if !armed.is_empty() {
        let _ = writeln!(out, "{MORE}failing next: {}", armed.join(", "));
    }
    let timers: Vec<String> = c
        .timers
        .iter()
        .map(|t| format!("{} at {}", timer(&t.timer), time(t.at)))
        .collect();
    let _ = writeln!(
        out,
        "{MORE}timers [{}] | periodic scheduling {}",
        timers.join(", "),
        if c.periodic_scheduling { "on" } else { "off" }
    );
    if let Some(reason) = &c.job_failed {
        let _ = writeln!(out, "{MORE}JOB FAILED: {reason}");
    }
}

fn decider_state(out: &mut String, d: &DeciderSnapshot) {
    let queued: Vec<String> = d
        .queue
        .iter()
        .map(|q| format!("{} {}", q.seq, request_props(&q.props)))
        .collect();
    let c = &d.context;
    let _ = writeln!(
        out,
        "{STATE}queue [{}] | pending {}/{} | triggering {} | cleaning {} | last completion {}",
        queued.join(", "),
        c.pending,
        d.max_concurrent,
        if c.is_triggering { "yes" } else { "no" },
        c.cleaning,
        c.last_completion.map_or("-".into(), time)
    );
}

fn failure_state(out: &mut String, f: &FailureManagerSnapshot) {
    let tolerable = if f.tolerable_failed_checkpoints == u32::MAX {
        "unlimited".to_string()
    } else {
        f.tolerable_failed_checkpoints.to_string()
    };
    let _ = writeln!(
        out,
        "{STATE}failures {} (tolerable {tolerable}) | counted {} | last succeeded {}",
        f.continuous_failure_counter,
        ids(&f.counted_checkpoint_ids),
        f.last_succeeded_checkpoint_id
            .map_or("-".into(), |id| format!("#{id}"))
    );
}

fn ids(ids: &[u64]) -> String {
    let v: Vec<String> = ids.iter().map(|id| format!("#{id}")).collect();
    format!("[{}]", v.join(" "))
}

fn channels(chs: &[u32]) -> String {
    let v: Vec<String> = chs.iter().map(|c| format!("ch{c}")).collect();
    format!("[{}]", v.join(" "))
}
