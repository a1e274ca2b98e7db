//! The job graph of an opened job: its vertices in the job's order, each with its parallelism,
//! its inputs' ship strategies and the backpressure `GET …/backpressure` reported.

use std::rc::Rc;

use yew::prelude::*;

use crate::format::percent;
use crate::imported::view::VertexView;

#[derive(Properties, PartialEq)]
pub struct GraphProps {
    pub vertices: Rc<Vec<VertexView>>,
}

#[function_component(ImportedGraph)]
pub fn imported_graph(p: &GraphProps) -> Html {
    let ratio = |r: Option<f64>| r.map_or_else(|| "-".to_string(), percent);
    html! {
        <ol id="import-graph" class="import-graph">
            { for p.vertices.iter().map(|v| html! {
                <li class={classes!("import-vertex", match v.backpressure.as_str() {
                        "-" => "bp-unknown".to_string(),
                        level => format!("bp-{}", level.to_ascii_lowercase()),
                    })}
                    data-vertex={v.id.clone()}>
                    if !v.inputs.is_empty() {
                        <div class="import-inputs muted">
                            { for v.inputs.iter().map(|(from, ship)| html! {
                                <span class="import-edge">{ format!("↓ {ship} from {from}") }</span>
                            }) }
                        </div>
                    }
                    <div class="import-vertex-box">
                        <strong class="import-vertex-name">{ &v.name }</strong>
                        <span class="muted">{ format!("Parallelism: {}", v.parallelism) }</span>
                        if !v.status.is_empty() {
                            <span class="muted">{ format!("Status: {}", v.status) }</span>
                        }
                        <span class="import-bp">
                            { format!("Backpressure: {} · Backpressured (max): {} · Busy (max): {}",
                                v.backpressure, ratio(v.backpressured_max), ratio(v.busy_max)) }
                        </span>
                    </div>
                </li>
            }) }
        </ol>
    }
}
