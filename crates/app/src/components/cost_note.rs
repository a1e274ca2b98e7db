//! The cost estimate of a draft (engine `scenario::cost`), as `barrierlab run --dry-run` gives it:
//! under the topology editor and the configuration panel, so a draft over the budget says so
//! before "Apply" asks.

use barrierlab_engine::scenario::cost::human;
use barrierlab_engine::scenario::{Scenario, BUDGET_WORK_PER_SECOND};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct CostNoteProps {
    pub draft: Scenario,
    pub id: AttrValue,
}

#[function_component(CostNote)]
pub fn cost_note(p: &CostNoteProps) -> Html {
    // An invalid draft has no estimate: its validation messages say why.
    let Ok(e) = p.draft.cost_estimate() else {
        return Html::default();
    };
    let over = e.over_budget().is_some();
    html! {
        <p id={p.id.clone()} class={classes!("cost-note", "muted", over.then_some("over"))}>
            { format!(
                "Cost estimate: {} of work per simulated second ({}); budget {}.",
                human(e.work_per_second()),
                e,
                human(BUDGET_WORK_PER_SECOND)
            ) }
            if over { { " Over the budget: applying asks first." } }
        </p>
    }
}
