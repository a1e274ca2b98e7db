//! The tutorial band above the workspace: the picker, or the current step's narration with
//! Back / Next, what the step stopped on, and a link to the step.

use std::rc::Rc;

use yew::prelude::*;

use crate::components::share_bar::copy_to_clipboard;
use crate::format::sim_time;
use crate::state::{Action, State};
use crate::tutorial::{link, spans, Session, Source, Span, TutorialAction, TutorialView};

#[derive(Properties, PartialEq)]
pub struct TutorialPanelProps {
    pub view: Rc<TutorialView>,
    pub dispatch: UseReducerDispatcher<State>,
    /// The embed view: the step's narration and stop only, with a link to the full step.
    #[prop_or_default]
    pub compact: bool,
}

fn go(d: &UseReducerDispatcher<State>, action: TutorialAction) -> Callback<MouseEvent> {
    let d = d.clone();
    Callback::from(move |_| d.dispatch(Action::Tutorial(action.clone())))
}

/// Close (the picker) and Exit (a step): the tutorial goes, and so does its fragment in the
/// address bar (`#tutorial=…&step=…`, `#tutorials`), or a reload or a copied URL would bring it
/// back. Replaced, not navigated: no hashchange, no history entry. Any other fragment stays.
fn close(d: &UseReducerDispatcher<State>) -> Callback<MouseEvent> {
    let d = d.clone();
    Callback::from(move |_| {
        if let Some(window) = web_sys::window() {
            let location = window.location();
            if link::parse(&location.hash().unwrap_or_default()).is_some() {
                let url = format!(
                    "{}{}",
                    location.pathname().unwrap_or_default(),
                    location.search().unwrap_or_default()
                );
                if let Ok(history) = window.history() {
                    let _ = history.replace_state_with_url(
                        &wasm_bindgen::JsValue::NULL,
                        "",
                        Some(&url),
                    );
                }
            }
        }
        d.dispatch(Action::Tutorial(TutorialAction::Close));
    })
}

#[function_component(TutorialPanel)]
pub fn tutorial_panel(p: &TutorialPanelProps) -> Html {
    match &*p.view {
        TutorialView::Picker { message } => picker(message.as_deref(), &p.dispatch),
        TutorialView::Step(s) => {
            html! { <StepView session={s.clone()} dispatch={p.dispatch.clone()} compact={p.compact} /> }
        }
        TutorialView::Loading { url, step } => {
            html! { <LoadingView url={url.clone()} step={*step} dispatch={p.dispatch.clone()} /> }
        }
    }
}

#[derive(Properties, PartialEq)]
struct LoadingProps {
    url: String,
    step: usize,
    dispatch: UseReducerDispatcher<State>,
}

/// Fetches a tutorial file named by `#tutorial-url=` and hands it to the reducer.
#[function_component(LoadingView)]
fn loading_view(p: &LoadingProps) -> Html {
    {
        let (url, step, d) = (p.url.clone(), p.step, p.dispatch.clone());
        use_effect_with(p.url.clone(), move |_| {
            wasm_bindgen_futures::spawn_local(async move {
                let text = fetch_text(&url).await;
                d.dispatch(Action::Tutorial(TutorialAction::Loaded {
                    source: Source::Url(url),
                    text,
                    step,
                }));
            });
        });
    }
    html! {
        <section id="tutorial" class="tutorial-band" aria-label="Tutorial" aria-busy="true">
            <p id="tutorial-loading" class="muted">{ format!("Loading the tutorial file {} …", p.url) }</p>
        </section>
    }
}

/// The body of `url` as text, or a sentence saying why not.
async fn fetch_text(url: &str) -> Result<String, String> {
    use js_sys::{Function, Promise, Reflect};
    use wasm_bindgen::{JsCast, JsValue};
    use wasm_bindgen_futures::JsFuture;
    let why = |e: JsValue| {
        let detail = e
            .dyn_ref::<js_sys::Error>()
            .map(|e| String::from(e.message()))
            .or_else(|| e.as_string())
            .unwrap_or_else(|| "unknown error".into());
        format!(
            "Could not fetch the tutorial file “{url}”: {detail}. Check the address; a file on \
             another site must be served with CORS (Access-Control-Allow-Origin)."
        )
    };
    let response = JsFuture::from(gloo_utils::window().fetch_with_str(url))
        .await
        .map_err(why)?;
    let field = |name: &str| Reflect::get(&response, &JsValue::from_str(name)).ok();
    if field("ok").and_then(|v| v.as_bool()) != Some(true) {
        let status = field("status").and_then(|v| v.as_f64()).unwrap_or(0.0);
        return Err(format!(
            "Could not fetch the tutorial file “{url}”: the server answered HTTP {status}."
        ));
    }
    let text: Function = field("text")
        .and_then(|f| f.dyn_into().ok())
        .ok_or_else(|| why(JsValue::from_str("the response has no text")))?;
    let promise: Promise = text
        .call0(&response)
        .and_then(|p| p.dyn_into())
        .map_err(why)?;
    JsFuture::from(promise)
        .await
        .map_err(why)?
        .as_string()
        .ok_or_else(|| why(JsValue::from_str("the response is not text")))
}

