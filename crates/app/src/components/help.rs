use wasm_bindgen::JsCast;
use web_sys::HtmlElement;
use yew::prelude::*;

use crate::keyboard::SHORTCUTS;

#[derive(Properties, PartialEq)]
pub struct HelpProps {
    pub onclose: Callback<()>,
}

/// The keyboard shortcuts, over the page. The dialog takes the keyboard focus when it opens (a
/// screen reader announces it, Tab starts inside it) and hands it back to whatever had it when it
/// closes; Escape and `?` close it from anywhere (keyboard.rs).
#[function_component(HelpOverlay)]
pub fn help_overlay(props: &HelpProps) -> Html {
    let close = props.onclose.reform(|_: MouseEvent| ());
    let stop = Callback::from(|e: MouseEvent| e.stop_propagation());
    let dialog = use_node_ref();
    {
        let dialog = dialog.clone();
        use_effect_with((), move |_| {
            let before = gloo_utils::document()
                .active_element()
                .and_then(|e| e.dyn_into::<HtmlElement>().ok());
            if let Some(d) = dialog.cast::<HtmlElement>() {
                let _ = d.focus();
            }
            move || {
                if let Some(el) = before {
                    let _ = el.focus();
                }
            }
        });
    }
    html! {
        <div id="help-overlay" class="overlay" onclick={close.clone()}>
            <div id="help-dialog" class="dialog" role="dialog" aria-modal="true" aria-labelledby="help-title"
                 tabindex="-1" ref={dialog} onclick={stop}>
                <h2 id="help-title">{ "Keyboard shortcuts" }</h2>
                <table class="shortcuts">
                    <tbody>
                        { for SHORTCUTS.iter().map(|(key, what)| html! {
                            <tr><td><kbd>{ *key }</kbd></td><td>{ *what }</td></tr>
                        }) }
                    </tbody>
                </table>
                <p class="muted">
                    { "A subtask's fill is its busy time over the last second of simulated time (blue idle → red busy, as Flink's Web UI colours it); the dark bar beside it is its backpressured time. The Backpressure panel gives Flink's levels: OK ≤ 10 %, LOW ≤ 50 %, HIGH above." }
                </p>
                <p class="muted">
                    { "Tutorials (header, or #tutorials) walk through how Flink checkpoints, one paused step at a time; each step is a link: #tutorial=<id>&step=<n>." }
                </p>
                <p class="muted" id="help-numbering">
                    { "Subtasks are numbered from #0, as Flink's Web UI numbers them. Flink's task names and logs count from 1: subtask #0 of 2 is \"(1/2)\" there, and the event log quotes them that way." }
                </p>
                <button class="primary" onclick={close}>{ "Close" }</button>
            </div>
        </div>
    }
}
