//! One operator of the draft: name, kind, parallelism, cost per record and the kind's knobs.

use barrierlab_engine::scenario::{KeyDistribution, OperatorKind, OperatorSpec};
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

use super::draft::Edit;

#[derive(Properties, PartialEq)]
pub struct OperatorRowProps {
    pub index: usize,
    pub op: OperatorSpec,
    /// `parallelism.default` of the draft: what an empty parallelism means.
    pub default_parallelism: u32,
    pub onedit: Callback<Edit>,
}

/// A labelled text input that sends `make(text)` on change.
fn field(label: &str, id: String, value: String, placeholder: &str, on: Callback<String>) -> Html {
    let onchange = Callback::from(move |e: Event| {
        let input: HtmlInputElement = e.target_unchecked_into();
        on.emit(input.value());
    });
    html! {
        <label class="knob">
            <span>{ label.to_string() }</span>
            <input type="text" id={id} value={value} placeholder={placeholder.to_string()} autocomplete="off" {onchange} />
        </label>
    }
}

#[function_component(OperatorRow)]
pub fn operator_row(p: &OperatorRowProps) -> Html {
    let i = p.index;
    let edit = |make: fn(usize, String) -> Edit| {
        let on = p.onedit.clone();
        Callback::from(move |text: String| on.emit(make(i, text)))
    };
    let knob = |name: &'static str| {
        let on = p.onedit.clone();
        Callback::from(move |text: String| on.emit(Edit::Knob(i, name, text)))
    };
    let id = |f: &str| format!("op-{i}-{f}");
    let mut knobs: Vec<Html> = Vec::new();
    match &p.op.kind {
        OperatorKind::Datagen {
            rate,
            record_size,
            keys,
            key_distribution,
            bounded,
        } => {
            knobs.push(field(
                "rate/s",
                id("rate"),
                rate.to_string(),
                "",
                knob("rate"),
            ));
            knobs.push(field(
                "record bytes",
                id("record-size"),
                record_size.to_string(),
                "",
                knob("record-size"),
            ));
            knobs.push(field(
                "keys",
                id("keys"),
                keys.to_string(),
                "",
                knob("keys"),
            ));
            knobs.push(field(
                "bounded",
                id("bounded"),
                bounded.map_or(String::new(), |b| b.to_string()),
                "unbounded",
                knob("bounded"),
            ));
            let on = p.onedit.clone();
            let skewed = matches!(key_distribution, KeyDistribution::Skewed { .. });
            knobs.push(html! {
                <label class="knob"><span>{ "keys" }</span>
                    <select id={id("distribution")} onchange={Callback::from(move |e: Event| {
                        let s: HtmlSelectElement = e.target_unchecked_into();
                        on.emit(Edit::Knob(i, "distribution", s.value()));
                    })}>
                        <option value="uniform" selected={!skewed}>{ "uniform" }</option>
                        <option value="skewed" selected={skewed}>{ "skewed" }</option>
                    </select>
                </label>
            });
            if let KeyDistribution::Skewed {
                hot_keys,
                hot_percent,
            } = key_distribution
            {
                knobs.push(field(
                    "hot keys",
                    id("hot-keys"),
                    hot_keys.to_string(),
                    "",
                    knob("hot-keys"),
                ));
                knobs.push(field(
                    "hot %",
                    id("hot-percent"),
                    hot_percent.to_string(),
                    "",
                    knob("hot-percent"),
                ));
            }
        }
        OperatorKind::Filter { keep_percent } => knobs.push(field(
            "keep %",
            id("keep-percent"),
            keep_percent.to_string(),
            "",
            knob("keep-percent"),
        )),
        OperatorKind::KeyedWindowSum { window } => knobs.push(field(
            "window",
            id("window"),
            window.clone(),
            "1s",
            knob("window"),
        )),
        OperatorKind::KeyedCount | OperatorKind::KeyedList => knobs.push(field(
            "state TTL",
            id("state-ttl"),
            p.op.state_ttl.clone().unwrap_or_default(),
            "none",
            knob("state-ttl"),
        )),
        _ => {}
    }
    let remove = {
        let on = p.onedit.clone();
        Callback::from(move |_| on.emit(Edit::Remove(i)))
    };
    let default_cost = format!("{}us", p.op.kind.default_cost_per_record());
    html! {
        <li class="op-row" data-name={p.op.name.clone()}>
            <div class="op-head">
                <code class="op-kind">{ p.op.kind.type_name() }</code>
                { field("name", id("name"), p.op.name.clone(), "", edit(Edit::Rename)) }
                { field("parallelism", id("parallelism"), p.op.parallelism.map(|n| n.to_string()).unwrap_or_default(),
                        &p.default_parallelism.to_string(), edit(Edit::Parallelism)) }
                { field("cost/record", id("cost"), p.op.cost_per_record.clone().unwrap_or_default(), &default_cost, edit(Edit::Cost)) }
                <button class="icon remove" id={id("remove")} title="Remove operator" aria-label={format!("Remove {}", p.op.name)} onclick={remove}>{ "×" }</button>
            </div>
            if !knobs.is_empty() {
                <div class="op-knobs">{ for knobs }</div>
            }
        </li>
    }
}
