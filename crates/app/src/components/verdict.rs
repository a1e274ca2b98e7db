//! The exactly-once verdict: per sink, what it made visible outside the job against what the
//! sources produced up to a consistent cut (`Simulation::verification`), green when exact, red
//! with duplicates or missing records, and one sentence on why.
//!
//! The check recomputes every record up to the cut, so it costs time proportional to the run's
//! length: it runs whenever the job is paused, stopped or changed by a jump, on "Check now", and
//! while playing only if the previous check took under `CHEAP_MS` (at most once a second).

use std::rc::Rc;

use barrierlab_engine::scenario::CheckpointingMode;
use barrierlab_engine::sim::{JobStatus, SinkVerification, Verification};
use barrierlab_engine::types::Micros;
use yew::prelude::*;

use crate::clock;
use crate::format;
use crate::job::SimRef;

/// A check this fast may run while playing.
const CHEAP_MS: f64 = 2.0;
/// Least wall-clock time between two checks while playing.
const EVERY_MS: f64 = 1_000.0;

#[derive(Properties, PartialEq)]
pub struct VerdictProps {
    pub sim: SimRef,
    pub playing: bool,
}

struct Checked {
    at: Micros,
    status: JobStatus,
    exactly_once_mode: bool,
    restored: u64,
    verification: Verification,
}

#[derive(Default)]
struct Cache {
    sim: usize,
    version: u64,
    wall_ms: f64,
    cost_ms: f64,
    checked: Option<Rc<Checked>>,
}

/// One sentence on why this sink's result is what it is.
fn explain(s: &SinkVerification, exactly_once_mode: bool, restored: u64) -> String {
    let exact = s.duplicates == 0 && s.missing == 0;
    match (s.transactional, exact) {
        (true, true) => "Exactly-once: the two-phase-commit sink makes records visible only when the checkpoint \
                         that pre-committed them completes, and commits each transaction once, so records \
                         replayed after a restore were never visible before."
            .into(),
        (true, false) if s.duplicates > 0 => "Duplicates despite two-phase commit: records reached the sink \
                         twice inside committed transactions, which happens when checkpoints do not align \
                         barriers (at-least-once) and replayed records were part of the snapshot too."
            .into(),
        (true, false) => "Missing records: transactions up to the cut are not all committed yet (a lost \
                         notification is committed on the next checkpoint or on restore)."
            .into(),
        (false, true) if restored == 0 => "Exact so far, but only because nothing failed: a plain sink \
                         writes records as they arrive, so after a restore it would write replayed records again."
            .into(),
        (false, true) => "Exact: no record written after the restored checkpoint had reached this plain sink \
                         before the failure."
            .into(),
        (false, false) if s.duplicates > 0 => format!(
            "Duplicates: a plain sink writes records as they arrive; after the restore the sources rewound \
             to the checkpoint and the replayed records were written again (at-least-once end to end{}).",
            if exactly_once_mode { "" } else { ", and the checkpoints themselves are at-least-once" }
        ),
        (false, false) => "Missing records: records before the cut have not reached the sink (they may still be \
                          in flight or in the job's buffers)."
            .into(),
    }
}

