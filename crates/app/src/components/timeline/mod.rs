//! Per-subtask checkpoint phases (start delay → alignment → sync → async) as stacked bars, one
//! group per checkpoint, on a time axis shared by every group (time since the trigger), with a
//! JobManager row marking trigger, completion and notification. The view follows the newest
//! checkpoints or stays on a pinned one; it zooms (buttons, `+`/`-`, ctrl + wheel) and pans
//! (drag, buttons, arrow keys); hovering shows the numbers; outliers are marked.

mod draw;
pub mod view;

use std::rc::Rc;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::HtmlSelectElement;
use yew::events::WheelEvent;
use yew::prelude::*;

use barrierlab_engine::stats::CheckpointStatsStatus;

use crate::format;
use crate::model::timeline::{TimelineCheckpoint, OUTLIER_RULE};
use draw::{Axis, Dims, AXIS_H};
use view::{View, ViewAction, PAN_STEP, ZOOM_STEP};

/// Subtask rows shown at most while following the newest (whole checkpoints; at least one).
const MAX_ROWS: usize = 26;
/// Above this many rows the chart scrolls in a box and draws only the rows in view.
const VIRTUAL_ROWS: usize = 120;
/// Rows drawn beyond each edge of the view, so a scroll shows no gap before the redraw.
const OVERSCAN_PX: f64 = 300.0;

#[derive(Properties)]
pub struct TimelineProps {
    /// Built whole by `Derived` and never changed: the same `Rc` is the same timeline.
    /// Comparing contents walked every subtask's phases on each render (2.5 % of the
    /// 4096-subtask job's page time in a Chromium profile).
    pub checkpoints: Rc<Vec<TimelineCheckpoint>>,
    /// A narrower drawing for phones.
    #[prop_or_default]
    pub narrow: bool,
    /// The embed view: the newest checkpoint (and, while it is in progress, the newest finished
    /// one) drawn to the width available, without the zoom toolbar.
    #[prop_or_default]
    pub compact: bool,
}

impl PartialEq for TimelineProps {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.checkpoints, &other.checkpoints)
            && self.narrow == other.narrow
            && self.compact == other.compact
    }
}

/// Where a client x falls across the chart, as a fraction of the visible window.
fn anchor_at(svg: &web_sys::Element, client_x: f64, d: Dims) -> f64 {
    let rect = svg.get_bounding_client_rect();
    if rect.width() <= 0.0 {
        return 0.5;
    }
    let x = (client_x - rect.left()) * d.w / rect.width();
    ((x - d.label_w) / d.chart_w).clamp(0.0, 1.0)
}

/// Chart pixels on screen per visible window (for drags).
fn window_px(svg: &web_sys::Element, d: Dims) -> f64 {
    let rect = svg.get_bounding_client_rect();
    (rect.width() * d.chart_w / d.w).max(1.0)
}

