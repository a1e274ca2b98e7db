//! The History tab: one row per checkpoint in Flink's history, newest first. Long histories
//! (Flink keeps `web.checkpoints.history` of them, which may be raised to thousands) show a page
//! of rows at a time, so opening one never builds thousands of rows at once.

use std::rc::Rc;

use yew::prelude::*;

use crate::imported::view::HistoryRow;

/// Rows shown at first, and added by each "Show more".
pub const HISTORY_PAGE: usize = 100;

#[derive(Properties, PartialEq)]
pub struct HistoryProps {
    pub rows: Rc<Vec<HistoryRow>>,
    pub selected: Option<u64>,
    pub onselect: Callback<u64>,
}

#[function_component(ImportedHistory)]
pub fn imported_history(p: &HistoryProps) -> Html {
    let shown = use_state(|| HISTORY_PAGE);
    if p.rows.is_empty() {
        return html! { <p id="import-no-checkpoints" class="empty">{ "No checkpoints yet: the job had not completed or started one when the bundle was collected." }</p> };
    }
    let total = p.rows.len();
    let limit = (*shown).min(total);
    let more = {
        let shown = shown.clone();
        Callback::from(move |_| shown.set(*shown + HISTORY_PAGE))
    };
    html! {
        <>
            <div class="table-scroll">
                <table id="import-history" class="import-table">
                    <thead><tr>
                        { for ["ID", "Status", "Acknowledged", "Trigger Time", "Latest Acknowledgement", "End to End Duration",
                               "Checkpointed Data Size", "Full Checkpoint Data Size", "Processed (persisted) in-flight data"]
                            .iter().map(|c| html! { <th scope="col">{ *c }</th> }) }
                    </tr></thead>
                    <tbody>
                        { for p.rows[..limit].iter().map(|r| {
                            let id = r.id;
                            let onclick = p.onselect.reform(move |_| id);
                            let selected = p.selected == Some(id);
                            html! {
                                <tr class={classes!("import-history-row", selected.then_some("selected"), format!("status-{}", r.status.to_ascii_lowercase()))}
                                    data-id={id.to_string()}>
                                    <td>
                                        if r.has_details {
                                            <button class="link" onclick={onclick} aria-pressed={selected.to_string()}
                                                    title={format!("Show the per-subtask details of checkpoint {id}")}>
                                                { if r.savepoint { format!("{id} (savepoint)") } else { id.to_string() } }
                                            </button>
                                        } else {
                                            <span title="The bundle has no per-subtask details of this checkpoint">{ id }</span>
                                        }
                                    </td>
                                    <td>{ &r.status }</td>
                                    <td>{ &r.acknowledged }</td>
                                    <td>{ &r.trigger_time }</td>
                                    <td>{ &r.latest_ack }</td>
                                    <td>{ &r.end_to_end }</td>
                                    <td>{ &r.checkpointed_size }</td>
                                    <td>{ &r.full_size }</td>
                                    <td>{ &r.processed_persisted }</td>
                                </tr>
                            }
                        }) }
                    </tbody>
                </table>
            </div>
            <p id="import-history-count" class="muted">
                { format!("Showing {limit} of {total} checkpoint{}.", if total == 1 { "" } else { "s" }) }
                if limit < total {
                    { " " }
                    <button id="import-history-more" onclick={more}>{ format!("Show {} more", HISTORY_PAGE.min(total - limit)) }</button>
                }
            </p>
        </>
    }
}
