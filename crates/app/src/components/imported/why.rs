//! "Why was checkpoint N slow?" for an opened job: the engine's analysis of the bundle
//! (`import::explain`) in the words of `barrierlab explain` (`import::words`).

use std::rc::Rc;

use barrierlab_engine::import::explain::{Explanation, Phase};
use barrierlab_engine::import::words;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct WhyProps {
    /// The analysis, or why there is none (no checkpoint details in the bundle).
    pub explanation: Rc<Result<Explanation, String>>,
    pub selected: Option<u64>,
}

#[function_component(ImportedWhy)]
pub fn imported_why(p: &WhyProps) -> Html {
    let e = match &*p.explanation {
        Ok(e) => e,
        Err(message) => return html! { <p id="import-why-none" class="empty">{ message }</p> },
    };
    let Some(c) = p
        .selected
        .and_then(|id| e.checkpoints.iter().find(|c| c.id == id))
    else {
        return html! { <p class="empty">{ "Choose a checkpoint with details in the history." }</p> };
    };
    let lines = words::checkpoint(c, e.summary.interval);
    let facts = c.critical.as_ref().map(|cr| {
        let dominant = c.dominant.map_or("-".to_string(), |d| d.to_string());
        let phases: Vec<String> = Phase::ALL
            .iter()
            .map(|ph| format!("{ph} {} ms", cr.phase(*ph)))
            .collect();
        html! {
            <dl class="import-why-facts">
                <dt>{ "Critical subtask" }</dt>
                <dd id="import-why-critical">{ format!("{} #{}", cr.subtask.vertex_name, cr.subtask.index) }</dd>
                <dt>{ "Dominant phase" }</dt>
                <dd id="import-why-dominant">{ dominant }</dd>
                <dt>{ "Phases" }</dt>
                <dd>{ phases.join(", ") }</dd>
            </dl>
        }
    });
    html! {
        <div id="import-why" data-checkpoint={c.id.to_string()}>
            { facts.unwrap_or_default() }
            { for lines.iter().map(|l| html! { <p class="import-why-line">{ l.trim() }</p> }) }
            if e.checkpoints.len() > 1 {
                <p id="import-why-summary" class="import-why-summary">{ words::summary(&e.summary) }</p>
            }
        </div>
    }
}
