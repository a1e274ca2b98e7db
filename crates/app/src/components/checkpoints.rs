//! The checkpoints panel in the Flink Web UI's vocabulary: Overview, History, Summary and
//! Configuration, from the engine's typed REST report.

use std::rc::Rc;

use barrierlab_engine::sim::CheckpointRow;
use barrierlab_engine::stats::rest_checkpoints::{
    Counts, LatestCheckpoints, RestoredCheckpointStatistics, Summary,
};
use barrierlab_engine::stats::{
    CheckpointStatistics, CheckpointStatisticsKind, CheckpointStatsStatus, CheckpointingStatistics,
    RestAPICheckpointType, StatsSummaryDto,
};
use yew::prelude::*;

use super::checkpoint_config::configuration;
use super::checkpoint_details::CheckpointDetails;
use crate::derived::ReportRef;
use crate::format::{bytes, rest_millis, rest_time};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Tab {
    Overview,
    History,
    Summary,
    Configuration,
}

impl Tab {
    const ALL: [Tab; 4] = [
        Tab::Overview,
        Tab::History,
        Tab::Summary,
        Tab::Configuration,
    ];
    fn label(self) -> &'static str {
        match self {
            Tab::Overview => "Overview",
            Tab::History => "History",
            Tab::Summary => "Summary",
            Tab::Configuration => "Configuration",
        }
    }
}

#[derive(Properties, PartialEq)]
pub struct CheckpointsProps {
    pub rows: Rc<Vec<CheckpointRow>>,
    pub report: ReportRef,
    /// A checkpoint to select on mount (a link's `checkpoint=`): opens the History tab on it.
    #[prop_or_default]
    pub initial: Option<u64>,
    /// Durations and sizes of the newest completed checkpoints, for the Summary tab's charts.
    #[prop_or_default]
    pub trends: Rc<super::trends::Trends>,
    /// Phase durations in µs for the details table.
    #[prop_or_default]
    pub phases: Rc<super::checkpoint_details::PhaseMicros>,
}

#[function_component(CheckpointsPanel)]
pub fn checkpoints_panel(p: &CheckpointsProps) -> Html {
    let tab = use_state(|| {
        if p.initial.is_some() {
            Tab::History
        } else {
            Tab::Overview
        }
    });
    let selected = use_state(|| p.initial);
    let cps = &p.report.0.checkpoints;
    let body = match *tab {
        Tab::Overview => overview(cps),
        Tab::History => {
            let on_select = {
                let selected = selected.clone();
                Callback::from(move |id: u64| {
                    selected.set(if *selected == Some(id) {
                        None
                    } else {
                        Some(id)
                    })
                })
            };
            let order: Vec<String> = selected
                .and_then(|id| p.rows.iter().find(|r| r.id == id))
                .map(|r| r.vertices.iter().map(|v| v.vertex.clone()).collect())
                .unwrap_or_default();
            html! {
                <>
                    { history(cps, *selected, on_select) }
                    if let Some(id) = *selected {
                        <CheckpointDetails id={id} report={p.report.clone()} order={order} phases={p.phases.clone()} />
                    }
                </>
            }
        }
        Tab::Summary => summary(cps, &p.trends),
        Tab::Configuration => configuration(&p.report.0.config),
    };
    html! {
        <div class="checkpoints">
            <nav class="tabs" role="tablist" aria-label="Checkpoint views">
                { for Tab::ALL.iter().map(|t| {
                    let set = { let tab = tab.clone(); let t = *t; Callback::from(move |_| tab.set(t)) };
                    html! {
                        <button role="tab" class={classes!("tab", (*tab == *t).then_some("active"))}
                                aria-selected={(*tab == *t).to_string()}
                                id={format!("tab-{}", t.label().to_ascii_lowercase())} onclick={set}>
                            { t.label() }
                        </button>
                    }
                }) }
            </nav>
            <div class="tab-body" role="tabpanel">{ body }</div>
        </div>
    }
}

fn latest(title: &str, cp: Option<&CheckpointStatistics>) -> Html {
    let content = match cp {
        None => html! { <td colspan="4" class="muted">{ "None" }</td> },
        Some(cp) => {
            let detail = match &cp.kind {
                CheckpointStatisticsKind::Failed {
                    failure_message, ..
                } => failure_message.clone(),
                CheckpointStatisticsKind::Completed { external_path, .. } => external_path.clone(),
                CheckpointStatisticsKind::InProgress {} => None,
            }
            .unwrap_or_default();
            html! {
                <>
                    <td>{ format!("ID {}", cp.id) }</td>
                    <td>{ rest_time(cp.trigger_timestamp) }</td>
                    <td>{ rest_millis(cp.end_to_end_duration) }</td>
                    <td class="path" title={detail.clone()}>{ detail }</td>
                </>
            }
        }
    };
    html! { <tr><th scope="row">{ title }</th>{ content }</tr> }
}

