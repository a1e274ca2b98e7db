//! The imported-job page (`#import`, `#job=<key>`): open a bundle, keep it in this browser, and
//! see the real job as the Web UI's checkpoint tabs show it, with the playground's timeline and
//! "Why was checkpoint N slow?". Owns its own state: the simulated job is not touched.

pub mod details;
pub mod fields;
pub mod graph;
pub mod history;
pub mod open;
pub mod simulate;
pub mod stored;
pub mod summary;
pub mod why;

use std::rc::Rc;

use barrierlab_engine::import::derive::{derive, Derived};
use barrierlab_engine::import::explain::{explain, Explanation};
use barrierlab_engine::import::JobBundle;
use yew::prelude::*;

use crate::components::panel::Panel;
use crate::components::timeline::Timeline;
use crate::imported::simulate::{self as simulate_job, Figures};
use crate::imported::store::{self, StoredBundle};
use crate::imported::timeline::timeline;
use crate::imported::view::{job_view, subtask_rows, JobView};
use crate::imported::{open_text, Route};
use crate::model::timeline::TimelineCheckpoint;

/// An opened bundle and what its views need, computed once.
#[derive(PartialEq)]
pub struct OpenedJob {
    pub key: String,
    pub bundle: JobBundle,
    pub view: JobView,
    pub vertices: Rc<Vec<crate::imported::view::VertexView>>,
    pub history: Rc<Vec<crate::imported::view::HistoryRow>>,
    pub summary: Rc<Vec<crate::imported::view::SummaryRow>>,
    pub timeline: Rc<Vec<TimelineCheckpoint>>,
    pub explanation: Rc<Result<Explanation, String>>,
    /// "Simulate this job": the derived scenario (or why there is none), the real figures it is
    /// compared with, and how long to simulate.
    pub derived: Rc<Result<Derived, String>>,
    pub figures: Rc<Figures>,
    pub sim_target: barrierlab_engine::types::Micros,
}

impl OpenedJob {
    pub fn new(key: String, bundle: JobBundle) -> OpenedJob {
        let view = job_view(&bundle);
        let explanation = explain(&bundle, None).map_err(|e| {
            let mut s = e.to_string();
            if let Some(c) = s.get_mut(0..1) {
                c.make_ascii_uppercase();
            }
            format!("{s}.")
        });
        OpenedJob {
            key,
            vertices: Rc::new(view.vertices.clone()),
            history: Rc::new(view.history.clone()),
            summary: Rc::new(view.summary.clone()),
            timeline: Rc::new(timeline(&bundle)),
            explanation: Rc::new(explanation),
            derived: Rc::new(derive(&bundle)),
            figures: Rc::new(Figures::of(&bundle)),
            sim_target: simulate_job::target(&bundle),
            view,
            bundle,
        }
    }

    /// The checkpoint shown first: the newest completed one with details, else the newest with
    /// details.
    fn first_selected(&self) -> Option<u64> {
        let with_details = self.view.history.iter().filter(|r| r.has_details);
        with_details
            .clone()
            .find(|r| r.status == "COMPLETED")
            .or_else(|| with_details.clone().next())
            .map(|r| r.id)
            .or_else(|| self.bundle.subtasks.keys().next_back().copied())
    }
}

/// The imported-job route the page's fragment names, following `hashchange`.
#[hook]
pub fn use_import_route() -> Option<Route> {
    let route = use_state(|| crate::imported::route(&crate::share::location_hash()));
    {
        let route = route.clone();
        use_effect_with((), move |_| {
            use wasm_bindgen::JsCast;
            let window = gloo_utils::window();
            let cb = wasm_bindgen::closure::Closure::<dyn Fn()>::new(move || {
                route.set(crate::imported::route(&crate::share::location_hash()));
            });
            let _ =
                window.add_event_listener_with_callback("hashchange", cb.as_ref().unchecked_ref());
            move || {
                let _ = window
                    .remove_event_listener_with_callback("hashchange", cb.as_ref().unchecked_ref());
            }
        });
    }
    (*route).clone()
}

fn set_hash(fragment: &str) {
    let _ = gloo_utils::window().location().set_hash(fragment);
}

#[derive(Properties, PartialEq)]
pub struct ImportPageProps {
    pub route: Route,
}