fn picker(message: Option<&str>, d: &UseReducerDispatcher<State>) -> Html {
    html! {
        <section id="tutorial" class="tutorial-band" aria-label="Tutorials">
            <div class="tutorial-head">
                <strong class="tutorial-title">{ "Tutorials" }</strong>
                <span class="muted">{ "Five questions about Flink's checkpointing and a hands-on experiment, step by step." }</span>
                <span class="spacer" />
                <button id="tutorial-close" onclick={close(d)}>{ "Close" }</button>
            </div>
            if let Some(m) = message {
                <p id="tutorial-error" class="tutorial-error" role="alert">{ m }</p>
            }
            <ol id="tutorial-picker" class="tutorial-picker">
                { for crate::tutorial::all().into_iter().map(|t| html! {
                    <li>
                        <button class="tutorial-pick" data-id={t.id.clone()}
                                onclick={go(d, TutorialAction::Go(t.id.clone(), 0))}>{ &t.title }</button>
                        <span class="muted">{ format!(" {} ({} steps)", t.summary, t.steps.len()) }</span>
                    </li>
                }) }
            </ol>
            <p class="tutorial-load muted">
                <label for="tutorial-file">{ "Open a tutorial file (JSON, see docs/tutorials.md): " }</label>
                <input id="tutorial-file" type="file" accept=".json,application/json" onchange={on_file(d)} />
            </p>
        </section>
    }
}

/// A tutorial file chosen in the picker: read it and hand it to the reducer.
fn on_file(d: &UseReducerDispatcher<State>) -> Callback<Event> {
    let d = d.clone();
    Callback::from(move |e: Event| {
        let input: web_sys::HtmlInputElement = e.target_unchecked_into();
        let Some(file) = input.files().and_then(|f| f.get(0)) else {
            return;
        };
        input.set_value("");
        let d = d.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let name = file.name();
            let text = wasm_bindgen_futures::JsFuture::from(file.text())
                .await
                .ok()
                .and_then(|t| t.as_string())
                .ok_or_else(|| format!("Could not read the file “{name}”."));
            d.dispatch(Action::Tutorial(TutorialAction::Loaded {
                source: Source::File(name),
                text,
                step: 0,
            }));
        });
    })
}

fn narration(text: &str) -> Html {
    html! { for spans(text).into_iter().map(|s| match s {
        Span::Text(t) => html! { { t } },
        Span::Em(t) => html! { <em>{ t }</em> },
        Span::Code(t) => html! { <code>{ t }</code> },
    }) }
}

#[derive(Properties, PartialEq)]
struct StepProps {
    session: Session,
    dispatch: UseReducerDispatcher<State>,
    compact: bool,
}

