//! One checkpoint's per-subtask details, in the columns of the Web UI's checkpoint details.

use std::rc::Rc;

use yew::prelude::*;

use crate::imported::view::SubtaskRow;

#[derive(Properties, PartialEq)]
pub struct DetailsProps {
    pub id: u64,
    pub rows: Rc<Vec<SubtaskRow>>,
}

#[function_component(ImportedDetails)]
pub fn imported_details(p: &DetailsProps) -> Html {
    if p.rows.is_empty() {
        return html! { <p class="empty">{ format!("The bundle has no per-subtask details of checkpoint {}.", p.id) }</p> };
    }
    html! {
        <div class="table-scroll">
            <table id="import-subtasks" class="import-table" data-checkpoint={p.id.to_string()}>
                <thead><tr>
                    { for ["Operator", "Subtask", "Status", "Acknowledged", "End to End Duration", "Checkpointed Data Size",
                           "Sync Duration", "Async Duration", "Processed (persisted) Data", "Alignment Duration",
                           "Start Delay", "Unaligned Checkpoint"]
                        .iter().map(|c| html! { <th scope="col">{ *c }</th> }) }
                </tr></thead>
                <tbody>
                    { for p.rows.iter().map(|r| html! {
                        <tr class="import-subtask-row" data-subtask={r.index.to_string()}>
                            <td class="import-op">{ &r.vertex }</td>
                            <td>{ format!("#{}", r.index) }</td>
                            <td>{ &r.status }</td>
                            <td>{ &r.ack }</td>
                            <td>{ &r.end_to_end }</td>
                            <td>{ &r.checkpointed_size }</td>
                            <td>{ &r.sync }</td>
                            <td>{ &r.async_ }</td>
                            <td>{ &r.processed_persisted }</td>
                            <td>{ &r.alignment }</td>
                            <td class="import-start-delay">{ &r.start_delay }</td>
                            <td>{ &r.unaligned }</td>
                        </tr>
                    }) }
                </tbody>
            </table>
        </div>
    }
}
