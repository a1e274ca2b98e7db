//! "Why was checkpoint N slow?": pick a checkpoint, read the engine's answer
//! (`barrierlab_engine::stats::why`, the same as `barrierlab run --why N`).

use std::rc::Rc;

use barrierlab_engine::sim::CheckpointRow;
use barrierlab_engine::stats::why::explain;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

use crate::format;
use crate::job::SimCell;
use crate::model::short_name;

#[derive(Properties, PartialEq)]
pub struct WhyProps {
    pub sim: SimCell,
    pub rows: Rc<Vec<CheckpointRow>>,
}

#[function_component(WhyPanel)]
pub fn why_panel(p: &WhyProps) -> Html {
    let chosen = use_state(|| None::<u64>);
    let acked: Vec<&CheckpointRow> = p.rows.iter().filter(|r| r.acknowledged > 0).collect();
    if acked.is_empty() {
        return html! { <p class="empty">{ "No checkpoint has been acknowledged yet." }</p> };
    }
    // Default: the slowest completed checkpoint.
    let slowest = acked
        .iter()
        .filter_map(|r| r.duration.map(|d| (d, r.id)))
        .max()
        .map(|(_, id)| id)
        .unwrap_or(acked[acked.len() - 1].id);
    let id = chosen
        .filter(|c| acked.iter().any(|r| r.id == *c))
        .unwrap_or(slowest);
    let onchange = {
        let chosen = chosen.clone();
        Callback::from(move |e: Event| {
            let s: HtmlSelectElement = e.target_unchecked_into();
            chosen.set(s.value().parse().ok());
        })
    };
    let why = explain(&p.sim.borrow(), id, short_name);
    html! {
        <div class="why" id="why">
            <label class="field">
                <span>{ "Checkpoint" }</span>
                <select id="why-checkpoint" {onchange}>
                    { for acked.iter().rev().map(|r| html! {
                        <option value={r.id.to_string()} selected={r.id == id}>
                            { format!("{} — {}", r.id, r.duration.map_or(r.status.as_str().to_ascii_lowercase(), format::micros)) }
                        </option>
                    }) }
                </select>
            </label>
            if let Some(why) = why {
                <div class="why-bars" aria-label="Phases of the last subtask">
                    { for why.phases.iter().map(|(name, us)| {
                        let total: u64 = why.phases.iter().map(|p| p.1).sum::<u64>().max(1);
                        let w = (*us as f64 / total as f64 * 100.0).max(0.5);
                        html! {
                            <span class={classes!("phase-chip", name.replace(' ', "-"), (why.slow && *name == why.dominant).then_some("dominant"))}
                                  style={format!("flex-grow: {w:.1}")} title={format!("{name}: {}", format::micros(*us))}>
                                { *name }
                            </span>
                        }
                    }) }
                </div>
                <ul class="why-text" id="why-text">
                    { for why.sentences.iter().map(|s| html! { <li>{ s.clone() }</li> }) }
                </ul>
            } else {
                <p class="empty">{ "That checkpoint has left the statistics history." }</p>
            }
        </div>
    }
}
