//! "Copy link" and "Embed": the running scenario as a URL (docs/sharing.md) or an `<iframe>`.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{HtmlInputElement, HtmlTextAreaElement};
use yew::prelude::*;

use crate::share;

#[derive(Properties, PartialEq)]
pub struct ShareBarProps {
    pub current: share::Current,
}

#[derive(Clone, PartialEq)]
enum Shown {
    Nothing,
    /// The link, and whether the clipboard took it.
    Link(String, Option<bool>),
    Embed(String),
}

/// Writes `text` to the clipboard; `done(false)` when there is no clipboard or it refused.
pub(crate) fn copy_to_clipboard(text: &str, done: impl Fn(bool) + 'static) {
    let write = web_sys::window()
        .map(|w| JsValue::from(w.navigator()))
        .and_then(|n| js_sys::Reflect::get(&n, &"clipboard".into()).ok())
        .filter(|c| !c.is_undefined() && !c.is_null())
        .and_then(|c| {
            let f = js_sys::Reflect::get(&c, &"writeText".into()).ok()?;
            let f: js_sys::Function = f.dyn_into().ok()?;
            f.call1(&c, &text.into()).ok()
        })
        .and_then(|p| p.dyn_into::<js_sys::Promise>().ok());
    let Some(promise) = write else {
        done(false);
        return;
    };
    let done = std::rc::Rc::new(done);
    let ok = {
        let done = done.clone();
        Closure::<dyn FnMut(JsValue)>::new(move |_: JsValue| done(true))
    };
    let err = Closure::<dyn FnMut(JsValue)>::new(move |_: JsValue| done(false));
    let _ = promise.then2(&ok, &err);
    // One of the two runs once; a click leaks two small closures.
    ok.forget();
    err.forget();
}

/// Selects the contents of the element with this id (the fallback when copying is not possible).
fn select(id: &str) {
    let Some(el) = gloo_utils::document().get_element_by_id(id) else {
        return;
    };
    if let Some(input) = el.dyn_ref::<HtmlInputElement>() {
        let _ = input.focus();
        input.select();
    } else if let Some(area) = el.dyn_ref::<HtmlTextAreaElement>() {
        let _ = area.focus();
        area.select();
    }
}

#[function_component(ShareBar)]
pub fn share_bar(p: &ShareBarProps) -> Html {
    let shown = use_state(|| Shown::Nothing);
    let on_copy = {
        let current = p.current.clone();
        let shown = shown.clone();
        Callback::from(move |_: MouseEvent| {
            let fragment = current.fragment(false);
            if let Some(history) = web_sys::window().and_then(|w| w.history().ok()) {
                let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&fragment));
            }
            let href = web_sys::window()
                .and_then(|w| w.location().href().ok())
                .unwrap_or_else(|| format!("{}{fragment}", share::base_url()));
            shown.set(Shown::Link(href.clone(), None));
            let shown = shown.clone();
            let text = href.clone();
            copy_to_clipboard(&href, move |ok| {
                shown.set(Shown::Link(text.clone(), Some(ok)));
                if !ok {
                    select("share-url");
                }
            });
        })
    };
    let on_embed = {
        let current = p.current.clone();
        let shown = shown.clone();
        Callback::from(move |_: MouseEvent| {
            if matches!(*shown, Shown::Embed(_)) {
                shown.set(Shown::Nothing);
            } else {
                shown.set(Shown::Embed(current.iframe_snippet()));
            }
        })
    };
    let on_copy_snippet = {
        let shown = shown.clone();
        Callback::from(move |_: MouseEvent| {
            if let Shown::Embed(snippet) = &*shown {
                copy_to_clipboard(snippet, |ok| {
                    if !ok {
                        select("embed-snippet");
                    }
                });
            }
        })
    };
    let close = {
        let shown = shown.clone();
        Callback::from(move |_: MouseEvent| shown.set(Shown::Nothing))
    };
    let body = match &*shown {
        Shown::Nothing => html! {},
        Shown::Link(url, copied) => html! {
            <div class="share-output">
                <input id="share-url" type="text" readonly=true value={url.clone()} aria-label="Link to this run"
                       onfocus={Callback::from(|e: FocusEvent| e.target_unchecked_into::<HtmlInputElement>().select())} />
                <span id="share-status" class="muted">
                    { match copied {
                        Some(true) => format!("Link copied ({} characters)", url.len()),
                        Some(false) => "Copy the selected link".to_string(),
                        None => String::new(),
                    } }
                </span>
                <button class="icon" title="Close" aria-label="Close" onclick={close}>{ "×" }</button>
            </div>
        },
        Shown::Embed(snippet) => html! {
            <div class="share-output">
                <textarea id="embed-snippet" readonly=true rows="3" aria-label="Embed code" value={snippet.clone()} />
                <button id="copy-embed" onclick={on_copy_snippet}>{ "Copy" }</button>
                <button class="icon" title="Close" aria-label="Close" onclick={close}>{ "×" }</button>
            </div>
        },
    };
    html! {
        <div class="share-bar">
            <button id="copy-link" title="Copy a link that reproduces this run (paused: at this time)"
                    onclick={on_copy}>{ "Copy link" }</button>
            <button id="embed-button" title="HTML to embed this run in a page"
                    aria-pressed={matches!(*shown, Shown::Embed(_)).to_string()}
                    onclick={on_embed}>{ "</> Embed" }</button>
            { body }
        </div>
    }
}
