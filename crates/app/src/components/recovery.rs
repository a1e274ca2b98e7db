//! Savepoints and recovery: stop-with-savepoint, restore from a retained checkpoint or savepoint,
//! rescale an operator (restoring the latest checkpoint with key groups redistributed).

use barrierlab_engine::sim::UserRequest;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

use crate::state::{Action, State};

#[derive(Properties, PartialEq)]
pub struct RecoveryProps {
    /// Retained checkpoints and savepoints: (id, is savepoint), oldest first.
    pub retained: Vec<(u64, bool)>,
    /// Operators with their current parallelism.
    pub operators: Vec<(String, u32)>,
    /// The job runs (RUNNING): stop-with-savepoint is possible.
    pub running: bool,
    /// A re-run is catching up: actions wait.
    pub busy: bool,
    pub error: Option<String>,
    pub dispatch: UseReducerDispatcher<State>,
}

#[function_component(RecoveryPanel)]
pub fn recovery_panel(p: &RecoveryProps) -> Html {
    let chosen = use_state(|| None::<u64>);
    let operator = use_state(|| None::<String>);
    let parallelism = use_state(String::new);
    let input_error = use_state(|| None::<String>);
    let restore_id = chosen
        .filter(|id| p.retained.iter().any(|(r, _)| r == id))
        .or_else(|| p.retained.last().map(|(id, _)| *id));
    let op = operator
        .as_ref()
        .filter(|o| p.operators.iter().any(|(n, _)| n == *o))
        .cloned()
        .or_else(|| {
            // Default: the first non-source operator (sources keep their parallelism).
            p.operators
                .get(1)
                .or(p.operators.first())
                .map(|(n, _)| n.clone())
        });
    let current = op
        .as_ref()
        .and_then(|o| p.operators.iter().find(|(n, _)| n == o))
        .map_or(1, |(_, par)| *par);
    let stop = {
        let d = p.dispatch.clone();
        Callback::from(move |_: MouseEvent| {
            d.dispatch(Action::Request(UserRequest::StopWithSavepoint))
        })
    };
    let on_choose = {
        let chosen = chosen.clone();
        Callback::from(move |e: Event| {
            let s: HtmlSelectElement = e.target_unchecked_into();
            chosen.set(s.value().parse().ok());
        })
    };
    let restore = {
        let d = p.dispatch.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(id) = restore_id {
                d.dispatch(Action::RestoreFrom(id));
            }
        })
    };
    let on_operator = {
        let operator = operator.clone();
        Callback::from(move |e: Event| {
            let s: HtmlSelectElement = e.target_unchecked_into();
            operator.set(Some(s.value()));
        })
    };
    let on_parallelism = {
        let parallelism = parallelism.clone();
        Callback::from(move |e: InputEvent| {
            let i: HtmlInputElement = e.target_unchecked_into();
            parallelism.set(i.value());
        })
    };
    let rescale = {
        let (d, op, text, err) = (
            p.dispatch.clone(),
            op.clone(),
            (*parallelism).clone(),
            input_error.clone(),
        );
        let text = if text.trim().is_empty() {
            (current + 1).to_string()
        } else {
            text
        };
        Callback::from(move |_: MouseEvent| {
            let Some(op) = op.clone() else { return };
            match text.trim().parse::<u32>() {
                Ok(n) if n >= 1 => {
                    err.set(None);
                    d.dispatch(Action::Rescale(op, n));
                }
                _ => err.set(Some(format!(
                    "parallelism: '{}' is not a whole number ≥ 1",
                    text.trim()
                ))),
            }
        })
    };
    let busy = p.busy;
    html! {
        <div class="recovery" id="recovery">
            <div class="recovery-row">
                <button id="stop-with-savepoint" disabled={!p.running || busy} onclick={stop}
                        title="POST /jobs/:id/stop: a synchronous savepoint, then the job is FINISHED">
                    { "Stop with savepoint" }
                </button>
            </div>
            <div class="recovery-row">
                <label class="knob">
                    <span>{ "Retained checkpoints and savepoints" }</span>
                    <select id="restore-select" onchange={on_choose} disabled={p.retained.is_empty()}>
                        if p.retained.is_empty() {
                            <option>{ "none yet" }</option>
                        }
                        { for p.retained.iter().map(|(id, savepoint)| html! {
                            <option value={id.to_string()} selected={Some(*id) == restore_id}>
                                { format!("{} {id}", if *savepoint { "savepoint" } else { "checkpoint" }) }
                            </option>
                        }) }
                    </select>
                </label>
                <button id="restore-button" disabled={restore_id.is_none() || busy} onclick={restore}
                        title="Stop the job now and restore it from this checkpoint or savepoint">
                    { "Restore" }
                </button>
            </div>
            <div class="recovery-row">
                <label class="knob">
                    <span>{ "Operator" }</span>
                    <select id="rescale-operator" onchange={on_operator}>
                        { for p.operators.iter().map(|(name, par)| html! {
                            <option value={name.clone()} selected={Some(name) == op.as_ref()}>
                                { format!("{name} (p = {par})") }
                            </option>
                        }) }
                    </select>
                </label>
                <label class="knob">
                    <span>{ "New parallelism" }</span>
                    <input id="rescale-parallelism" type="text" inputmode="numeric" autocomplete="off"
                           placeholder={(current + 1).to_string()} value={(*parallelism).clone()} oninput={on_parallelism} />
                </label>
                <button id="rescale-button" disabled={busy} onclick={rescale}
                        title="Restore the latest checkpoint with the new parallelism: key groups are redistributed">
                    { "Rescale" }
                </button>
            </div>
            if let (Some((sp, true)), Some(cp)) = (p.retained.last(), p.retained.iter().rev().find(|(_, s)| !s).map(|(id, _)| *id)) {
                <p class="warn note" id="rescale-warning">
                    { format!("Rescale restores the latest checkpoint ({cp}), not the newer savepoint {sp}: what was committed since checkpoint {cp} will be replayed.") }
                </p>
            }
            <p class="muted note">
                { "Rescaling restores the latest checkpoint; operators joined by FORWARD edges change together, sources keep theirs (one split per subtask)." }
            </p>
            if let Some(e) = input_error.as_ref().or(p.error.as_ref()) {
                <p class="error" id="recovery-error" role="alert">{ e.clone() }</p>
            }
        </div>
    }
}
