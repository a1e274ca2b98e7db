//! One checkpoint's details, per operator (job vertex) and per subtask, from
//! `json_report()["subtasks"][id]` (Flink's `/jobs/:id/checkpoints/details/:cid/subtasks/:vid`).

use std::rc::Rc;

use serde_json::Value;
use yew::prelude::*;

use crate::json::{b, bytes, duration, s, timestamp, u};

/// Per (checkpoint, vertex name, subtask): sync, async, alignment and start delay in µs, from the
/// engine's statistics, so the table shows what the why panel shows ("120 µs", not "0 ms"; the
/// REST figure in whole milliseconds is the cell's title).
pub type PhaseMicros = std::collections::BTreeMap<(u64, String, u32), [u64; 4]>;

#[derive(Properties, PartialEq)]
pub struct DetailsProps {
    pub id: u64,
    pub report: Rc<Value>,
    /// Vertex names in job graph order (the report's map is alphabetical).
    pub order: Vec<String>,
    #[prop_or_default]
    pub phases: Rc<PhaseMicros>,
}

/// A phase cell: µs precision when the engine's figure is known, else the REST milliseconds.
fn phase_cell(v: &Value, key: &str, us: Option<u64>) -> Html {
    let rest = duration(v, key);
    match us {
        Some(us) => {
            html! { <td title={format!("REST: {rest}")}>{ crate::format::micros(us) }</td> }
        }
        None => html! { <td>{ rest }</td> },
    }
}

fn subtask_row(st: &Value, phases: Option<&[u64; 4]>) -> Html {
    let pending = s(st, "className") == "pending";
    if pending {
        return html! {
            <tr class="subtask-row pending">
                <td>{ u(st, "index") }</td>
                <td colspan="10" class="muted">{ "pending: not acknowledged yet" }</td>
            </tr>
        };
    }
    let cp = &st["checkpoint"];
    let al = &st["alignment"];
    html! {
        <tr class="subtask-row">
            <td>{ u(st, "index") }</td>
            <td class="opt">{ timestamp(st, "ack_timestamp") }</td>
            <td>{ duration(st, "end_to_end_duration") }</td>
            <td>{ bytes(st, "checkpointed_size") }</td>
            { phase_cell(cp, "sync", phases.map(|p| p[0])) }
            { phase_cell(cp, "async", phases.map(|p| p[1])) }
            { phase_cell(al, "duration", phases.map(|p| p[2])) }
            { phase_cell(st, "start_delay", phases.map(|p| p[3])) }
            <td>{ format!("{} ({})", bytes(al, "processed"), bytes(al, "persisted")) }</td>
            <td class="opt">{ if b(st, "unaligned_checkpoint") { "yes" } else { "no" } }</td>
            <td class="opt">{ if b(st, "aborted") { "yes" } else { "no" } }</td>
        </tr>
    }
}

/// The operator's min/avg/max over its subtasks, as the Web UI's "Summary" rows above the
/// subtask list (`TaskCheckpointStatisticsWithSubtaskDetails.summary`).
fn operator_summary(sum: &Value) -> Html {
    let ms = |v: &Value, stat: &str| -> String {
        match v.get(stat).and_then(Value::as_i64) {
            Some(x) if x >= 0 => crate::format::millis(x as u64),
            _ => "-".into(),
        }
    };
    let by = |v: &Value, stat: &str| -> String {
        crate::format::bytes(v.get(stat).and_then(Value::as_u64).unwrap_or(0))
    };
    let row = |label: &str, stat: &str| {
        let al = &sum["alignment"];
        html! {
            <tr>
                <th scope="row">{ label.to_string() }</th>
                <td>{ ms(&sum["end_to_end_duration"], stat) }</td>
                <td>{ by(&sum["checkpointed_size"], stat) }</td>
                <td class="opt">{ by(&sum["state_size"], stat) }</td>
                <td>{ ms(&sum["checkpoint_duration"]["sync"], stat) }</td>
                <td>{ ms(&sum["checkpoint_duration"]["async"], stat) }</td>
                <td>{ ms(&al["duration"], stat) }</td>
                <td>{ ms(&sum["start_delay"], stat) }</td>
                <td>{ format!("{} ({})", by(&al["processed"], stat), by(&al["persisted"], stat)) }</td>
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
                { row("Minimum", "min") }
                { row("Average", "avg") }
                { row("Maximum", "max") }
            </tbody>
        </table>
    }
}

#[function_component(CheckpointDetails)]
pub fn checkpoint_details(p: &DetailsProps) -> Html {
    let expanded = use_state(Vec::<String>::new);
    let per_vertex = &p.report["subtasks"][p.id.to_string()];
    let Some(map) = per_vertex.as_object() else {
        return html! {
            <p class="empty" id="checkpoint-details">
                { format!("Checkpoint {} is no longer in the history.", p.id) }
            </p>
        };
    };
    // The map is keyed by JobVertexID, as Flink's REST API keys it; `job.vertices` names them.
    let vertices = p.report["job"]["vertices"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let label = |id: &str| -> String {
        vertices
            .iter()
            .find(|v| s(v, "id") == id)
            .map(|v| s(v, "name"))
            .unwrap_or_else(|| id.to_string())
    };
    let id_of = |name: &String| -> Option<String> {
        vertices
            .iter()
            .find(|v| s(v, "name") == *name)
            .map(|v| s(v, "id"))
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
                        let subtasks = v["subtasks"].as_array().cloned().unwrap_or_default();
                        html! {
                            <tbody class="operator">
                                <tr class="row operator-row" onclick={toggle} aria-expanded={open.to_string()}>
                                    <td class="name" title={shown.clone()}>{ if open { "▾ " } else { "▸ " } }{ shown.clone() }</td>
                                    <td>{ s(v, "status") }</td>
                                    <td>{ format!("{}/{}", u(v, "num_acknowledged_subtasks"), u(v, "num_subtasks")) }</td>
                                    <td class="opt">{ timestamp(v, "latest_ack_timestamp") }</td>
                                    <td>{ duration(v, "end_to_end_duration") }</td>
                                    <td>{ bytes(v, "checkpointed_size") }</td>
                                    <td>{ format!("{} ({})", bytes(v, "processed_data"), bytes(v, "persisted_data")) }</td>
                                </tr>
                                if open {
                                    <tr class="subtasks-holder">
                                        <td colspan="7">
                                            { operator_summary(&v["summary"]) }
                                            <table class="data subtasks">
                                                <thead>
                                                    <tr>
                                                        <th>{ "#" }</th><th class="opt">{ "Ack" }</th><th>{ "End to End" }</th>
                                                        <th>{ "Size" }</th><th>{ "Sync" }</th><th>{ "Async" }</th>
                                                        <th>{ "Alignment" }</th><th>{ "Start Delay" }</th>
                                                        <th>{ "Processed (Persisted)" }</th><th class="opt">{ "Unaligned" }</th><th class="opt">{ "Aborted" }</th>
                                                    </tr>
                                                </thead>
                                                <tbody>{ for subtasks.iter().map(|st| {
                                                    let key = (p.id, shown.clone(), u(st, "index") as u32);
                                                    subtask_row(st, p.phases.get(&key))
                                                }) }</tbody>
                                            </table>
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
