//! The fault menu of one subtask (opened by clicking it in the job graph): kill it now, make an
//! operator of its chain slow, make it decline a checkpoint or lose a notification, delay its
//! acks. Every choice becomes a fault in the scenario at the current simulated time.

use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

use crate::faults::{subtask_fault, SubtaskFault};
use crate::job::SimCell;
use crate::model::subtask_label;
use crate::state::{Action, State};

#[derive(Properties, PartialEq)]
pub struct FaultMenuProps {
    pub sim: SimCell,
    /// The job vertex's name, its operators (scenario names, chain order) and the subtask.
    pub vertex: String,
    pub operators: Vec<String>,
    pub subtask: u32,
    /// The id the next checkpoint will get (the default for decline / lose notification).
    pub next_checkpoint: u64,
    /// A re-run is catching up: injecting waits.
    pub busy: bool,
    pub dispatch: UseReducerDispatcher<State>,
}

/// A labelled text field bound to `value`, showing `shown`.
pub(crate) fn text_input(
    id: &'static str,
    label: &'static str,
    value: &UseStateHandle<String>,
    shown: String,
) -> Html {
    let oninput = {
        let value = value.clone();
        Callback::from(move |e: InputEvent| {
            let input: HtmlInputElement = e.target_unchecked_into();
            value.set(input.value());
        })
    };
    html! {
        <label class="knob">
            <span>{ label }</span>
            <input {id} type="text" autocomplete="off" value={shown} {oninput} />
        </label>
    }
}

#[function_component(FaultMenu)]
pub fn fault_menu(p: &FaultMenuProps) -> Html {
    let operator = use_state(|| 0usize);
    let cost = use_state(|| "5ms".to_string());
    let checkpoint = use_state(String::new);
    let delay = use_state(|| "2s".to_string());
    let span = use_state(|| "10s".to_string());
    let error = use_state(|| None::<String>);
    let op_index = (*operator).min(p.operators.len().saturating_sub(1));
    let op_name = p.operators.get(op_index).cloned().unwrap_or_default();
    let checkpoint_text = if checkpoint.is_empty() {
        p.next_checkpoint.to_string()
    } else {
        (*checkpoint).clone()
    };
    let inject = |what: SubtaskFault| {
        let (sim, d, error) = (p.sim.clone(), p.dispatch.clone(), error.clone());
        let (op, subtask) = (op_name.clone(), p.subtask);
        let amount = match what {
            SubtaskFault::Kill => String::new(),
            SubtaskFault::Slow => (*cost).clone(),
            SubtaskFault::Decline | SubtaskFault::LoseNotification => checkpoint_text.clone(),
            SubtaskFault::DelayAcks => (*delay).clone(),
        };
        let span = (*span).clone();
        Callback::from(move |_: MouseEvent| {
            let now = sim.borrow().now;
            match subtask_fault(what, &op, subtask, now, &amount, &span) {
                Ok(fault) => {
                    error.set(None);
                    d.dispatch(Action::AddFault(fault));
                }
                Err(e) => error.set(Some(e)),
            }
        })
    };
    let on_operator = {
        let operator = operator.clone();
        Callback::from(move |e: Event| {
            let select: HtmlSelectElement = e.target_unchecked_into();
            operator.set(select.value().parse().unwrap_or(0));
        })
    };
    let close = {
        let d = p.dispatch.clone();
        Callback::from(move |_: MouseEvent| d.dispatch(Action::Inspect(None)))
    };
    let disabled = p.busy;
    html! {
        <div class="fault-menu" id="fault-menu" role="group" aria-label="Inject a fault">
            <div class="fault-menu-head">
                <strong id="fault-menu-title">{ format!("Inject into {}", subtask_label(&p.vertex, p.subtask)) }</strong>
                <button class="icon" id="fault-menu-close" title="Close" aria-label="Close the fault menu" onclick={close}>{ "×" }</button>
            </div>
            <div class="fault-menu-body">
            <div class="fault-menu-grid">
                <label class="knob">
                    <span>{ "Operator" }</span>
                    <select id="fault-operator" onchange={on_operator}>
                        { for p.operators.iter().enumerate().map(|(i, name)| html! {
                            <option value={i.to_string()} selected={i == op_index}>{ name.clone() }</option>
                        }) }
                    </select>
                </label>
                <button id="fault-kill" class="danger" {disabled} onclick={inject(SubtaskFault::Kill)}
                        title="The subtask throws now: the job fails over and restores from the latest checkpoint">
                    { "Kill now" }
                </button>
            </div>
            <div class="fault-menu-grid">
                { text_input("fault-cost", "Cost per record", &cost, (*cost).clone()) }
                <button id="fault-slow" {disabled} onclick={inject(SubtaskFault::Slow)}
                        title="From now on the operator costs this much per record (all its subtasks)">
                    { "Make operator slow" }
                </button>
            </div>
            <div class="fault-menu-grid">
                { text_input("fault-checkpoint", "Checkpoint", &checkpoint, checkpoint_text.clone()) }
                <button id="fault-decline" {disabled} onclick={inject(SubtaskFault::Decline)}
                        title="The subtask declines that checkpoint (CHECKPOINT_DECLINED)">
                    { "Decline it" }
                </button>
                <button id="fault-lose" {disabled} onclick={inject(SubtaskFault::LoseNotification)}
                        title="notifyCheckpointComplete of that checkpoint never reaches the subtask">
                    { "Lose its notification" }
                </button>
            </div>
            <div class="fault-menu-grid">
                { text_input("fault-delay-by", "Delay acks by", &delay, (*delay).clone()) }
                { text_input("fault-delay-for", "for", &span, (*span).clone()) }
                <button id="fault-delay" {disabled} onclick={inject(SubtaskFault::DelayAcks)}
                        title="The subtask's acks reach the JobManager later, from now for that long">
                    { "Delay acks" }
                </button>
            </div>
            </div>
            if let Some(e) = &*error {
                <p class="error" id="fault-menu-error" role="alert">{ e.clone() }</p>
            }
        </div>
    }
}
