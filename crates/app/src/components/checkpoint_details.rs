//! One checkpoint's details, per operator (job vertex) and per subtask, from the report's
//! `subtasks[id]` (Flink's `/jobs/:id/checkpoints/details/:cid/subtasks/:vid`).

use std::rc::Rc;

use barrierlab_engine::stats::rest_details::TaskSubtaskSummary;
use barrierlab_engine::stats::{StatsSummaryDto, SubtaskCheckpointStatistics};
use yew::prelude::*;

use crate::derived::ReportRef;
use crate::format::{bytes, rest_millis, rest_time};

/// Per (checkpoint, vertex name), by subtask index: sync, async, alignment and start delay in µs,
/// from the engine's statistics, so the table shows what the why panel shows ("120 µs", not
/// "0 ms"; the REST figure in whole milliseconds is the cell's title). One entry a vertex, not a
/// subtask: rebuilt whenever the history moves, a key a subtask made the 4096-subtask job's
/// renders clone and compare 40 000 names.
pub type PhaseMicros = std::collections::BTreeMap<(u64, String), Vec<Option<[u64; 4]>>>;

#[derive(Properties, PartialEq)]
pub struct DetailsProps {
    pub id: u64,
    pub report: ReportRef,
    /// Vertex names in job graph order (the report's map is alphabetical).
    pub order: Vec<String>,
    #[prop_or_default]
    pub phases: Rc<PhaseMicros>,
}

/// A phase cell: µs precision when the engine's figure is known, else the REST milliseconds.
fn phase_cell(rest_ms: i64, us: Option<u64>) -> Html {
    let rest = rest_millis(rest_ms);
    match us {
        Some(us) => {
            html! { <td title={format!("REST: {rest}")}>{ crate::format::micros(us) }</td> }
        }
        None => html! { <td>{ rest }</td> },
    }
}

fn subtask_index(st: &SubtaskCheckpointStatistics) -> u32 {
    match st {
        SubtaskCheckpointStatistics::Completed { index, .. }
        | SubtaskCheckpointStatistics::Pending { index, .. } => *index,
    }
}

fn subtask_row(st: &SubtaskCheckpointStatistics, phases: Option<&[u64; 4]>) -> Html {
    let SubtaskCheckpointStatistics::Completed {
        index,
        ack_timestamp,
        end_to_end_duration,
        checkpointed_size,
        checkpoint,
        alignment: al,
        start_delay,
        unaligned_checkpoint,
        aborted,
        ..
    } = st
    else {
        return html! {
            <tr class="subtask-row pending">
                <td>{ subtask_index(st) }</td>
                <td colspan="10" class="muted">{ "pending: not acknowledged yet" }</td>
            </tr>
        };
    };
    html! {
        <tr class="subtask-row">
            <td>{ index }</td>
            <td class="opt">{ rest_time(*ack_timestamp) }</td>
            <td>{ rest_millis(*end_to_end_duration) }</td>
            <td>{ bytes(*checkpointed_size) }</td>
            { phase_cell(checkpoint.sync, phases.map(|p| p[0])) }
            { phase_cell(checkpoint.async_, phases.map(|p| p[1])) }
            { phase_cell(al.duration, phases.map(|p| p[2])) }
            { phase_cell(*start_delay, phases.map(|p| p[3])) }
            <td>{ format!("{} ({})", bytes(al.processed), bytes(al.persisted)) }</td>
            <td class="opt">{ if *unaligned_checkpoint { "yes" } else { "no" } }</td>
            <td class="opt">{ if *aborted { "yes" } else { "no" } }</td>
        </tr>
    }
}

/// The operator's min/avg/max over its subtasks, as the Web UI's "Summary" rows above the
/// subtask list (`TaskCheckpointStatisticsWithSubtaskDetails.summary`).
fn operator_summary(sum: &TaskSubtaskSummary) -> Html {
    let ms = rest_millis;
    let by = |x: i64| -> String { bytes(u64::try_from(x).unwrap_or(0)) };
    let row = |label: &str, stat: fn(&StatsSummaryDto) -> i64| {
        let al = &sum.alignment;
        html! {
            <tr>
                <th scope="row">{ label.to_string() }</th>
                <td>{ ms(stat(&sum.end_to_end_duration)) }</td>
                <td>{ by(stat(&sum.checkpointed_size)) }</td>
                <td class="opt">{ by(stat(&sum.state_size)) }</td>
                <td>{ ms(stat(&sum.checkpoint_duration.sync)) }</td>
                <td>{ ms(stat(&sum.checkpoint_duration.async_)) }</td>
                <td>{ ms(stat(&al.duration)) }</td>
                <td>{ ms(stat(&sum.start_delay)) }</td>
                <td>{ format!("{} ({})", by(stat(&al.processed)), by(stat(&al.persisted))) }</td>
            </tr>
        }
    };
    html! {
        <table class="data operator-summary">
            <thead>
                <tr>
                    <th>{ "Summary" }</th><th>{ "End to End" }</th><th>{ "Checkpointed Size" }</th>
                    <th class="opt">{ "Full Size" }</th><th>{ "Sync" }</th><th>{ "Async" }</th><th>{ "Alignment" }</th>
                    <th>{ "Start Delay" }</th><th>{ "Processed (Persisted)" }</th>
                </tr>
            </thead>
            <tbody>
                { row("Minimum", |s| s.min) }
                { row("Average", |s| s.avg) }
                { row("Maximum", |s| s.max) }
            </tbody>
        </table>
    }
}

/// Subtask rows an operator lists at a time; a larger one pages through them.
const SUBTASKS_PER_PAGE: usize = 128;

