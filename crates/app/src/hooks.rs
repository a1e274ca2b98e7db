//! Small browser hooks.

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// Below this width the panels stack and the graph runs top to bottom.
pub const NARROW_QUERY: &str = "(max-width: 700px)";

/// Whether the media query `query` matches, kept up to date.
#[hook]
pub fn use_media_query(query: &'static str) -> bool {
    let list = use_memo((), move |_| {
        web_sys::window().and_then(|w| w.match_media(query).ok().flatten())
    });
    let matches = use_state(|| list.as_ref().as_ref().is_some_and(|l| l.matches()));
    {
        let matches = matches.clone();
        use_effect_with(list, move |list| {
            let list = (**list).clone();
            let listener = list.as_ref().map(|l| {
                let l2 = l.clone();
                let cb = Closure::<dyn Fn()>::new(move || matches.set(l2.matches()));
                let _ = l.add_event_listener_with_callback("change", cb.as_ref().unchecked_ref());
                cb
            });
            move || {
                if let (Some(l), Some(cb)) = (list, listener) {
                    let _ = l
                        .remove_event_listener_with_callback("change", cb.as_ref().unchecked_ref());
                }
            }
        });
    }
    *matches
}