#[function_component(ImportPage)]
pub fn import_page(p: &ImportPageProps) -> Html {
    let opened = use_state(|| None::<Rc<OpenedJob>>);
    let selected = use_state(|| None::<u64>);
    let error = use_state(|| None::<String>);
    let busy = use_state(|| false);
    let stored = use_state(|| Rc::new(Vec::<StoredBundle>::new()));
    let store_error = use_state(|| None::<String>);
    // Bumped to list the stored bundles again after a change.
    let listing = use_state(|| 0u32);
    {
        let (stored, store_error) = (stored.clone(), store_error.clone());
        use_effect_with(*listing, move |_| {
            wasm_bindgen_futures::spawn_local(async move {
                let listed = match store::open().await {
                    Ok(db) => store::list(&db).await,
                    Err(e) => Err(e),
                };
                match listed {
                    Ok(l) => stored.set(Rc::new(l)),
                    Err(e) => store_error.set(Some(format!(
                        "Stored jobs cannot be listed: {e}. Opening a bundle still works."
                    ))),
                }
            });
        });
    }
    // The key on show, set at once (state updates land at the next render, and the
    // `hashchange` of an opened bundle's new fragment may come first).
    let current = use_mut_ref(|| None::<String>);
    let show = {
        let (opened, selected, error) = (opened.clone(), selected.clone(), error.clone());
        let current = current.clone();
        Callback::from(move |job: OpenedJob| {
            *current.borrow_mut() = Some(job.key.clone());
            selected.set(job.first_selected());
            opened.set(Some(Rc::new(job)));
            error.set(None);
        })
    };
    // `#job=<key>`: the stored bundle, unless it is the one on show.
    {
        let (show, error, busy) = (show.clone(), error.clone(), busy.clone());
        let current = current.clone();
        use_effect_with(p.route.clone(), move |route| {
            if let Route::Job(key) = route.clone() {
                if current.borrow().as_deref() != Some(key.as_str()) {
                    busy.set(true);
                    wasm_bindgen_futures::spawn_local(async move {
                        let text = match store::open().await {
                            Ok(db) => store::load(&db, &key).await,
                            Err(e) => Err(e),
                        };
                        match text.and_then(|t| open_text(&t)) {
                            Ok(bundle) => show.emit(OpenedJob::new(key, bundle)),
                            Err(e) => error.set(Some(format!("Job “{key}” does not open: {e}"))),
                        }
                        busy.set(false);
                    });
                }
            }
        });
    }
    let ontext = {
        let (show, error, store_error, listing) = (
            show.clone(),
            error.clone(),
            store_error.clone(),
            listing.clone(),
        );
        Callback::from(move |(text, source): (String, String)| {
            if text.is_empty() {
                // A file that could not be read: `source` says why.
                error.set(Some(format!("This does not open: {source}.")));
                return;
            }
            match open_text(&text) {
                Err(e) => error.set(Some(format!("{e} (from {source}; nothing was changed)"))),
                Ok(bundle) => {
                    let entry = store::entry(&bundle, text.len());
                    let key = entry.key.clone();
                    show.emit(OpenedJob::new(key.clone(), bundle));
                    set_hash(&crate::imported::fragment(&key));
                    let (store_error, listing) = (store_error.clone(), listing.clone());
                    wasm_bindgen_futures::spawn_local(async move {
                        let stored = match store::open().await {
                            Ok(db) => store::put(&db, &entry, &text).await,
                            Err(e) => Err(e),
                        };
                        match stored {
                            Ok(()) => store_error.set(None),
                            Err(e) => store_error.set(Some(format!(
                                "Not stored in this browser: {e}. It stays open until you leave this page."
                            ))),
                        }
                        listing.set(*listing + 1);
                    });
                }
            }
        })
    };
    let ondelete = {
        let (opened, store_error, listing) = (opened.clone(), store_error.clone(), listing.clone());
        let current = current.clone();
        Callback::from(move |key: String| {
            let (opened, store_error, listing) =
                (opened.clone(), store_error.clone(), listing.clone());
            let current = current.clone();
            wasm_bindgen_futures::spawn_local(async move {
                let deleted = match store::open().await {
                    Ok(db) => store::delete(&db, &key).await,
                    Err(e) => Err(e),
                };
                match deleted {
                    Ok(()) => {
                        if opened.as_ref().is_some_and(|o| o.key == key) {
                            opened.set(None);
                            *current.borrow_mut() = None;
                            set_hash("#import");
                        }
                        store_error.set(None);
                    }
                    Err(e) => store_error.set(Some(format!("Not deleted: {e}."))),
                }
                listing.set(*listing + 1);
            });
        })
    };
    let onselect = {
        let selected = selected.clone();
        Callback::from(move |id: u64| selected.set(Some(id)))
    };
    // A bundle file dropped anywhere on the page.
    let dragging = use_state(|| false);
    let ondrop = {
        let (ontext, dragging) = (ontext.clone(), dragging.clone());
        Callback::from(move |e: web_sys::DragEvent| {
            e.prevent_default();
            dragging.set(false);
            if let Some(file) = e
                .data_transfer()
                .and_then(|d| d.files())
                .and_then(|f| f.get(0))
            {
                open::read_file(file, ontext.clone());
            }
        })
    };
    let ondragover = {
        let dragging = dragging.clone();
        Callback::from(move |e: web_sys::DragEvent| {
            e.prevent_default();
            if !*dragging {
                dragging.set(true);
            }
        })
    };
    let ondragleave = {
        let dragging = dragging.clone();
        Callback::from(move |e: web_sys::DragEvent| {
            // Leaving the page, not moving between its children.
            if e.related_target().is_none() {
                dragging.set(false);
            }
        })
    };
    let job = (*opened).clone();
    html! {
        <main id="import-page" class={classes!("import-page", dragging.then_some("dragging"))}
              ondrop={ondrop} ondragover={ondragover} ondragleave={ondragleave}>
            <p class="import-back"><a id="import-back" href="#">{ "← Back to the simulated job" }</a></p>
            <div class="import-top">
                <Panel id="import-open-panel" title="Open Flink job" area="import-open">
                    <open::OpenBundle ontext={ontext} error={(*error).clone().map(AttrValue::from)} busy={*busy} />
                </Panel>
                <Panel id="import-stored-panel" title="Stored in this browser" area="import-stored">
                    <stored::StoredBundles bundles={(*stored).clone()} current={job.as_ref().map(|j| AttrValue::from(j.key.clone()))}
                                           ondelete={ondelete} error={(*store_error).clone().map(AttrValue::from)} />
                </Panel>
            </div>
            if let Some(job) = job {
                { job_views(&job, *selected, onselect) }
            }
        </main>
    }
}