#[function_component(StepView)]
fn step_view(p: &StepProps) -> Html {
    let s = &p.session;
    let t = s.tutorial;
    let step = &t.steps[s.step];
    let n = t.steps.len();
    let href = format!("{}{}", crate::share::base_url(), link::fragment(t, s.step));
    let copied = use_state(|| None::<bool>);
    // A new step: its URL goes into the address bar (no hashchange) and its panel into view.
    {
        let href = href.clone();
        let panel = step.view.panel.as_deref();
        let copied = copied.clone();
        let compact = p.compact;
        use_effect_with((t.id.as_str(), s.step, s.fingerprint.clone()), move |_| {
            copied.set(None);
            if compact {
                // An embed keeps its own URL and has no panels to scroll to.
                return;
            }
            if let Some(history) = web_sys::window().and_then(|w| w.history().ok()) {
                let _ =
                    history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&href));
            }
            if let Some(panel) = panel {
                // After the layout of the new step.
                gloo_timers::callback::Timeout::new(30, move || focus(panel)).forget();
            }
        });
    }
    let copy = {
        let href = href.clone();
        let copied = copied.clone();
        Callback::from(move |_| {
            let copied = copied.clone();
            copy_to_clipboard(&href, move |ok| copied.set(Some(ok)));
        })
    };
    let stop = match (&s.error, &s.hit) {
        (Some(e), _) => {
            html! { <p id="tutorial-error" class="tutorial-error" role="alert">{ e }</p> }
        }
        (None, Some(h)) => html! {
            <p id="tutorial-stop" class="tutorial-stop">
                { format!("Paused {} — at {}, {}: ", step.until.label(), sim_time(h.time), h.place) }
                <strong>{ &h.describe }</strong>
                <span class="muted">{ format!(" ({})", h.flink) }</span>
            </p>
        },
        (None, None) => html! {
            <p id="tutorial-stop" class="tutorial-stop">{ format!("Paused {}.", step.until.label()) }</p>
        },
    };
    if p.compact {
        return html! {
            <section id="tutorial" class="tutorial-band compact" aria-label="Tutorial step"
                     data-tutorial={t.id.clone()} data-step={(s.step + 1).to_string()}>
                <div class="tutorial-head">
                    <strong id="tutorial-title" class="tutorial-title">{ &t.title }</strong>
                    <span id="tutorial-step-count" class="muted">{ format!("Step {} of {}", s.step + 1, n) }</span>
                </div>
                <h3 id="tutorial-step-title" class="tutorial-step-title">{ &step.title }</h3>
                <p id="tutorial-text" class="tutorial-text">{ narration(&step.text) }</p>
                { stop }
                <code id="tutorial-fingerprint" hidden=true>{ &s.fingerprint }</code>
            </section>
        };
    }
    let back = (s.step > 0).then(|| TutorialAction::Go(t.id.clone(), s.step - 1));
    let next = (s.step + 1 < n).then(|| TutorialAction::Go(t.id.clone(), s.step + 1));
    html! {
        <section id="tutorial" class="tutorial-band" aria-label="Tutorial"
                 data-tutorial={t.id.clone()} data-step={(s.step + 1).to_string()}>
            <div class="tutorial-head">
                <strong id="tutorial-title" class="tutorial-title">{ &t.title }</strong>
                <span id="tutorial-step-count" class="muted">{ format!("Step {} of {}", s.step + 1, n) }</span>
                <span class="spacer" />
                <button id="tutorial-all" onclick={go(&p.dispatch, TutorialAction::Picker)}>{ "All tutorials" }</button>
                <button id="tutorial-close" onclick={close(&p.dispatch)}>{ "Exit" }</button>
            </div>
            <h3 id="tutorial-step-title" class="tutorial-step-title">{ &step.title }</h3>
            <p id="tutorial-text" class="tutorial-text">{ narration(&step.text) }</p>
            { stop }
            <div class="tutorial-nav">
                <button id="tutorial-back" disabled={back.is_none()}
                        onclick={back.map_or_else(Callback::noop, |a| go(&p.dispatch, a))}>{ "← Back" }</button>
                <button id="tutorial-next" class="primary" disabled={next.is_none()}
                        onclick={next.map_or_else(Callback::noop, |a| go(&p.dispatch, a))}>{ "Next →" }</button>
                <button id="tutorial-again" title="Re-run from the start to this step's stop"
                        onclick={go(&p.dispatch, TutorialAction::Go(t.id.clone(), s.step))}>{ "Run to this step again" }</button>
                <span class="muted">{ "fingerprint " }<code id="tutorial-fingerprint">{ &s.fingerprint }</code></span>
                <span class="spacer" />
                <input id="tutorial-link" readonly=true value={href} aria-label="Link to this step" />
                <button id="tutorial-copy" onclick={copy}>{ "Copy link" }</button>
                { match *copied {
                    Some(true) => html! { <span class="muted">{ "Copied" }</span> },
                    Some(false) => html! { <span class="muted">{ "Select the link to copy it" }</span> },
                    None => html! {},
                } }
            </div>
        </section>
    }
}

/// Marks the step's panel and scrolls its top to just below the (sticky) band.
fn focus(id: &str) {
    let doc = gloo_utils::document();
    let marked = doc.get_elements_by_class_name("tutorial-focus");
    // The collection is live: removing the class removes the element from it.
    while let Some(el) = marked.item(0) {
        set_focus_class(&el, false);
    }
    if let Some(el) = doc.get_element_by_id(id) {
        set_focus_class(&el, true);
        let window = gloo_utils::window();
        let band = doc
            .get_element_by_id("tutorial")
            .map_or(0.0, |b| b.get_bounding_client_rect().height());
        let y =
            window.scroll_y().unwrap_or(0.0) + el.get_bounding_client_rect().top() - band - 16.0;
        window.scroll_to_with_x_and_y(0.0, y.max(0.0));
    }
}

fn set_focus_class(el: &web_sys::Element, on: bool) {
    let class = el.get_attribute("class").unwrap_or_default();
    let mut classes: Vec<&str> = class
        .split_whitespace()
        .filter(|c| *c != "tutorial-focus")
        .collect();
    if on {
        classes.push("tutorial-focus");
    }
    let _ = el.set_attribute("class", &classes.join(" "));
}
