//! The topology editor: a palette of the engine's operator kinds, the draft's operators and
//! edges, a layered preview, and `Scenario::validate()`'s messages inline. Applying restarts the
//! simulation; an invalid draft cannot be applied and the running job keeps going.

mod draft;
mod edges;
mod operator_row;
mod preview;

pub use draft::{apply, Edit, KINDS};

use std::rc::Rc;

use barrierlab_engine::scenario::Scenario;
use yew::prelude::*;

use crate::components::cost_note::CostNote;
use crate::state::{Action, State};
use edges::Edges;
use operator_row::OperatorRow;
use preview::Preview;

#[derive(Properties, PartialEq)]
pub struct EditorProps {
    /// The scenario the running job was built from.
    pub live: Rc<Scenario>,
    pub dispatch: UseReducerDispatcher<State>,
}

#[function_component(TopologyEditor)]
pub fn topology_editor(p: &EditorProps) -> Html {
    let draft = use_state(|| (*p.live).clone());
    let input_error = use_state(|| None::<String>);
    {
        let (draft, input_error) = (draft.clone(), input_error.clone());
        use_effect_with(p.live.clone(), move |live| {
            draft.set((**live).clone());
            input_error.set(None);
        });
    }
    let onedit = {
        let (draft, input_error) = (draft.clone(), input_error.clone());
        Callback::from(move |edit: Edit| {
            let mut next = (*draft).clone();
            match apply(&mut next, edit) {
                Ok(()) => {
                    draft.set(next);
                    input_error.set(None);
                }
                Err(e) => input_error.set(Some(e)),
            }
        })
    };
    let errors: Vec<String> = match draft.validate() {
        Ok(_) => Vec::new(),
        Err(errs) => errs.iter().map(|e| e.to_string()).collect(),
    };
    let dirty = *draft != *p.live;
    let apply_cb = {
        let (d, draft) = (p.dispatch.clone(), draft.clone());
        Callback::from(move |_| d.dispatch(Action::ApplyScenario(Box::new((*draft).clone()))))
    };
    let revert = {
        let (draft, live, input_error) = (draft.clone(), p.live.clone(), input_error.clone());
        Callback::from(move |_| {
            draft.set((*live).clone());
            input_error.set(None);
        })
    };
    let names: Vec<String> = draft.operators.iter().map(|o| o.name.clone()).collect();
    html! {
        <div class="editor" id="editor">
            <div class="palette" role="group" aria-label="Add operator">
                <span class="muted">{ "Add:" }</span>
                { for KINDS.iter().map(|k| {
                    let on = onedit.clone();
                    let k2 = k.to_string();
                    html! { <button class="palette-item" id={format!("add-{k}")} onclick={Callback::from(move |_| on.emit(Edit::Add(k2.clone())))}>{ *k }</button> }
                }) }
            </div>
            <div class="editor-body">
                <div class="editor-lists">
                    <h3>{ "Operators" }</h3>
                    <ul class="op-list">
                        { for draft.operators.iter().enumerate().map(|(i, op)| html! {
                            <OperatorRow key={i} index={i} op={op.clone()} default_parallelism={draft.default_parallelism()}
                                         onedit={onedit.clone()} />
                        }) }
                    </ul>
                    <h3>{ "Edges" }</h3>
                    <Edges edges={draft.edges.clone()} names={names} onedit={onedit.clone()} />
                </div>
                <div class="editor-preview">
                    <Preview draft={(*draft).clone()} />
                </div>
            </div>
            if let Some(e) = &*input_error {
                <p class="error" id="editor-input-error" role="alert">{ e.clone() }</p>
            }
            if errors.is_empty() {
                <p class="ok-note" id="editor-valid">{ if dirty { "Valid: apply to restart the job with it." } else { "This is the running job." } }</p>
            } else {
                <ul class="validation" id="editor-errors" role="alert">
                    { for errors.iter().map(|e| html! { <li>{ e.clone() }</li> }) }
                </ul>
            }
            if errors.is_empty() {
                <CostNote draft={(*draft).clone()} id="editor-cost" />
            }
            <div class="editor-actions">
                <button id="editor-apply" class="primary" disabled={!errors.is_empty() || !dirty} onclick={apply_cb}>{ "Apply & restart" }</button>
                <button id="editor-revert" disabled={!dirty} onclick={revert}>{ "Revert" }</button>
            </div>
        </div>
    }
}
