//! The controls bar: preset, play/pause, speed, step, step to a checkpoint phase, triggers, reset, seed, help.

use barrierlab_engine::scenario::PRESETS;
use barrierlab_engine::sim::UserRequest;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

use crate::speed::Speed;
use crate::state::{Action, State};

#[derive(Properties, PartialEq)]
pub struct ControlsProps {
    pub preset: String,
    pub seed: u64,
    pub playing: bool,
    pub speed: Speed,
    /// The job still runs (not finished or failed).
    pub running: bool,
    pub error: Option<String>,
    pub dispatch: UseReducerDispatcher<State>,
    /// Embed mode: play/pause, step and speed only.
    #[prop_or_default]
    pub compact: bool,
    /// Where the last step to a checkpoint phase stopped (shown while paused).
    #[prop_or_default]
    pub phase: Option<(String, Option<u64>)>,
    /// An edited scenario's own name and description (editable); `None` for a preset.
    #[prop_or_default]
    pub custom: Option<(String, String)>,
}

#[function_component(Controls)]
pub fn controls(p: &ControlsProps) -> Html {
    let send = |action: Action| {
        let d = p.dispatch.clone();
        Callback::from(move |_: MouseEvent| d.dispatch(action.clone()))
    };
    let on_preset = {
        let d = p.dispatch.clone();
        Callback::from(move |e: Event| {
            let select: HtmlSelectElement = e.target_unchecked_into();
            d.dispatch(Action::LoadPreset(select.value()));
        })
    };
    let on_speed = {
        let d = p.dispatch.clone();
        Callback::from(move |e: Event| {
            let select: HtmlSelectElement = e.target_unchecked_into();
            if let Some(speed) = Speed::from_key(&select.value()) {
                d.dispatch(Action::SetSpeed(speed));
            }
        })
    };
    let on_seed = {
        let d = p.dispatch.clone();
        let seed = p.seed;
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            match input.value().trim().parse::<u64>() {
                Ok(s) => d.dispatch(Action::SetSeed(s)),
                Err(_) => input.set_value(&seed.to_string()),
            }
        })
    };
    let description = PRESETS
        .iter()
        .find(|(n, _)| *n == p.preset)
        .map_or("", |(_, d)| *d);
    let identity = match &p.custom {
        None => html! { <p class="preset-description">{ description }</p> },
        Some((name, text)) => {
            let rename = {
                let d = p.dispatch.clone();
                Callback::from(move |_: Event| {
                    let doc = gloo_utils::document();
                    let value = |id: &str| {
                        doc.get_element_by_id(id)
                            .and_then(|e| {
                                use wasm_bindgen::JsCast;
                                e.dyn_into::<HtmlInputElement>()
                                    .map(|i| i.value())
                                    .or_else(|e| {
                                        e.dyn_into::<web_sys::HtmlTextAreaElement>()
                                            .map(|t| t.value())
                                    })
                                    .ok()
                            })
                            .unwrap_or_default()
                    };
                    d.dispatch(Action::Rename {
                        name: value("scenario-name"),
                        description: value("scenario-description"),
                    });
                })
            };
            html! {
                <div class="scenario-identity">
                    <label class="field">
                        <span>{ "Scenario" }</span>
                        <input id="scenario-name" type="text" value={name.clone()} onchange={rename.clone()}
                               aria-label="Scenario name (carried in share links)" />
                    </label>
                    <textarea id="scenario-description" rows="2" value={text.clone()} onchange={rename}
                              aria-label="Scenario description (carried in share links)" />
                </div>
            }
        }
    };
    let play_group = html! {
                <div class="group">
                    <button id="play" class="primary" aria-pressed={p.playing.to_string()}
                            disabled={!p.running} title="Play / pause (Space)"
                            onclick={send(Action::TogglePlay)}>
                        { if p.playing { "❚❚ Pause" } else { "▶ Play" } }
                    </button>
                    <button id="step" title="Process the next event (.)" disabled={!p.running}
                            onclick={send(Action::Step)}>{ "Step" }</button>
                    <button id="step-phase" title="Run to the next checkpoint phase: trigger, barrier, alignment, sync, async, ack, complete, notify, abort (p)"
                            disabled={!p.running} onclick={send(Action::StepPhase)}>{ "Next phase" }</button>
                    <label class="field">
                        <span>{ "Speed" }</span>
                        <select id="speed" onchange={on_speed}>
                            { for Speed::ALL.iter().map(|s| html! {
                                <option value={s.key()} selected={*s == p.speed}>{ s.label() }</option>
                            }) }
                        </select>
                    </label>
                </div>
    };
    if p.compact {
        return html! {
            <div class="controls compact" role="toolbar" aria-label="Simulation controls">
                { play_group }
            </div>
        };
    }
    html! {
        <div class="controls-wrap">
            <div class="controls" role="toolbar" aria-label="Simulation controls">
                <label class="field">
                    <span>{ "Preset" }</span>
                    <select id="preset" onchange={on_preset}>
                        if let Some((name, _)) = &p.custom {
                            <option value="" selected=true disabled=true>{ name.clone() }</option>
                        }
                        { for PRESETS.iter().map(|(name, desc)| html! {
                            <option value={*name} title={*desc} selected={p.custom.is_none() && *name == p.preset}>{ *name }</option>
                        }) }
                    </select>
                </label>
                { play_group }
                <div class="group">
                    <button id="trigger-checkpoint" title="POST /jobs/:id/checkpoints (c)" disabled={!p.running}
                            onclick={send(Action::Request(UserRequest::Checkpoint))}>{ "Trigger checkpoint" }</button>
                    <button id="trigger-savepoint" title="POST /jobs/:id/savepoints (s)" disabled={!p.running}
                            onclick={send(Action::Request(UserRequest::Savepoint))}>{ "Trigger savepoint" }</button>
                </div>
                <div class="group">
                    <button id="reset" title="Restart the job from time 0 (r)" onclick={send(Action::Reset)}>{ "Reset" }</button>
                    <label class="field">
                        <span title="The simulation's random seed: the same scenario with the same random seed runs the same, event for event">{ "Random seed" }</span>
                        <input id="seed" class="seed" type="text" inputmode="numeric" autocomplete="off"
                               value={p.seed.to_string()} onchange={on_seed} />
                    </label>
                    <button id="help-button" class="icon" title="Keyboard shortcuts (?)" aria-label="Keyboard shortcuts"
                            onclick={send(Action::ToggleHelp)}>{ "?" }</button>
                </div>
            </div>
            { identity }
            if let Some((phase, seq)) = p.phase.as_ref().filter(|_| !p.playing) {
                <p id="phase-stop" class="phase-stop" aria-live="polite" data-seq={seq.map(|s| s.to_string())}>
                    { format!("Stopped at: {phase}") }
                </p>
            }
            if let Some(error) = &p.error {
                <p class="error" role="alert">{ error }</p>
            }
        </div>
    }
}
