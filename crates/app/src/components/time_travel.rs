//! The time-travel scrubber: a range over simulated time up to the furthest point reached.

use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::format;
use crate::state::{Action, State};

#[derive(Properties, PartialEq)]
pub struct TimeTravelProps {
    pub now: u64,
    pub horizon: u64,
    pub snapshots: Vec<u64>,
    pub dispatch: UseReducerDispatcher<State>,
}

/// Scrubber steps, in µs (10 ms).
const STEP: u64 = 10_000;

#[function_component(TimeTravelBar)]
pub fn time_travel_bar(p: &TimeTravelProps) -> Html {
    let on_input = {
        let d = p.dispatch.clone();
        Callback::from(move |e: InputEvent| {
            let input: HtmlInputElement = e.target_unchecked_into();
            if let Ok(v) = input.value().parse::<f64>() {
                d.dispatch(Action::Seek((v.max(0.0) as u64) * STEP));
            }
        })
    };
    let live = {
        let d = p.dispatch.clone();
        let h = p.horizon;
        Callback::from(move |_| d.dispatch(Action::Seek(h)))
    };
    let max = p.horizon / STEP;
    let in_past = p.now < p.horizon;
    html! {
        <div class="travel" id="time-travel">
            <input id="scrubber" type="range" min="0" max={max.to_string()} step="1"
                   value={(p.now / STEP).to_string()} oninput={on_input}
                   aria-label="Simulated time" disabled={max == 0} />
            <span class="travel-time" id="travel-time">
                { format!("{} / {}", format::sim_time(p.now), format::sim_time(p.horizon)) }
            </span>
            <button id="travel-live" disabled={!in_past} onclick={live}>{ "Back to latest" }</button>
            <span class="muted travel-note">
                { format!("{} snapshot(s){}", p.snapshots.len(),
                    if in_past { " · in the past: acting here forks a new branch" } else { "" }) }
            </span>
        </div>
    }
}
