use yew::prelude::*;

use crate::keyboard::SHORTCUTS;

#[derive(Properties, PartialEq)]
pub struct HelpProps {
    pub onclose: Callback<()>,
}

/// The keyboard shortcuts, over the page.
#[function_component(HelpOverlay)]
pub fn help_overlay(props: &HelpProps) -> Html {
    let close = props.onclose.reform(|_: MouseEvent| ());
    let stop = Callback::from(|e: MouseEvent| e.stop_propagation());
    html! {
        <div id="help-overlay" class="overlay" onclick={close.clone()}>
            <div class="dialog" role="dialog" aria-modal="true" aria-labelledby="help-title" onclick={stop}>
                <h2 id="help-title">{ "Keyboard shortcuts" }</h2>
                <table class="shortcuts">
                    <tbody>
                        { for SHORTCUTS.iter().map(|(key, what)| html! {
                            <tr><td><kbd>{ *key }</kbd></td><td>{ *what }</td></tr>
                        }) }
                    </tbody>
                </table>
                <p class="muted">
                    { "Subtask colours follow Flink's back pressure levels: OK ≤ 10 %, LOW ≤ 50 %, HIGH above, over the last second of simulated time." }
                </p>
                <p class="muted">
                    { "Tutorials (header, or #tutorials) walk through how Flink checkpoints, one paused step at a time; each step is a link: #tutorial=<id>&step=<n>." }
                </p>
                <button class="primary" onclick={close}>{ "Close" }</button>
            </div>
        </div>
    }
}
