//! The Faults panel: the scenario's fault script, editable and removable (each change re-runs
//! the job to the current time, see `faults.rs`), a global "storage failure for X" and the
//! progress of a re-run. Names are rendered as text.

use barrierlab_engine::scenario::Fault;
use barrierlab_engine::types::Micros;
use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::faults::{describe, fields, kind, storage_failure, with_field};
use crate::format;
use crate::job::SimCell;
use crate::state::{Action, State};

#[derive(Properties, PartialEq)]
pub struct FaultsPanelProps {
    pub sim: SimCell,
    pub faults: Vec<Fault>,
    /// A re-run in progress: (simulated time reached, target).
    pub progress: Option<(Micros, Micros)>,
    pub error: Option<String>,
    pub dispatch: UseReducerDispatcher<State>,
}

#[function_component(FaultsPanel)]
pub fn faults_panel(p: &FaultsPanelProps) -> Html {
    let span = use_state(|| "5s".to_string());
    let edit_error = use_state(|| None::<String>);
    let busy = p.progress.is_some();
    let on_span = {
        let span = span.clone();
        Callback::from(move |e: InputEvent| {
            let input: HtmlInputElement = e.target_unchecked_into();
            span.set(input.value());
        })
    };
    let inject_storage = {
        let (sim, d, span, err) = (
            p.sim.clone(),
            p.dispatch.clone(),
            span.clone(),
            edit_error.clone(),
        );
        Callback::from(move |_: MouseEvent| {
            let now = sim.borrow().now;
            match storage_failure(now, &span) {
                Ok(f) => {
                    err.set(None);
                    d.dispatch(Action::AddFault(f));
                }
                Err(e) => err.set(Some(e)),
            }
        })
    };
    let rows = p.faults.iter().enumerate().map(|(i, f)| {
        let remove = {
            let d = p.dispatch.clone();
            Callback::from(move |_: MouseEvent| d.dispatch(Action::RemoveFault(i)))
        };
        let inputs = fields(f).into_iter().map(|(key, value)| {
            let onchange = {
                let (d, f, key, err) = (p.dispatch.clone(), f.clone(), key.clone(), edit_error.clone());
                Callback::from(move |e: Event| {
                    let input: HtmlInputElement = e.target_unchecked_into();
                    match with_field(&f, &key, &input.value()) {
                        Ok(next) if next == f => err.set(None),
                        Ok(next) => {
                            err.set(None);
                            d.dispatch(Action::ReplaceFault(i, next));
                        }
                        Err(message) => err.set(Some(format!("fault {}: {message}", i + 1))),
                    }
                })
            };
            html! {
                <label class="knob">
                    <span>{ key.clone() }</span>
                    <input id={format!("fault-{i}-{key}")} type="text" autocomplete="off"
                           value={value} disabled={busy} {onchange} />
                </label>
            }
        });
        html! {
            <li class="fault-row" data-kind={kind(f)}>
                <div class="fault-head">
                    <span class="fault-kind">{ kind(f) }</span>
                    <span class="fault-desc">{ describe(f) }</span>
                    <button class="remove" id={format!("fault-{i}-remove")} disabled={busy}
                            title="Remove this fault and re-run" onclick={remove}>{ "Remove" }</button>
                </div>
                <div class="fault-knobs">{ for inputs }</div>
            </li>
        }
    });
    html! {
        <div class="faults" id="faults">
            <div class="fault-global">
                <label class="knob">
                    <span>{ "Storage failure for" }</span>
                    <input id="storage-span" type="text" autocomplete="off" value={(*span).clone()} oninput={on_span} />
                </label>
                <button id="inject-storage" class="danger" disabled={busy} onclick={inject_storage}
                        title="Every checkpoint write fails from now for that long: tasks decline with CHECKPOINT_ASYNC_EXCEPTION">
                    { "Inject storage failure now" }
                </button>
                <span class="muted hint">{ "Click a subtask in the job graph for subtask faults." }</span>
            </div>
            if let Some((now, target)) = p.progress {
                <p class="rerun" id="rerun-progress" role="status">
                    <progress max={target.max(1).to_string()} value={now.to_string()} />
                    { format!(" Re-running with the new fault script: {} of {}", format::sim_time(now), format::sim_time(target)) }
                </p>
            }
            if let Some(e) = p.error.as_ref().or(edit_error.as_ref()) {
                <p class="error" id="faults-error" role="alert">{ e.clone() }</p>
            }
            if p.faults.is_empty() {
                <p class="empty">{ "No faults: the job runs undisturbed." }</p>
            } else {
                <ol class="fault-list" id="fault-list">{ for rows }</ol>
            }
            <p class="muted note">
                { "Faults are part of the scenario: a change re-runs the job from 0 to now (deterministically), then it goes on." }
            </p>
        </div>
    }
}