/// `latest.restored`: `RestoredCheckpointStatistics` (id, restore time, savepoint or not, path).
fn restored(r: Option<&RestoredCheckpointStatistics>) -> Html {
    let content = match r {
        None => html! { <td colspan="4" class="muted">{ "None" }</td> },
        Some(r) => {
            let kind = if r.is_savepoint {
                "savepoint"
            } else {
                "checkpoint"
            };
            let path = r.external_path.clone().unwrap_or_default();
            html! {
                <>
                    <td id="latest-restore-id">{ format!("ID {}", r.id) }</td>
                    <td title="Restore time">{ rest_time(r.restore_timestamp) }</td>
                    <td>{ "-" }</td>
                    <td class="path" title={path.clone()}>{ if path.is_empty() { kind.to_string() } else { format!("{kind}: {path}") } }</td>
                </>
            }
        }
    };
    html! { <tr id="latest-restore"><th scope="row">{ "Latest Restore" }</th>{ content }</tr> }
}

/// Why "Failed" counts checkpoints that History does not list.
const FAILED_TITLE: &str = "Every failed checkpoint, also a trigger refused before it got an ID \
     (reportFailedCheckpointsWithoutInProgress): it has no row in History and is not the \
     Latest Failed, as in Flink's Web UI.";

/// Flink counts a trigger refused before it got an ID as failed, without a history entry, and
/// every job start has one (docs/fidelity.md): a count that History cannot explain gets a line.
fn failed_without_id(c: &Counts, l: &LatestCheckpoints) -> Html {
    if c.failed == 0 || l.failed.is_some() {
        return html! {};
    }
    let which = if c.failed == 1 {
        "The failed one never got an ID, so History has no row for it".to_string()
    } else {
        format!(
            "The {} failed never got an ID, so History has no rows for them",
            c.failed
        )
    };
    html! {
        <p class="muted" id="failed-without-id">
            { which }{ ". A trigger that finds tasks still INITIALIZING fails with \
               NOT_ALL_REQUIRED_TASKS_RUNNING: at every job start (and after a restore), in real \
               Flink as here." }
        </p>
    }
}

fn overview(cps: &CheckpointingStatistics) -> Html {
    let c = &cps.counts;
    let l = &cps.latest;
    html! {
        <div id="checkpoint-overview">
            <dl class="counts">
                <div><dt>{ "Triggered" }</dt><dd id="count-triggered">{ c.total }</dd></div>
                <div><dt>{ "In Progress" }</dt><dd id="count-in-progress">{ c.in_progress }</dd></div>
                <div><dt>{ "Completed" }</dt><dd id="count-completed">{ c.completed }</dd></div>
                <div title={FAILED_TITLE}><dt>{ "Failed" }</dt><dd id="count-failed">{ c.failed }</dd></div>
                <div><dt>{ "Restored" }</dt><dd id="count-restored">{ c.restored }</dd></div>
            </dl>
            { failed_without_id(c, l) }
            <table class="data">
                <thead><tr><th /><th>{ "ID" }</th><th>{ "Trigger Time" }</th><th>{ "Duration" }</th><th>{ "Path / Cause" }</th></tr></thead>
                <tbody>
                    { latest("Latest Completed", l.completed.as_ref()) }
                    { latest("Latest Failed", l.failed.as_ref()) }
                    { latest("Latest Savepoint", l.savepoint.as_ref()) }
                    { restored(l.restored.as_ref()) }
                </tbody>
            </table>
        </div>
    }
}

fn history(cps: &CheckpointingStatistics, selected: Option<u64>, on_select: Callback<u64>) -> Html {
    let rows = cps.history.as_slice();
    if rows.is_empty() {
        return html! { <p class="empty">{ "No checkpoint has been triggered yet." }</p> };
    }
    html! {
        <div class="table-scroll">
            <table class="data history" id="checkpoint-history">
                <thead>
                    <tr>
                        <th>{ "ID" }</th><th>{ "Status" }</th><th title="Checkpoint Type">{ "Type" }</th><th title="Acknowledged subtasks">{ "Acks" }</th>
                        <th>{ "Trigger Time" }</th><th>{ "Latest Ack" }</th><th>{ "End to End" }</th>
                        // A soft hyphen: the one long header word may break in a narrow panel.
                        <th title="Checkpointed Data Size: what this checkpoint wrote">{ "Check\u{ad}pointed Size" }</th>
                        <th title="Full Checkpoint Data Size: all state the checkpoint refers to">{ "Full Size" }</th>
                        <th title="Processed (persisted) in-flight data">{ "In-Flight Data" }</th>
                    </tr>
                </thead>
                <tbody>
                    { for rows.iter().map(|r| {
                        let id = r.id;
                        let status = r.status.as_str();
                        let onclick = { let on = on_select.clone(); Callback::from(move |_| on.emit(id)) };
                        let kind = if r.is_savepoint { "Savepoint" } else { "Checkpoint" };
                        html! {
                            <tr class={classes!("row", (selected == Some(id)).then_some("selected"))}
                                data-id={id.to_string()} data-status={status} onclick={onclick}
                                title={format!("{kind} {id}: click for per-operator details")}>
                                <td>{ id }{ if r.is_savepoint { " (SP)" } else { "" } }</td>
                                <td><span class={classes!("status", status.to_ascii_lowercase())}>{ status_breakable(status) }</span></td>
                                <td class="checkpoint-type" data-type={checkpoint_type(r.checkpoint_type)}
                                    title={checkpoint_type(r.checkpoint_type)}>{ short_type(r.checkpoint_type) }</td>
                                <td>{ format!("{}/{}", r.num_acknowledged_subtasks, r.num_subtasks) }</td>
                                <td>{ rest_time(r.trigger_timestamp) }</td>
                                <td>{ if r.latest_ack_timestamp > 0 { rest_time(r.latest_ack_timestamp) } else { "-".into() } }</td>
                                <td>{ if r.status == CheckpointStatsStatus::COMPLETED { rest_millis(r.end_to_end_duration) } else { "-".into() } }</td>
                                <td>{ bytes(r.checkpointed_size) }</td>
                                <td>{ bytes(r.state_size) }</td>
                                <td class="in-flight"><span>{ bytes(r.processed_data) }</span>{ " " }<span>{ format!("({})", bytes(r.persisted_data)) }</span></td>
                            </tr>
                        }
                    }) }
                </tbody>
            </table>
        </div>
    }
}

