//! Flink's BackPressure tab for every subtask at once (busy, backpressured and idle time of the
//! last complete second, the `busyTimeMsPerSecond` family of metrics), and the TaskManagers with
//! the slots each subtask runs in.

use std::rc::Rc;

use yew::prelude::*;

use crate::model::graph::{level_rank, GraphModel, SubtaskModel, VertexModel};
use crate::model::subtask_label;

#[derive(Properties, PartialEq)]
pub struct BackpressureProps {
    pub graph: Rc<GraphModel>,
}

fn pct(ratio: f64) -> String {
    format!("{:.0} %", ratio * 100.0)
}

/// The three ratios as one bar, in the Web UI's colours (busy red, backpressured black, idle blue).
fn bar(busy: f64, backpressured: f64, idle: f64) -> Html {
    let w = |r: f64| format!("width: {:.1}%", r * 100.0);
    html! {
        <span class="ratio-bar" aria-hidden="true">
            <span class="busy" style={w(busy)} />
            <span class="backpressured" style={w(backpressured)} />
            <span class="idle" style={w(idle)} />
        </span>
    }
}

/// Above this many subtasks the table lists each vertex once and only the most backpressured
/// subtasks (thousands of rows redrawn every frame would stall the page).
pub const MAX_SUBTASK_ROWS: usize = 256;
/// The subtasks a large job's table lists, worst first.
const TOP_SUBTASKS: usize = 50;

fn subtask_row(v: &VertexModel, s: &SubtaskModel) -> Html {
    let level = s.level.to_ascii_uppercase();
    html! {
        <tr data-vertex={v.id.to_string()} data-subtask={s.index.to_string()}>
            <td class="name" title={v.name.clone()}>{ subtask_label(&v.name, s.index) }</td>
            <td><span class={classes!("bp-level", s.level)}>{ level }</span></td>
            <td class="busy-ratio">{ pct(s.busy) }</td>
            <td class="backpressured-ratio">{ pct(s.backpressured) }</td>
            <td class="idle-ratio">{ pct(s.idle) }</td>
            <td>{ bar(s.busy, s.backpressured, s.idle) }</td>
        </tr>
    }
}

/// A vertex in one row: its worst level (as Flink's vertex backpressure level) and mean ratios.
fn vertex_row(v: &VertexModel) -> Html {
    let n = v.subtasks.len().max(1) as f64;
    let mean = |f: fn(&SubtaskModel) -> f64| v.subtasks.iter().map(f).sum::<f64>() / n;
    let (busy, bp, idle) = (
        mean(|s| s.busy),
        mean(|s| s.backpressured),
        mean(|s| s.idle),
    );
    let worst = v
        .subtasks
        .iter()
        .map(|s| s.level)
        .max_by_key(|l| level_rank(l))
        .unwrap_or("ok");
    let high = v.subtasks.iter().filter(|s| s.level == "high").count();
    html! {
        <tr class="vertex-row" data-vertex={v.id.to_string()}>
            <td class="name" title={v.name.clone()}>{ format!("{} ({} subtasks, {high} HIGH)", v.name, v.subtasks.len()) }</td>
            <td><span class={classes!("bp-level", worst)}>{ worst.to_ascii_uppercase() }</span></td>
            <td class="busy-ratio">{ pct(busy) }</td>
            <td class="backpressured-ratio">{ pct(bp) }</td>
            <td class="idle-ratio">{ pct(idle) }</td>
            <td>{ bar(busy, bp, idle) }</td>
        </tr>
    }
}

#[function_component(BackpressurePanel)]
pub fn backpressure_panel(p: &BackpressureProps) -> Html {
    let all = || {
        p.graph
            .vertices
            .iter()
            .flat_map(|v| v.subtasks.iter().map(move |s| (v, s)))
    };
    let total = all().count();
    let large = total > MAX_SUBTASK_ROWS;
    let rows: Vec<(&VertexModel, &SubtaskModel)> = if large {
        let mut worst: Vec<_> = all().collect();
        worst.sort_by(|(_, a), (_, b)| {
            b.backpressured
                .total_cmp(&a.backpressured)
                .then(b.busy.total_cmp(&a.busy))
        });
        worst.truncate(TOP_SUBTASKS);
        worst
    } else {
        all().collect()
    };
    html! {
        <div class="table-scroll">
            if large {
                <p class="muted" id="backpressure-summary">
                    { format!("{total} subtasks: each vertex, then the {} most backpressured subtasks.", rows.len()) }
                </p>
            }
            <table class="data" id="backpressure-table">
                <thead>
                    <tr>
                        <th>{ "Subtask" }</th><th title="OK ≤ 10 %, LOW ≤ 50 %, HIGH above (backpressured time)">{ "Backpressure" }</th>
                        <th>{ "Busy" }</th><th>{ "Backpressured" }</th><th>{ "Idle" }</th><th />
                    </tr>
                </thead>
                <tbody>
                    if large {
                        { for p.graph.vertices.iter().map(vertex_row) }
                    }
                    { for rows.into_iter().map(|(v, s)| subtask_row(v, s)) }
                </tbody>
            </table>
            <p class="muted" id="backpressure-note">
                { "Time in the last second. Flink's REST API and Web UI read these gauges as means \
                   over up to 60 s whose first 5 s slot holds 5-10 s, so for a job's first minute \
                   they still show its first seconds (as " }
                <code>{ "barrierlab run --format json" }</code>
                { " reports them)." }
            </p>
        </div>
    }
}

/// One TaskManager and the subtasks in each of its slots.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskManagerView {
    pub slots: u32,
    /// Per slot: the subtasks sharing it (Flink's default slot sharing group puts subtask i of
    /// every vertex into one slot).
    pub slot_subtasks: Vec<Vec<String>>,
}

#[derive(Properties, PartialEq)]
pub struct TaskManagersProps {
    pub taskmanagers: Rc<Vec<TaskManagerView>>,
}

#[function_component(TaskManagersPanel)]
pub fn taskmanagers_panel(p: &TaskManagersProps) -> Html {
    html! {
        <div class="taskmanagers" id="taskmanagers">
            { for p.taskmanagers.iter().enumerate().map(|(i, tm)| {
                let used = tm.slot_subtasks.iter().filter(|s| !s.is_empty()).count();
                html! {
                    <section class="taskmanager" data-taskmanager={i.to_string()}>
                        <h4>{ format!("TaskManager {i}") }<span class="muted">{ format!(" · {used} of {} slots used", tm.slots) }</span></h4>
                        <ol class="slots">
                            { for tm.slot_subtasks.iter().enumerate().map(|(slot, subtasks)| html! {
                                <li class={classes!("slot", subtasks.is_empty().then_some("free"))} data-slot={slot.to_string()}>
                                    <span class="slot-name">{ format!("slot {slot}") }</span>
                                    if subtasks.is_empty() {
                                        <span class="muted">{ "free" }</span>
                                    } else {
                                        { for subtasks.iter().map(|s| html! { <span class="slot-subtask">{ s.clone() }</span> }) }
                                    }
                                </li>
                            }) }
                        </ol>
                    </section>
                }
            }) }
        </div>
    }
}