#[function_component(VerdictPanel)]
pub fn verdict_panel(p: &VerdictProps) -> Html {
    let cache = use_mut_ref(Cache::default);
    let force = use_state(|| 0u32);
    let forced = use_mut_ref(|| 0u32);
    let checked = {
        let mut c = cache.borrow_mut();
        let sim_id = p.sim.cell.id();
        let now = clock::now_ms();
        let jumped = c.sim != sim_id;
        let asked = *forced.borrow() != *force;
        let due = if p.playing {
            c.cost_ms < CHEAP_MS && now - c.wall_ms >= EVERY_MS
        } else {
            c.version != p.sim.version
        };
        if c.checked.is_none() || jumped || asked || due {
            *forced.borrow_mut() = *force;
            let sim = p.sim.borrow();
            let start = clock::now_ms();
            let verification = sim.verification();
            let end = clock::now_ms();
            c.cost_ms = end - start;
            c.wall_ms = end;
            c.sim = sim_id;
            c.version = p.sim.version;
            c.checked = Some(Rc::new(Checked {
                at: sim.now,
                status: sim.status,
                exactly_once_mode: sim.graph.config.checkpointing_mode
                    == CheckpointingMode::ExactlyOnce,
                restored: sim.coordinator.stats().counts.restored,
                verification,
            }));
        }
        c.checked.clone()
    };
    let check_now = {
        let force = force.clone();
        Callback::from(move |_: MouseEvent| force.set(force.wrapping_add(1)))
    };
    let Some(c) = checked else {
        return html! {};
    };
    let v = &c.verification;
    let exact = v.duplicates == 0 && v.missing == 0;
    // A discard sink writes nothing outside the job: there is no verdict to give.
    let nothing = v.sinks.is_empty();
    // The mode the job ran in, named as Flink's key writes it: an AT_LEAST_ONCE job's output is
    // judged by the same exactly-once count, which it does not promise to pass.
    let (mode, judged) = if c.exactly_once_mode {
        (
            "EXACTLY_ONCE",
            "Judged for a job checkpointing EXACTLY_ONCE (execution.checkpointing.mode).",
        )
    } else {
        (
            "AT_LEAST_ONCE",
            "Judged for a job checkpointing AT_LEAST_ONCE (execution.checkpointing.mode): barriers are \
             not aligned, so after a restore records may count twice; the job promises at-least-once, \
             and this checks whether its output is exactly once anyway.",
        )
    };
    html! {
        <div class="verdict" id="verdict" data-exact={exact.to_string()} data-mode={mode}>
            <div class="verdict-head">
                <span class={classes!("verdict-badge", if nothing { "none" } else if exact { "exact" } else { "broken" })} id="verdict-badge">
                    { if nothing { "NOTHING TO VERIFY" } else if exact { "EXACTLY ONCE" } else if v.duplicates > 0 { "DUPLICATES" } else { "MISSING RECORDS" } }
                </span>
                <span class="muted" id="verdict-when">
                    { format!("as of t = {} ({}){}", format::sim_time(c.at), c.status.flink_name(),
                        if p.playing { " · updates while playing when cheap" } else { "" }) }
                </span>
                <button id="verdict-check" onclick={check_now} title="Recompute the verdict at the current time">{ "Check now" }</button>
            </div>
            if !nothing || !v.state.is_empty() {
                <p class="muted verdict-mode" id="verdict-mode">{ judged }</p>
            }
            if v.sinks.is_empty() {
                <p class="empty">{ "No sink here writes to an external system (a discard sink keeps nothing), so there is no output to check. Try seed-2pc." }</p>
            } else {
                <table class="data" id="verdict-table">
                    <thead><tr>
                        <th>{ "Sink" }</th><th>{ "Basis" }</th><th>{ "Expected" }</th>
                        <th>{ "Committed" }</th><th>{ "Duplicates" }</th><th>{ "Missing" }</th>
                    </tr></thead>
                    <tbody>
                        { for v.sinks.iter().map(|s| {
                            let ok = s.duplicates == 0 && s.missing == 0;
                            html! {
                                <>
                                    <tr class={classes!("sink-row", if ok { "exact" } else { "broken" })} data-sink={s.sink.clone()}>
                                        <th scope="row">
                                            { s.sink.clone() }
                                            <span class="muted sink-kind">{ if s.transactional { "two-phase commit" } else { "plain sink" } }</span>
                                        </th>
                                        <td>{ s.basis.clone() }</td>
                                        <td class="expected">{ s.expected_records }</td>
                                        <td class="committed">{ s.committed_records }</td>
                                        <td class="duplicates">{ s.duplicates }</td>
                                        <td class="missing">{ s.missing }</td>
                                    </tr>
                                    <tr class="why-row"><td colspan="6" class="why-sentence">{ explain(s, c.exactly_once_mode, c.restored) }</td></tr>
                                </>
                            }
                        }) }
                    </tbody>
                </table>
            }
            if !v.state.is_empty() {
                <ul class="state-check" id="verdict-state">
                    { for v.state.iter().map(|s| html! {
                        <li class={if s.counted == s.expected { "exact" } else { "broken" }}>
                            { format!("{}: keyed counts sum to {}, {} records reached it{}", s.operator, s.counted, s.expected,
                                if s.counted > s.expected { " (over-counted: records replayed into the state)" } else { "" }) }
                        </li>
                    }) }
                </ul>
            }
            if !v.unverifiable.is_empty() {
                <p class="muted">{ format!("Not verified: {}", v.unverifiable.join("; ")) }</p>
            }
            <p class="muted note">
                { "Basis: the newest checkpoint every two-phase-commit subtask committed (or the newest completed one for a plain sink), or all input once the job finished." }
            </p>
        </div>
    }
}
