//! Keyboard shortcuts: space play/pause, `.` step, `p` step to a checkpoint phase, `c` checkpoint, `s` savepoint, `r` reset,
//! `?` help, Escape closes the help.

use barrierlab_engine::sim::UserRequest;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::state::{Action, State};

/// Every shortcut with what it does, for the help overlay.
pub const SHORTCUTS: &[(&str, &str)] = &[
    ("Space", "play / pause"),
    (".", "step: process the next event"),
    ("p", "step to the next checkpoint phase (trigger, barrier, alignment, sync, async, ack, complete…)"),
    ("c", "trigger a checkpoint"),
    ("s", "trigger a savepoint"),
    ("r", "reset the job (same preset and seed)"),
    ("+ −", "timeline (focused): zoom in / out; ctrl + wheel over it too"),
    ("← → 0", "timeline (focused): pan; reset the zoom (or drag the chart)"),
    ("Tab ↵", "job graph: reach a subtask; Enter or Space selects it for the inspector"),
    ("?", "show / hide this help"),
    ("Esc", "close this help"),
];

/// The action for a key, if it is a shortcut.
pub fn action_for(key: &str) -> Option<Action> {
    Some(match key {
        " " | "Spacebar" => Action::TogglePlay,
        "." => Action::Step,
        "p" => Action::StepPhase,
        "c" => Action::Request(UserRequest::Checkpoint),
        "s" => Action::Request(UserRequest::Savepoint),
        "r" => Action::Reset,
        "?" => Action::ToggleHelp,
        "Escape" => Action::CloseHelp,
        _ => return None,
    })
}

/// Whether the key belongs to a form field the user is typing in.
fn typing_into(event: &KeyboardEvent) -> bool {
    event
        .target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .is_some_and(|el| {
            matches!(
                el.tag_name().to_ascii_uppercase().as_str(),
                "INPUT" | "SELECT" | "TEXTAREA"
            )
        })
}

#[hook]
pub fn use_shortcuts(dispatcher: UseReducerDispatcher<State>) {
    use_effect_with((), move |_| {
        let document = gloo_utils::document();
        let listener = Closure::<dyn Fn(KeyboardEvent)>::new(move |e: KeyboardEvent| {
            if e.ctrl_key() || e.meta_key() || e.alt_key() || e.repeat() {
                return;
            }
            if typing_into(&e) && e.key() != "Escape" {
                return;
            }
            if let Some(action) = action_for(&e.key()) {
                // Space would also click a focused button and scroll the page.
                e.prevent_default();
                dispatcher.dispatch(action);
            }
        });
        let _ =
            document.add_event_listener_with_callback("keydown", listener.as_ref().unchecked_ref());
        move || {
            let _ = document
                .remove_event_listener_with_callback("keydown", listener.as_ref().unchecked_ref());
            drop(listener);
        }
    });
}
