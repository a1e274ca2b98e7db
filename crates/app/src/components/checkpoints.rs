//! The checkpoints panel in the Flink Web UI's vocabulary: Overview, History, Summary and
//! Configuration, from the engine's REST-shaped report.

use std::rc::Rc;

use barrierlab_engine::sim::CheckpointRow;
use serde_json::Value;
use yew::prelude::*;

use super::checkpoint_details::CheckpointDetails;
use crate::json::{b, bytes, duration, i, s, timestamp, u};

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
    pub report: Rc<Value>,
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
    let cps = &p.report["checkpoints"];
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
        Tab::Configuration => configuration(&p.report["config"]),
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

fn latest(title: &str, cp: &Value) -> Html {
    let content = if cp.is_null() {
        html! { <td colspan="4" class="muted">{ "None" }</td> }
    } else {
        let detail = if cp.get("failure_message").is_some() {
            s(cp, "failure_message")
        } else {
            s(cp, "external_path")
        };
        html! {
            <>
                <td>{ format!("ID {}", u(cp, "id")) }</td>
                <td>{ timestamp(cp, "trigger_timestamp") }</td>
                <td>{ duration(cp, "end_to_end_duration") }</td>
                <td class="path" title={detail.clone()}>{ detail }</td>
            </>
        }
    };
    html! { <tr><th scope="row">{ title }</th>{ content }</tr> }
}

/// `latest.restored`: `RestoredCheckpointStatistics` (id, restore time, savepoint or not, path).
fn restored(r: &Value) -> Html {
    let content = if r.is_null() {
        html! { <td colspan="4" class="muted">{ "None" }</td> }
    } else {
        let kind = if b(r, "is_savepoint") {
            "savepoint"
        } else {
            "checkpoint"
        };
        let path = s(r, "external_path");
        html! {
            <>
                <td id="latest-restore-id">{ format!("ID {}", u(r, "id")) }</td>
                <td title="Restore time">{ timestamp(r, "restore_timestamp") }</td>
                <td>{ "-" }</td>
                <td class="path" title={path.clone()}>{ if path.is_empty() { kind.to_string() } else { format!("{kind}: {path}") } }</td>
            </>
        }
    };
    html! { <tr id="latest-restore"><th scope="row">{ "Latest Restore" }</th>{ content }</tr> }
}

fn overview(cps: &Value) -> Html {
    if cps.is_null() {
        return html! { <p class="empty">{ "No statistics yet." }</p> };
    }
    let c = &cps["counts"];
    let l = &cps["latest"];
    html! {
        <div id="checkpoint-overview">
            <dl class="counts">
                <div><dt>{ "Triggered" }</dt><dd id="count-triggered">{ u(c, "total") }</dd></div>
                <div><dt>{ "In Progress" }</dt><dd id="count-in-progress">{ u(c, "in_progress") }</dd></div>
                <div><dt>{ "Completed" }</dt><dd id="count-completed">{ u(c, "completed") }</dd></div>
                <div><dt>{ "Failed" }</dt><dd id="count-failed">{ u(c, "failed") }</dd></div>
                <div><dt>{ "Restored" }</dt><dd id="count-restored">{ u(c, "restored") }</dd></div>
            </dl>
            <table class="data">
                <thead><tr><th /><th>{ "ID" }</th><th>{ "Trigger Time" }</th><th>{ "Duration" }</th><th>{ "Path / Cause" }</th></tr></thead>
                <tbody>
                    { latest("Latest Completed", &l["completed"]) }
                    { latest("Latest Failed", &l["failed"]) }
                    { latest("Latest Savepoint", &l["savepoint"]) }
                    { restored(&l["restored"]) }
                </tbody>
            </table>
        </div>
    }
}

fn history(cps: &Value, selected: Option<u64>, on_select: Callback<u64>) -> Html {
    let rows = cps["history"].as_array().cloned().unwrap_or_default();
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
                        <th title="Checkpointed Data Size: what this checkpoint wrote">{ "Checkpointed Size" }</th>
                        <th title="Full Checkpoint Data Size: all state the checkpoint refers to">{ "Full Size" }</th>
                        <th title="Processed (persisted) in-flight data">{ "In-Flight Data" }</th>
                    </tr>
                </thead>
                <tbody>
                    { for rows.iter().map(|r| {
                        let id = u(r, "id");
                        let status = s(r, "status");
                        let onclick = { let on = on_select.clone(); Callback::from(move |_| on.emit(id)) };
                        let kind = if b(r, "is_savepoint") { "Savepoint" } else { "Checkpoint" };
                        html! {
                            <tr class={classes!("row", (selected == Some(id)).then_some("selected"))}
                                data-id={id.to_string()} data-status={status.clone()} onclick={onclick}
                                title={format!("{kind} {id}: click for per-operator details")}>
                                <td>{ id }{ if b(r, "is_savepoint") { " (SP)" } else { "" } }</td>
                                <td><span class={classes!("status", status.to_ascii_lowercase())}>{ status.clone() }</span></td>
                                <td class="checkpoint-type" data-type={checkpoint_type(&s(r, "checkpoint_type"))}
                                    title={checkpoint_type(&s(r, "checkpoint_type"))}>{ short_type(&s(r, "checkpoint_type")) }</td>
                                <td>{ format!("{}/{}", u(r, "num_acknowledged_subtasks"), u(r, "num_subtasks")) }</td>
                                <td>{ timestamp(r, "trigger_timestamp") }</td>
                                <td>{ if i(r, "latest_ack_timestamp") > 0 { timestamp(r, "latest_ack_timestamp") } else { "-".into() } }</td>
                                <td>{ if status == "COMPLETED" { duration(r, "end_to_end_duration") } else { "-".into() } }</td>
                                <td>{ bytes(r, "checkpointed_size") }</td>
                                <td>{ bytes(r, "state_size") }</td>
                                <td>{ format!("{} ({})", bytes(r, "processed_data"), bytes(r, "persisted_data")) }</td>
                            </tr>
                        }
                    }) }
                </tbody>
            </table>
        </div>
    }
}