fn job_views(job: &Rc<OpenedJob>, selected: Option<u64>, onselect: Callback<u64>) -> Html {
    let v = &job.view;
    let rows = selected.map(|id| Rc::new(subtask_rows(&job.bundle, id)));
    html! {
        <>
            <section id="import-job" class="import-job" aria-label="Opened Flink job">
                <h2 id="import-job-name">{ &v.name }</h2>
                <p class="muted">
                    { format!("Job {} · {} · Flink {} · collected {} from {}", v.job_id, v.state, v.flink_version, v.collected_at, v.rest_url) }
                </p>
                if !v.notes.is_empty() {
                    <details id="import-notes" class="import-notes">
                        <summary>{ format!("{} note{} from reading the bundle", v.notes.len(), if v.notes.len() == 1 { "" } else { "s" }) }</summary>
                        <ul>{ for v.notes.iter().map(|n| html! { <li>{ n }</li> }) }</ul>
                    </details>
                }
            </section>
            <div class="import-workspace">
                <Panel id="import-graph-panel" title="Job graph" area="import-graph">
                    <graph::ImportedGraph vertices={job.vertices.clone()} />
                </Panel>
                <Panel id="import-overview-panel" title="Checkpoints: Overview" area="import-overview">
                    { overview(v) }
                </Panel>
                <Panel id="import-history-panel" title="Checkpoints: History" area="import-history">
                    <history::ImportedHistory key={job.key.clone()} rows={job.history.clone()} selected={selected} onselect={onselect} />
                </Panel>
                if let (Some(id), Some(rows)) = (selected, rows) {
                    <Panel id="import-details-panel" title={format!("Checkpoint {id}: subtasks")} area="import-details">
                        <details::ImportedDetails id={id} rows={rows} />
                    </Panel>
                    <Panel id="import-why-panel" title={format!("Why was checkpoint {id} slow?")} area="import-why">
                        <why::ImportedWhy explanation={job.explanation.clone()} selected={Some(id)} />
                    </Panel>
                }
                if !job.timeline.is_empty() {
                    <Panel id="import-timeline-panel" title="Timeline" area="import-timeline">
                        <Timeline checkpoints={job.timeline.clone()} narrow={false} />
                    </Panel>
                }
                <Panel id="import-simulate-panel" title="Simulate this job" area="import-simulate">
                    <simulate::ImportedSimulate key={job.key.clone()} derived={job.derived.clone()}
                                               real={job.figures.clone()} target={job.sim_target} />
                </Panel>
                <Panel id="import-summary-panel" title="Checkpoints: Summary" area="import-summary">
                    <summary::ImportedSummary rows={job.summary.clone()} />
                </Panel>
                <Panel id="import-config-panel" title="Checkpoints: Configuration" area="import-config">
                    if v.config.is_empty() {
                        <p class="empty">{ "The bundle has no checkpoint configuration (the job does not checkpoint, or the request failed)." }</p>
                    } else {
                        <fields::Fields id="import-config" fields={v.config.clone()} />
                    }
                </Panel>
            </div>
        </>
    }
}

fn overview(v: &JobView) -> Html {
    let Some(o) = &v.overview else {
        return html! { <p id="import-overview-none" class="empty">{ "No checkpoints yet: the bundle has no checkpoint statistics (the job had not checkpointed when it was collected, or does not checkpoint)." }</p> };
    };
    let part = |caption: &'static str, f: &Option<Vec<(&'static str, String)>>| {
        f.as_ref()
            .map(|f| html! { <fields::Fields caption={caption} fields={f.clone()} /> })
            .unwrap_or_default()
    };
    html! {
        <div id="import-overview" class="import-overview">
            <fields::Fields caption="Checkpoint Counts" fields={o.counts.clone()} />
            { part("Latest Completed Checkpoint", &o.latest_completed) }
            { part("Latest Failed Checkpoint", &o.latest_failed) }
            { part("Latest Savepoint", &o.latest_savepoint) }
            { part("Latest Restore", &o.latest_restored) }
        </div>
    }
}