/// "Subtasks 128–255 of 512" with buttons to the previous and next page.
fn pager(
    name: &str,
    first: usize,
    total: usize,
    pages: &UseStateHandle<std::collections::BTreeMap<String, usize>>,
) -> Html {
    let go = |to: usize| {
        let (pages, name) = (pages.clone(), name.to_string());
        Callback::from(move |_: MouseEvent| {
            let mut next = (*pages).clone();
            next.insert(name.clone(), to);
            pages.set(next);
        })
    };
    let last = (first + SUBTASKS_PER_PAGE).min(total);
    html! {
        <div class="subtask-pager" role="group" aria-label="Subtask pages">
            <button class="pager-prev" disabled={first == 0}
                    onclick={go(first.saturating_sub(SUBTASKS_PER_PAGE))}>{ "◀ Previous" }</button>
            <span class="muted">{ format!("subtasks {first}–{} of {total}", last - 1) }</span>
            <button class="pager-next" disabled={last >= total} onclick={go(last)}>{ "Next ▶" }</button>
        </div>
    }
}

#[function_component(CheckpointDetails)]
pub fn checkpoint_details(p: &DetailsProps) -> Html {
    let expanded = use_state(Vec::<String>::new);
    // The first subtask row shown, per operator of more than a page.
    let pages = use_state(std::collections::BTreeMap::<String, usize>::new);
    let report = &p.report.0;
    let Some(map) = report.subtasks.get(&p.id) else {
        return html! {
            <p class="empty" id="checkpoint-details">
                { format!("Checkpoint {} is no longer in the history.", p.id) }
            </p>
        };
    };
    // The map is keyed by JobVertexID, as Flink's REST API keys it; `job.vertices` names them.
    let vertices = report.job.vertices.as_slice();
    let label = |id: &str| -> String {
        vertices
            .iter()
            .find(|v| v.id == id)
            .map(|v| v.name.clone())
            .unwrap_or_else(|| id.to_string())
    };
    let id_of = |name: &String| -> Option<String> {
        vertices
            .iter()
            .find(|v| v.name == *name)
            .map(|v| v.id.clone())
    };
    let mut names: Vec<String> = p
        .order
        .iter()
        .filter_map(id_of)
        .filter(|id| map.contains_key(id))
        .collect();
    for k in map.keys() {
        if !names.contains(k) {
            names.push(k.clone());
        }
    }
    html! {
        <div id="checkpoint-details" class="details">
            <h3>{ format!("Checkpoint {} — operators", p.id) }</h3>
            <div class="table-scroll">
                <table class="data">
                    <thead>
                        <tr>
                            <th>{ "Operator" }</th><th>{ "Status" }</th><th>{ "Acknowledged" }</th>
                            <th class="opt">{ "Latest Ack" }</th><th>{ "End to End" }</th><th>{ "Checkpointed Size" }</th>
                            <th>{ "Processed (Persisted)" }</th>
                        </tr>
                    </thead>
                    { for names.iter().map(|name| {
                        let v = &map[name.as_str()];
                        let shown = label(name);
                        let open = expanded.contains(name);
                        let first = pages.get(name).copied().unwrap_or(0).min(v.subtasks.len().saturating_sub(1));
                        let toggle = {
                            let expanded = expanded.clone();
                            let name = (*name).clone();
                            Callback::from(move |_| {
                                let mut next = (*expanded).clone();
                                if let Some(pos) = next.iter().position(|n| *n == name) {
                                    next.remove(pos);
                                } else {
                                    next.push(name.clone());
                                }
                                expanded.set(next);
                            })
                        };
                        html! {
                            <tbody class="operator">
                                <tr class="row operator-row" onclick={toggle} aria-expanded={open.to_string()}>
                                    <td class="name" title={shown.clone()}>{ if open { "▾ " } else { "▸ " } }{ shown.clone() }</td>
                                    <td>{ v.status.as_str() }</td>
                                    <td>{ format!("{}/{}", v.num_acknowledged_subtasks, v.num_subtasks) }</td>
                                    <td class="opt">{ rest_time(v.latest_ack_timestamp) }</td>
                                    <td>{ rest_millis(v.end_to_end_duration) }</td>
                                    <td>{ bytes(v.checkpointed_size) }</td>
                                    <td>{ format!("{} ({})", bytes(v.processed_data), bytes(v.persisted_data)) }</td>
                                </tr>
                                if open {
                                    <tr class="subtasks-holder">
                                        <td colspan="7">
                                            { operator_summary(&v.summary) }
                                            <table class="data subtasks">
                                                <thead>
                                                    <tr>
                                                        <th>{ "#" }</th><th class="opt">{ "Ack" }</th><th>{ "End to End" }</th>
                                                        <th>{ "Size" }</th><th>{ "Sync" }</th><th>{ "Async" }</th>
                                                        <th>{ "Alignment" }</th><th>{ "Start Delay" }</th>
                                                        <th>{ "Processed (Persisted)" }</th><th class="opt">{ "Unaligned" }</th><th class="opt">{ "Aborted" }</th>
                                                    </tr>
                                                </thead>
                                                <tbody>{ for v.subtasks.iter().skip(first).take(SUBTASKS_PER_PAGE).map(|st| {
                                                    let phases = p.phases.get(&(p.id, shown.clone()))
                                                        .and_then(|v| v.get(subtask_index(st) as usize))
                                                        .and_then(Option::as_ref);
                                                    subtask_row(st, phases)
                                                }) }</tbody>
                                            </table>
                                            if v.subtasks.len() > SUBTASKS_PER_PAGE {
                                                { pager(name, first, v.subtasks.len(), &pages) }
                                            }
                                        </td>
                                    </tr>
                                }
                            </tbody>
                        }
                    }) }
                </table>
            </div>
        </div>
    }
}
