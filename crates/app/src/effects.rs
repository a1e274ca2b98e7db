//! The page's effects on the world around it: the timer that drives the simulation, a link
//! pasted into the address bar, a link's `panel=`, the work of the last visit (reopened, and kept
//! as it changes), and the end-to-end tests' deliberate panic.

use gloo_timers::callback::Interval;
use yew::prelude::*;

use crate::cadence::{Beat, Cadence, FRAME_MS};
use crate::clock;
use crate::state::{Action, State};

#[hook]
pub fn use_page_effects(state: UseReducerHandle<State>) {
    // The timer that moves the simulation on. The job as this render left it, for the frames
    // between two ticks (`cadence::Beat::Between`).
    let between = use_mut_ref(|| None);
    *between.borrow_mut() = state.between();
    {
        let dispatcher = state.dispatcher();
        use_effect_with((), move |_| {
            let cadence = std::rc::Rc::new(Cadence::default());
            let interval = Interval::new(FRAME_MS, move || {
                let now_ms = clock::now_ms();
                if crate::panic::panicked() {
                    return;
                }
                match cadence.beat(now_ms) {
                    Beat::Tick => {}
                    Beat::Between => {
                        if let Some(b) = between.borrow().as_ref() {
                            b.advance();
                        }
                        return;
                    }
                    Beat::Rest => return,
                }
                dispatcher.dispatch(Action::Tick {
                    now_ms,
                    render_ms: cadence.render_ms(),
                });
                // Yew re-renders in a microtask queued by the dispatch; this one runs after it.
                let reduced = clock::now_ms();
                cadence.simulated(reduced - now_ms);
                let cadence = cadence.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    let rendered = clock::now_ms() - reduced;
                    cadence.rendered(rendered);
                    #[cfg(target_arch = "wasm32")]
                    crate::worker::playing::drawn(rendered);
                });
            });
            move || drop(interval)
        });
    }
    // A link pasted into the address bar of an open playground.
    {
        let dispatcher = state.dispatcher();
        use_effect_with((), move |_| {
            use wasm_bindgen::JsCast;
            let window = gloo_utils::window();
            let cb = wasm_bindgen::closure::Closure::<dyn Fn()>::new(move || {
                dispatcher.dispatch(Action::OpenHash(crate::share::location_hash()));
            });
            let _ =
                window.add_event_listener_with_callback("hashchange", cb.as_ref().unchecked_ref());
            move || {
                let _ = window
                    .remove_event_listener_with_callback("hashchange", cb.as_ref().unchecked_ref());
            }
        });
    }
    // A link's `panel=`: bring that panel into view once the page is laid out.
    {
        let panel = state.ui.link.as_ref().and_then(|o| o.panel.clone());
        use_effect_with((), move |_| {
            if let Some(panel) = panel {
                gloo_timers::callback::Timeout::new(50, move || focus_panel(&panel)).forget();
            }
        });
    }
    // The work of the last visit: reopened on a page that opened no link or tutorial.
    {
        let dispatcher = state.dispatcher();
        let fresh = state.ui.link.is_none() && state.ui.tutorial.is_none() && !state.job.custom;
        use_effect_with((), move |_| {
            if fresh {
                wasm_bindgen_futures::spawn_local(async move {
                    match crate::storage::work::load().await {
                        Ok(Some(scenario)) => {
                            dispatcher.dispatch(Action::RestoreWork(Box::new(scenario)))
                        }
                        Ok(None) => {}
                        Err(e) => web_sys::console::warn_1(&e.into()),
                    }
                });
            }
        });
    }
    // ...and kept whenever the running scenario changes (after the first render).
    {
        let first = use_mut_ref(|| true);
        let work = (state.job.scenario.clone(), state.job.custom);
        use_effect_with(work, move |(scenario, custom)| {
            if !std::mem::replace(&mut *first.borrow_mut(), false) {
                let scenario = custom.then(|| (**scenario).clone());
                wasm_bindgen_futures::spawn_local(async move {
                    if let Err(e) = crate::storage::work::save(scenario.as_ref()).await {
                        web_sys::console::warn_1(&format!("current work not saved: {e}").into());
                    }
                });
            }
        });
    }
    // Debug aid for the end-to-end tests: `?debug=panic` panics on purpose after the first render.
    use_effect_with((), |_| {
        if crate::panic::panic_requested() {
            gloo_timers::callback::Timeout::new(100, || {
                panic!("deliberate panic requested by ?debug=panic");
            })
            .forget();
        }
    });
}

/// Scrolls a panel named by a link's `panel=` into view and focuses it: the panel's id, with or
/// without `-panel`, or a few friendly names.
fn focus_panel(name: &str) {
    let id = match name {
        "graph" => "job-graph",
        "history" => "checkpoints",
        "log" => "event-log",
        "faults" => "faults-panel",
        other => other,
    };
    let doc = gloo_utils::document();
    let Some(el) = doc
        .get_element_by_id(id)
        .or_else(|| doc.get_element_by_id(&format!("{id}-panel")))
    else {
        return;
    };
    let _ = el.set_attribute("tabindex", "-1");
    let class = el.get_attribute("class").unwrap_or_default();
    let _ = el.set_attribute("class", &format!("{class} focused"));
    el.scroll_into_view();
    if let Some(el) = wasm_bindgen::JsCast::dyn_ref::<web_sys::HtmlElement>(&el) {
        let _ = el.focus();
    }
}
