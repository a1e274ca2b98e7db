//! The engine's trace, newest last: simulated time, subtask, what happened and the Flink class
//! and method it stands for, linked to its line of Flink 2.3.0's source on GitHub
//! (`trace::SOURCES`). A click on a line time-travels to that event. Renders at most the last
//! `MAX_LINES` matches of the text filter.

use web_sys::HtmlInputElement;
use yew::prelude::*;

use barrierlab_engine::trace::{FlinkSource, TraceKind};
use barrierlab_engine::types::Micros;

use crate::clock;
use crate::derived::Pace;
use crate::format;
use crate::job::SimRef;
use crate::model::subtask_label;

/// Lines rendered at most.
pub const MAX_LINES: usize = 300;
/// Newest trace events a filter looks through.
const SCAN: usize = 5_000;

/// Wall-clock milliseconds between two event log refreshes above 2× speed (or when busy).
const LOG_REFRESH_MS: f64 = 250.0;
/// The same at maximum speed (or while a re-run catches up).
const LOG_REFRESH_MAX_MS: f64 = 1_000.0;
/// Event log lines while playing fast: nobody reads them at that pace, and each refresh
/// replaces all of them.
const FAST_LOG_LINES: usize = 80;

/// Trace events between two refreshes above which the log counts as fast whatever the speed: a
/// large job at 1x writes thousands a tick, and redrawing every line each tick takes the frame.
const BUSY_EVENTS: u64 = 100;

/// What the event log shows of `sim` at `pace`: at high speeds (or when the job writes many
/// events a tick) every line changes every tick, so the log is refreshed a few times a second
/// (the returned version moves only then) and shows fewer lines.
#[hook]
pub fn use_log_view(sim: SimRef, pace: Pace) -> (SimRef, usize) {
    // (wall-clock ms, version, trace events) at the last refresh
    let last = use_mut_ref(|| (0.0f64, 0u64, 0u64));
    let mut last = last.borrow_mut();
    let now = clock::now_ms();
    let total = sim.borrow().trace.total();
    let busy = total.saturating_sub(last.2) > BUSY_EVENTS;
    let fast = busy || pace.speed.micros_per_ms().is_none_or(|m| m > 2_000.0);
    let every = if pace.speed.micros_per_ms().is_none() || pace.catching_up {
        LOG_REFRESH_MAX_MS
    } else {
        LOG_REFRESH_MS
    };
    if !pace.playing || !fast || now - last.0 >= every || last.1 > sim.version {
        *last = (now, sim.version, total);
    }
    let lines = if (pace.playing || pace.catching_up) && fast {
        FAST_LOG_LINES
    } else {
        MAX_LINES
    };
    (
        SimRef {
            version: last.1,
            ..sim
        },
        lines,
    )
}

#[derive(Properties, PartialEq)]
pub struct EventLogProps {
    /// Its version is the job's, throttled while playing fast.
    pub sim: SimRef,
    /// Lines rendered at most (fewer while playing fast).
    pub lines: usize,
    /// A line was clicked: time travel to its simulated time (µs). The same callback from render
    /// to render: a new one would re-render the log.
    pub onseek: Callback<Micros>,
    /// The trace event to highlight (the last step to a checkpoint phase stopped there).
    #[prop_or_default]
    pub marked: Option<u64>,
}

struct Line {
    seq: u64,
    at: Micros,
    time: String,
    who: String,
    what: String,
    /// Class#method, file, line and link: static, so a line costs no allocation for it.
    source: &'static FlinkSource,
    jobmanager: bool,
    /// Failure, restart or restore: highlighted.
    failover: Option<&'static str>,
}