/// A status that may break after its underscore (`IN_` / `PROGRESS`) when the panel is narrow;
/// its text stays the REST word.
fn status_breakable(status: &str) -> Html {
    match status.split_once('_') {
        Some((head, tail)) => html! { <>{ head }{ "_" }<wbr />{ tail }</> },
        None => html! { { status } },
    }
}

/// The Web UI's words for the REST `checkpoint_type`.
fn checkpoint_type(t: RestAPICheckpointType) -> &'static str {
    match t {
        RestAPICheckpointType::Checkpoint => "aligned checkpoint",
        RestAPICheckpointType::UnalignedCheckpoint => "unaligned checkpoint",
        RestAPICheckpointType::Savepoint => "savepoint",
        RestAPICheckpointType::SyncSavepoint => "savepoint (stop)",
    }
}

/// The type in one word, for the narrow History table (the full words are its title).
fn short_type(t: RestAPICheckpointType) -> &'static str {
    match t {
        RestAPICheckpointType::Checkpoint => "aligned",
        RestAPICheckpointType::UnalignedCheckpoint => "unaligned",
        RestAPICheckpointType::Savepoint | RestAPICheckpointType::SyncSavepoint => "savepoint",
    }
}

/// A summary figure (a NaN percentile, which Flink writes as `"NaN"`, shows as `-`).
fn stat_cell(n: f64, as_bytes: bool) -> Html {
    if n.is_nan() {
        return html! { <td>{ "-" }</td> };
    }
    let text = if as_bytes {
        bytes(n.round() as u64)
    } else {
        crate::format::millis(n.round() as u64)
    };
    html! { <td>{ text }</td> }
}

/// A Summary column: its heading and the statistic it shows.
type SummaryColumn = (&'static str, fn(&StatsSummaryDto) -> f64);
/// A Summary row: its label, the REST field and whether that is bytes (else milliseconds).
type SummaryRow = (&'static str, fn(&Summary) -> &StatsSummaryDto, bool);

fn summary(cps: &CheckpointingStatistics, trends: &super::trends::Trends) -> Html {
    if cps.counts.completed == 0 {
        return html! { <p class="empty">{ "The summary covers completed checkpoints; none yet." }</p> };
    }
    let cols: [SummaryColumn; 8] = [
        ("min", |s| s.min as f64),
        ("avg", |s| s.avg as f64),
        ("max", |s| s.max as f64),
        ("p50", |s| s.p50),
        ("p90", |s| s.p90),
        ("p95", |s| s.p95),
        ("p99", |s| s.p99),
        ("p999", |s| s.p999),
    ];
    let rows: [SummaryRow; 5] = [
        ("Checkpointed Data Size", |s| &s.checkpointed_size, true),
        ("Full Checkpoint Data Size", |s| &s.state_size, true),
        ("End to End Duration", |s| &s.end_to_end_duration, false),
        ("Processed In-Flight Data", |s| &s.processed_data, true),
        ("Persisted In-Flight Data", |s| &s.persisted_data, true),
    ];
    html! {
        <>
        <div class="table-scroll">
            <table class="data" id="checkpoint-summary">
                <thead><tr><th />{ for cols.iter().map(|(c, _)| html! { <th>{ c.to_ascii_uppercase() }</th> }) }</tr></thead>
                <tbody>
                    { for rows.iter().map(|(label, field, as_bytes)| html! {
                        <tr><th scope="row">{ *label }</th>
                            { for cols.iter().map(|(_, stat)| stat_cell(stat(field(&cps.summary)), *as_bytes)) }
                        </tr>
                    }) }
                </tbody>
            </table>
        </div>
        { super::trends::trends(trends) }
        </>
    }
}
