//! The draft's edges (partitioner per edge) and the form that connects two operators.

use barrierlab_engine::scenario::{EdgeSpec, Partitioner};
use web_sys::HtmlSelectElement;
use yew::prelude::*;

use super::draft::{Edit, PARTITIONERS};

#[derive(Properties, PartialEq)]
pub struct EdgesProps {
    pub edges: Vec<EdgeSpec>,
    pub names: Vec<String>,
    pub onedit: Callback<Edit>,
}

fn partitioner_of(text: &str) -> Partitioner {
    PARTITIONERS
        .into_iter()
        .find(|p| p.to_string() == text)
        .unwrap_or(Partitioner::Forward)
}

fn select_value(e: &Event) -> String {
    let s: HtmlSelectElement = e.target_unchecked_into();
    s.value()
}

#[function_component(Edges)]
pub fn edges(p: &EdgesProps) -> Html {
    let from = use_state(|| None::<String>);
    let to = use_state(|| None::<String>);
    let part = use_state(|| Partitioner::Forward);
    let first = p.names.first().cloned().unwrap_or_default();
    let last = p.names.last().cloned().unwrap_or_default();
    let from_v = from
        .as_ref()
        .filter(|f| p.names.contains(f))
        .cloned()
        .unwrap_or(first);
    let to_v = to
        .as_ref()
        .filter(|f| p.names.contains(f))
        .cloned()
        .unwrap_or(last);
    let connect = {
        let (on, f, t, pt) = (p.onedit.clone(), from_v.clone(), to_v.clone(), *part);
        Callback::from(move |_| on.emit(Edit::Connect(f.clone(), t.clone(), pt)))
    };
    let options = |selected: &str| -> Html {
        p.names
            .iter()
            .map(|n| html! { <option value={n.clone()} selected={n == selected}>{ n.clone() }</option> })
            .collect()
    };
    html! {
        <div class="edges">
            <ul class="edge-list">
                { for p.edges.iter().enumerate().map(|(i, e)| {
                    let on = p.onedit.clone();
                    let onchange = Callback::from(move |ev: Event| on.emit(Edit::SetPartitioner(i, partitioner_of(&select_value(&ev)))));
                    let on = p.onedit.clone();
                    let remove = Callback::from(move |_| on.emit(Edit::Disconnect(i)));
                    html! {
                        <li class="edge-row">
                            <span class="edge-ends">{ format!("{} → {}", e.from, e.to) }</span>
                            <select id={format!("edge-{i}-partitioner")} aria-label="Partitioner" {onchange}>
                                { for PARTITIONERS.iter().map(|pt| html! {
                                    <option value={pt.to_string()} selected={*pt == e.partitioner}>{ pt.to_string() }</option>
                                }) }
                            </select>
                            <button class="icon remove" id={format!("edge-{i}-remove")} aria-label="Remove edge" onclick={remove}>{ "×" }</button>
                        </li>
                    }
                }) }
            </ul>
            <div class="connect">
                <select id="connect-from" aria-label="From" onchange={{ let f = from.clone(); Callback::from(move |e: Event| f.set(Some(select_value(&e)))) }}>
                    { options(&from_v) }
                </select>
                <span>{ "→" }</span>
                <select id="connect-to" aria-label="To" onchange={{ let t = to.clone(); Callback::from(move |e: Event| t.set(Some(select_value(&e)))) }}>
                    { options(&to_v) }
                </select>
                <select id="connect-partitioner" aria-label="Partitioner" onchange={{ let pt = part.clone(); Callback::from(move |e: Event| pt.set(partitioner_of(&select_value(&e)))) }}>
                    { for PARTITIONERS.iter().map(|pt| html! { <option value={pt.to_string()} selected={*pt == *part}>{ pt.to_string() }</option> }) }
                </select>
                <button id="connect" onclick={connect} disabled={p.names.len() < 2}>{ "Connect" }</button>
            </div>
        </div>
    }
}
