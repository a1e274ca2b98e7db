//! Small browser hooks.

use std::rc::Rc;

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

/// Least wall-clock time between two rebuilds of a large job's graph while it plays.
const LARGE_GRAPH_EVERY_MS: f64 = 500.0;

/// The job graph's model of `sim`: rebuilt whenever the simulation moved, except that a large
/// job's ([`crate::derived::is_large`]), while it plays or catches up, at most every
/// [`LARGE_GRAPH_EVERY_MS`]. A new job or a pause rebuilds it at once.
#[hook]
pub fn use_graph_model(
    sim: crate::job::SimRef,
    pace: crate::derived::Pace,
) -> Rc<crate::model::graph::GraphModel> {
    // (model, version, submission, playing, wall-clock ms of the build)
    let kept = use_mut_ref(|| None::<(Rc<crate::model::graph::GraphModel>, u64, u64, bool, f64)>);
    let mut kept = kept.borrow_mut();
    let moving = pace.playing || pace.catching_up;
    let now = crate::clock::now_ms();
    let fresh = match &*kept {
        Some((model, version, submission, was_moving, at)) => {
            let same_job = *submission == sim.submission;
            let unchanged = same_job && *version == sim.version && *was_moving == moving;
            let large = crate::derived::is_large(&sim.borrow());
            let throttled = same_job && moving && large && now - at < LARGE_GRAPH_EVERY_MS;
            (unchanged || throttled).then(|| model.clone())
        }
        None => None,
    };
    if let Some(model) = fresh {
        return model;
    }
    let model = Rc::new(crate::model::graph::graph_model(&sim.borrow()));
    *kept = Some((model.clone(), sim.version, sim.submission, moving, now));
    model
}
