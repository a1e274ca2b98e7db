//! A first visit points at the tutorials: one line under the controls until it is dismissed or
//! a tutorial is opened (remembered in `localStorage`, so it never comes back on that browser).

use yew::prelude::*;

const KEY: &str = "barrierlab.welcomed";

fn storage() -> Option<web_sys::Storage> {
    web_sys::window().and_then(|w| w.local_storage().ok().flatten())
}

fn welcomed() -> bool {
    // No storage (private mode, blocked): show nothing rather than nag on every visit.
    storage().is_none_or(|s| s.get_item(KEY).ok().flatten().is_some())
}

fn remember() {
    if let Some(s) = storage() {
        let _ = s.set_item(KEY, "1");
    }
}

#[function_component(Welcome)]
pub fn welcome() -> Html {
    let shown = use_state(|| !welcomed());
    if !*shown {
        return html! {};
    }
    let dismiss = {
        let shown = shown.clone();
        Callback::from(move |_: MouseEvent| {
            remember();
            shown.set(false);
        })
    };
    html! {
        <div id="welcome" class="welcome" role="note">
            <span>
                { "New here? The demo job below runs Flink's checkpointing in your browser. The " }
                <a id="welcome-tutorials" href="#tutorials" onclick={dismiss.clone()}>{ "tutorials" }</a>
                { " walk through what happens, one paused step at a time." }
            </span>
            <button id="welcome-dismiss" class="icon" title="Dismiss" aria-label="Dismiss" onclick={dismiss}>{ "×" }</button>
        </div>
    }
}