#[function_component(Timeline)]
pub fn timeline(p: &TimelineProps) -> Html {
    let d = Dims::new(p.narrow);
    let view = use_reducer(View::default);
    let pinned = use_state(|| None::<u64>);
    let drag = use_mut_ref(|| None::<(f64, View)>);
    let svg_ref = use_node_ref();
    let wrap_ref = use_node_ref();
    // The scroll box's (scrollTop, clientHeight, clientWidth) in CSS pixels, for a chart of many
    // rows: read when it scrolls or appears, never while rendering (a layout read there makes the
    // browser lay the whole page out again, every tick of a large job).
    let scroll = use_state(|| (0.0f64, 600.0f64, None::<f64>));
    let scroll_ref = use_node_ref();

    // Ctrl + wheel zooms around the pointer. A native listener: it must not be passive, or the
    // browser would zoom the page too. A plain wheel still scrolls the page.
    {
        // On the wrapper, which exists before the first checkpoint draws the chart.
        let (wrap_ref, svg_ref, dispatcher) =
            (wrap_ref.clone(), svg_ref.clone(), view.dispatcher());
        use_effect_with(p.narrow, move |_| {
            let target = wrap_ref.cast::<web_sys::Element>();
            let listener = target.as_ref().map(|wrap| {
                let cb = Closure::<dyn Fn(WheelEvent)>::new(move |e: WheelEvent| {
                    if !(e.ctrl_key() || e.meta_key()) || e.delta_y() == 0.0 {
                        return;
                    }
                    let Some(svg2) = svg_ref.cast::<web_sys::Element>() else {
                        return;
                    };
                    let r = svg2.get_bounding_client_rect();
                    let (x, y) = (f64::from(e.client_x()), f64::from(e.client_y()));
                    if x < r.left() || x > r.right() || y < r.top() || y > r.bottom() {
                        return;
                    }
                    e.prevent_default();
                    let factor = if e.delta_y() < 0.0 {
                        ZOOM_STEP
                    } else {
                        1.0 / ZOOM_STEP
                    };
                    dispatcher.dispatch(ViewAction::Zoom(
                        factor,
                        anchor_at(&svg2, f64::from(e.client_x()), d),
                    ));
                });
                let opts = web_sys::AddEventListenerOptions::new();
                opts.set_passive(false);
                let _ = wrap.add_event_listener_with_callback_and_add_event_listener_options(
                    "wheel",
                    cb.as_ref().unchecked_ref(),
                    &opts,
                );
                (wrap.clone(), cb)
            });
            move || {
                if let Some((svg, cb)) = listener {
                    let _ = svg
                        .remove_event_listener_with_callback("wheel", cb.as_ref().unchecked_ref());
                }
            }
        });
    }

    // Which checkpoints: the pinned one, or the newest that fit. A pinned checkpoint is kept
    // (its last copy) after it leaves the statistics history.
    let kept = use_mut_ref(|| None::<TimelineCheckpoint>);
    let pinned_cp: Option<TimelineCheckpoint> = match *pinned {
        Some(id) => {
            let mut kept = kept.borrow_mut();
            if let Some(cp) = p.checkpoints.iter().find(|c| c.id == id) {
                *kept = Some(cp.clone());
            }
            kept.clone().filter(|c| c.id == id)
        }
        None => None,
    };
    let lost_pin = pinned_cp
        .as_ref()
        .filter(|cp| !p.checkpoints.iter().any(|c| c.id == cp.id))
        .map(|cp| cp.id);
    let cps: Vec<&TimelineCheckpoint> = match &pinned_cp {
        Some(cp) => vec![cp],
        None if p.compact => {
            let n = p
                .checkpoints
                .iter()
                .position(|c| c.status != CheckpointStatsStatus::IN_PROGRESS)
                .map_or(1, |i| i + 1);
            p.checkpoints.iter().take(n.clamp(1, 2)).collect()
        }
        None => {
            let mut rows = 0;
            p.checkpoints
                .iter()
                .take_while(|c| {
                    rows += c.subtasks.len() + 1;
                    rows <= MAX_ROWS || rows == c.subtasks.len() + 1
                })
                .collect()
        }
    };

    let act = |a: ViewAction| {
        let v = view.dispatcher();
        Callback::from(move |_: MouseEvent| v.dispatch(a))
    };
    let onkeydown = {
        let v = view.dispatcher();
        Callback::from(move |e: KeyboardEvent| {
            let a = match e.key().as_str() {
                "+" | "=" => ViewAction::Zoom(ZOOM_STEP, 0.5),
                "-" | "_" => ViewAction::Zoom(1.0 / ZOOM_STEP, 0.5),
                "ArrowLeft" => ViewAction::Pan(-PAN_STEP),
                "ArrowRight" => ViewAction::Pan(PAN_STEP),
                "0" => ViewAction::Reset,
                _ => return,
            };
            e.prevent_default();
            v.dispatch(a);
        })
    };
    let onpin = {
        let pinned = pinned.clone();
        Callback::from(move |id: u64| pinned.set(if *pinned == Some(id) { None } else { Some(id) }))
    };
    let onselect = {
        let pinned = pinned.clone();
        Callback::from(move |e: Event| {
            let select: HtmlSelectElement = e.target_unchecked_into();
            pinned.set(select.value().parse::<u64>().ok());
        })
    };
    let onmousedown = {
        let (drag, view) = (drag.clone(), view.clone());
        Callback::from(move |e: MouseEvent| {
            if e.button() == 0 && view.zoom > 1.0 {
                e.prevent_default();
                *drag.borrow_mut() = Some((f64::from(e.client_x()), *view));
            }
        })
    };
    let onmousemove = {
        let (drag, v, svg_ref) = (drag.clone(), view.dispatcher(), svg_ref.clone());
        Callback::from(move |e: MouseEvent| {
            let Some((x0, start)) = *drag.borrow() else {
                return;
            };
            if e.buttons() & 1 == 0 {
                return;
            }
            let Some(svg) = svg_ref.cast::<web_sys::Element>() else {
                return;
            };
            let windows = (x0 - f64::from(e.client_x())) / window_px(&svg, d);
            v.dispatch(ViewAction::DragFrom(start, windows));
        })
    };
    let end_drag = {
        let drag = drag.clone();
        Callback::from(move |_: MouseEvent| *drag.borrow_mut() = None)
    };

    // The shared axis: the longest of the checkpoints shown (at least 1 ms).
    let span = cps.iter().map(|c| c.span()).max().unwrap_or(1).max(1000);
    let (t0, t1) = view.range(span);
    let ax = Axis::new(d, t0, t1);
    let rows: usize = cps.iter().map(|c| c.subtasks.len() + 1).sum();
    let virtual_rows = rows > VIRTUAL_ROWS;
    // The view's y range in chart units: the chart is scaled to the box's width.
    {
        let (scroll, scroll_ref) = (scroll.clone(), scroll_ref.clone());
        use_effect_with(virtual_rows, move |&tall| {
            if let Some(el) = scroll_ref.cast::<web_sys::Element>().filter(|_| tall) {
                scroll.set(box_geometry(&el));
            }
        });
    }
    let visible = virtual_rows.then(|| {
        let (top, view_h, width) = *scroll;
        let scale = (width.unwrap_or(d.w) / d.w).max(0.1);
        (
            (top - OVERSCAN_PX) / scale,
            (top + view_h + OVERSCAN_PX) / scale,
        )
    });
    let onscroll = {
        let scroll = scroll.clone();
        Callback::from(move |e: Event| {
            let el: web_sys::Element = e.target_unchecked_into();
            scroll.set(box_geometry(&el));
        })
    };
    let (groups, bottom) = draw::groups(&cps, ax, AXIS_H, &onpin, visible);
    let height = bottom + 8.0;
    let range_text = format!(
        "showing +{} … +{} ({:.1}×){}",
        format::micros(t0),
        format::micros(t1),
        view.zoom,
        match (&pinned_cp, lost_pin) {
            (Some(cp), None) => format!(" · pinned: checkpoint {}", cp.id),
            (Some(cp), Some(_)) =>
                format!(" · pinned: checkpoint {} (no longer in the history)", cp.id),
            _ => " · following the newest".to_string(),
        }
    );
    let toolbar = html! {
        <div class="tl-toolbar" role="toolbar" aria-label="Timeline view">
            <label class="field">
                <span>{ "Show" }</span>
                <select id="tl-pin" onchange={onselect} title="Follow the newest checkpoints, or pin one">
                    <option value="" selected={pinned_cp.is_none()}>{ "Follow newest" }</option>
                    { for lost_pin.iter().map(|id| html! {
                        <option value={id.to_string()} selected=true>{ format!("Pin checkpoint {id}") }</option>
                    }) }
                    { for p.checkpoints.iter().map(|c| html! {
                        <option value={c.id.to_string()} selected={pinned_cp.as_ref().is_some_and(|x| x.id == c.id)}>
                            { format!("Pin {} {}", if c.savepoint { "savepoint" } else { "checkpoint" }, c.id) }
                        </option>
                    }) }
                </select>
            </label>
            <button id="tl-zoom-out" class="icon" title="Zoom out (-)" aria-label="Zoom out"
                    disabled={view.zoom <= 1.0} onclick={act(ViewAction::Zoom(1.0 / ZOOM_STEP, 0.5))}>{ "−" }</button>
            <button id="tl-zoom-in" class="icon" title="Zoom in (+, or ctrl + wheel over the chart)" aria-label="Zoom in"
                    disabled={view.zoom >= view::MAX_ZOOM} onclick={act(ViewAction::Zoom(ZOOM_STEP, 0.5))}>{ "+" }</button>
            <button id="tl-pan-left" class="icon" title="Pan towards the trigger (←, or drag)" aria-label="Pan left"
                    disabled={view.offset <= 0.0} onclick={act(ViewAction::Pan(-PAN_STEP))}>{ "◀" }</button>
            <button id="tl-pan-right" class="icon" title="Pan later (→, or drag)" aria-label="Pan right"
                    disabled={view.offset + view.width() >= 1.0} onclick={act(ViewAction::Pan(PAN_STEP))}>{ "▶" }</button>
            <button id="tl-reset" title="Show the whole span (0)" disabled={*view == View::default()}
                    onclick={act(ViewAction::Reset)}>{ "Reset zoom" }</button>
            <span id="tl-range" class="muted" aria-live="polite">{ if cps.is_empty() { String::new() } else { range_text } }</span>
        </div>
    };
    html! {
        <div class="timeline-wrap" ref={wrap_ref} tabindex="0" onkeydown={onkeydown}
             aria-label="Checkpoint timeline: + and - zoom, arrow keys pan, 0 resets">
            if !p.compact { { toolbar } }
            if cps.is_empty() {
                <p class="empty">{ "Per-subtask checkpoint phases appear here once a checkpoint is triggered." }</p>
            } else {
            <div class={classes!("timeline-scroll", virtual_rows.then_some("tall"))} ref={scroll_ref}
                 onscroll={onscroll} data-rows={rows.to_string()}>
                <svg ref={svg_ref} class={classes!("timeline", (view.zoom > 1.0).then_some("zoomed"))}
                     viewBox={format!("0 0 {} {height}", d.w)}
                     style={if p.compact { String::new() } else { format!("min-width: {}px", if p.narrow { d.w } else { d.w * 0.7 }) }} role="img"
                     aria-label="Checkpoint timeline: per-subtask phases after the trigger"
                     onmousedown={onmousedown} onmousemove={onmousemove} onmouseup={end_drag.clone()} onmouseleave={end_drag}>
                    { draw::axis(ax, t1, height) }
                    { for groups }
                </svg>
            </div>
            <ul class="legend">
                <li><span class="swatch phase start-delay" />{ "start delay" }</li>
                <li><span class="swatch phase alignment" />{ "alignment" }</li>
                <li><span class="swatch phase sync" />{ "sync" }</li>
                <li><span class="swatch phase async" />{ "async" }</li>
                <li><span class="swatch ack" />{ "acknowledged" }</li>
                <li><span class="swatch notify" />{ "JobManager: first notify" }</li>
                <li class="tl-outlier-legend" title={OUTLIER_RULE}>{ "▲ outlier: > 2× the median (hover for the rule)" }</li>
            </ul>
            }
        </div>
    }
}

/// The scroll box's (scrollTop, clientHeight, clientWidth).
fn box_geometry(el: &web_sys::Element) -> (f64, f64, Option<f64>) {
    (
        f64::from(el.scroll_top()),
        f64::from(el.client_height()),
        Some(f64::from(el.client_width())),
    )
}