/// The Web UI's words for the REST `checkpoint_type`.
pub fn checkpoint_type(rest: &str) -> &'static str {
    match rest {
        "CHECKPOINT" => "aligned checkpoint",
        "UNALIGNED_CHECKPOINT" => "unaligned checkpoint",
        "SAVEPOINT" => "savepoint",
        "SYNC_SAVEPOINT" => "savepoint (stop)",
        "FULL_CHECKPOINT" => "full checkpoint",
        _ => "-",
    }
}

/// The type in one word, for the narrow History table (the full words are its title).
fn short_type(rest: &str) -> &'static str {
    match rest {
        "CHECKPOINT" => "aligned",
        "UNALIGNED_CHECKPOINT" => "unaligned",
        "SAVEPOINT" | "SYNC_SAVEPOINT" => "savepoint",
        "FULL_CHECKPOINT" => "full",
        _ => "-",
    }
}

fn stat_cell(v: &Value, key: &str, as_bytes: bool) -> Html {
    let n = match v.get(key) {
        Some(Value::Number(n)) => n.as_f64().unwrap_or(0.0),
        _ => return html! { <td>{ "-" }</td> },
    };
    let text = if as_bytes {
        crate::format::bytes(n.round() as u64)
    } else {
        crate::format::millis(n.round() as u64)
    };
    html! { <td>{ text }</td> }
}

fn summary(cps: &Value, trends: &super::trends::Trends) -> Html {
    let sum = &cps["summary"];
    if u(&cps["counts"], "completed") == 0 {
        return html! { <p class="empty">{ "The summary covers completed checkpoints; none yet." }</p> };
    }
    let cols = ["min", "avg", "max", "p50", "p90", "p95", "p99", "p999"];
    let rows = [
        ("Checkpointed Data Size", "checkpointed_size", true),
        ("Full Checkpoint Data Size", "state_size", true),
        ("End to End Duration", "end_to_end_duration", false),
        ("Processed In-Flight Data", "processed_data", true),
        ("Persisted In-Flight Data", "persisted_data", true),
    ];
    html! {
        <>
        <div class="table-scroll">
            <table class="data" id="checkpoint-summary">
                <thead><tr><th />{ for cols.iter().map(|c| html! { <th>{ c.to_ascii_uppercase() }</th> }) }</tr></thead>
                <tbody>
                    { for rows.iter().map(|(label, key, as_bytes)| html! {
                        <tr><th scope="row">{ *label }</th>
                            { for cols.iter().map(|c| stat_cell(&sum[*key], c, *as_bytes)) }
                        </tr>
                    }) }
                </tbody>
            </table>
        </div>
        { super::trends::trends(trends) }
        </>
    }
}

fn configuration(cfg: &Value) -> Html {
    let Some(map) = cfg.as_object() else {
        return html! { <p class="empty">{ "No configuration." }</p> };
    };
    let pretty = |key: &str, v: &Value| -> String {
        match (key, v) {
            (
                "interval"
                | "timeout"
                | "min_pause"
                | "aligned_checkpoint_timeout"
                | "changelog_periodic_materialization_interval",
                Value::Number(n),
            ) => crate::format::millis(n.as_u64().unwrap_or(0)),
            ("mode", Value::String(m)) => m.replace('_', " ").to_ascii_uppercase(),
            (_, Value::Object(o)) => o
                .iter()
                .map(|(k, v)| format!("{}: {}", k.replace('_', " "), v))
                .collect::<Vec<_>>()
                .join(", "),
            (_, Value::String(s)) => s.clone(),
            (_, other) => other.to_string(),
        }
    };
    html! {
        <table class="data config" id="checkpoint-config">
            <thead><tr><th>{ "Option" }</th><th>{ "Value" }</th></tr></thead>
            <tbody>
                { for map.iter().map(|(k, v)| {
                    let mut label = k.replace('_', " ");
                    if let Some(first) = label.get(0..1) {
                        label = first.to_ascii_uppercase() + &label[1..];
                    }
                    html! { <tr><th scope="row">{ label }</th><td>{ pretty(k, v) }</td></tr> }
                }) }
            </tbody>
        </table>
    }
}
