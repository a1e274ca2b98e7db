//! The Summary tab: Flink's minimum, average, maximum and percentiles over the checkpoint
//! history (as `GET /checkpoints` summarises it; nothing is recomputed here).

use std::rc::Rc;

use yew::prelude::*;

use crate::imported::view::{SummaryRow, SUMMARY_COLUMNS};

#[derive(Properties, PartialEq)]
pub struct SummaryProps {
    pub rows: Rc<Vec<SummaryRow>>,
}

#[function_component(ImportedSummary)]
pub fn imported_summary(p: &SummaryProps) -> Html {
    if p.rows.is_empty() {
        return html! { <p class="empty">{ "No checkpoint statistics to summarise yet." }</p> };
    }
    html! {
        <div class="table-scroll">
            <table id="import-summary" class="import-table">
                <thead><tr><th></th>{ for SUMMARY_COLUMNS.iter().map(|c| html! { <th scope="col">{ *c }</th> }) }</tr></thead>
                <tbody>
                    { for p.rows.iter().map(|r| html! {
                        <tr><th scope="row">{ r.label }</th>{ for r.values.iter().map(|v| html! { <td>{ v }</td> }) }</tr>
                    }) }
                </tbody>
            </table>
        </div>
    }
}