#[function_component(EventLog)]
pub fn event_log(p: &EventLogProps) -> Html {
    let filter = use_state(String::new);
    let oninput = {
        let filter = filter.clone();
        Callback::from(move |e: InputEvent| {
            let input: HtmlInputElement = e.target_unchecked_into();
            filter.set(input.value());
        })
    };

    let sim = p.sim.borrow();
    let names = sim.vertex_names();
    let needle = filter.trim().to_ascii_lowercase();
    let total = sim.trace.total();
    // Newest first in the DOM: the list is `column-reverse`, so the newest line shows last and
    // the browser keeps the view pinned to it without reading layout from script.
    let lines: Vec<Line> = sim
        .trace
        .events()
        .rev()
        .take(if needle.is_empty() { p.lines } else { SCAN })
        .filter_map(|e| {
            let who = match e.task {
                Some(t) => subtask_label(
                    names.get(t.vertex as usize).map_or("?", String::as_str),
                    t.subtask,
                ),
                None => "JobManager".to_string(),
            };
            let what = match &e.kind {
                TraceKind::RestartScheduled { delay } => format!(
                    "job failed over: RESTARTING, restart in {} (restart strategy delay)",
                    format::micros(*delay)
                ),
                TraceKind::Restored { id } => format!("job restored from checkpoint {id}: RUNNING"),
                other => other.describe(),
            };
            let source = e.kind.source();
            if !needle.is_empty() {
                let hay = format!("{who} {what} {}", source.label).to_ascii_lowercase();
                if !hay.contains(&needle) {
                    return None;
                }
            }
            Some(Line {
                seq: e.seq,
                at: e.time,
                time: format::sim_time(e.time),
                who,
                what,
                source,
                jobmanager: e.task.is_none(),
                failover: match e.kind {
                    TraceKind::JobFailed { .. } => Some("failed"),
                    TraceKind::RestartScheduled { .. } => Some("restart"),
                    TraceKind::Restored { .. } => Some("restored"),
                    _ => None,
                },
            })
        })
        .take(p.lines)
        .collect();
    let shown = lines.len();
    // The line clicked last stays highlighted (sequence numbers survive time travel: the same
    // run re-traces the same events).
    let clicked = use_state(|| None::<u64>);
    let marked = p.marked.or(*clicked);
    // A source link opens GitHub and leaves the time cursor where it is: the click (or Enter on the
    // focused link) stops before the line's time travel. One callback, shared by every link and
    // kept across renders (so the links' listeners are not replaced on every refresh).
    let open_source = use_callback((), |e: MouseEvent, _| e.stop_propagation());

    html! {
        <div class="event-log">
            <div class="log-toolbar">
                <input id="log-filter" type="search" placeholder="Filter: barrier, checkpoint 3, count-per-key #1, CheckpointCoordinator…"
                       aria-label="Filter the event log" value={(*filter).clone()} oninput={oninput} />
                <span class="muted" id="log-count">
                    { format!("{shown} shown · {total} events traced") }
                </span>
            </div>
            <span id="flink-source-hint" hidden=true>{ "opens Flink 2.3.0's source at this line on GitHub, in a new tab" }</span>
            <ol class="log" aria-live="off">
                { for lines.into_iter().map(|l| {
                    let onclick = {
                        let (onseek, clicked, seq, at) = (p.onseek.clone(), clicked.clone(), l.seq, l.at);
                        Callback::from(move |_: MouseEvent| {
                            clicked.set(Some(seq));
                            onseek.emit(at);
                        })
                    };
                    html! {
                    <li key={l.seq} data-seq={l.seq.to_string()} data-time={l.at.to_string()} onclick={onclick}
                        class={classes!("log-line", l.jobmanager.then_some("jm"), l.failover.map(|f| format!("failover {f}")), (marked == Some(l.seq)).then_some("cursor"))}>
                        // A button, so the keyboard reaches every line (Enter/Space click it).
                        <button class="t" title="Move the time cursor to this event (time travel)">{ l.time }</button>
                        <span class="who" title={l.who.clone()}>{ l.who }</span>
                        <span class="what">{ l.what }</span>
                        <a class="flink" href={l.source.url} target="_blank" rel="noopener"
                           title={l.source.title} aria-describedby="flink-source-hint"
                           onclick={open_source.clone()}>{ l.source.label }</a>
                    </li>
                } }) }
            </ol>
        </div>
    }
}
