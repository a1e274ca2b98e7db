//! The timeline's SVG body: per checkpoint a header, a JobManager row (trigger, completion or
//! failure, first notification) and per-subtask stacked bars (start delay → alignment → sync →
//! async) on the shared axis, cut to the visible window `[t0, t1]` (µs after the trigger). The
//! cutting is done here rather than with an SVG clip path so exported SVGs stay self-contained.

use yew::prelude::*;

use crate::format;
use crate::model::timeline::{Phases, TimelineCheckpoint, OUTLIER_RULE};

pub const ROW_H: f64 = 15.0;
pub const HEADER_H: f64 = 20.0;
pub const AXIS_H: f64 = 22.0;

/// Drawing width, label column and chart width.
#[derive(Clone, Copy, PartialEq)]
pub struct Dims {
    pub w: f64,
    pub label_w: f64,
    pub chart_w: f64,
}

impl Dims {
    pub fn new(narrow: bool) -> Dims {
        let (w, label_w) = if narrow {
            (520.0, 130.0)
        } else {
            (960.0, 180.0)
        };
        Dims {
            w,
            label_w,
            chart_w: w - label_w - 20.0,
        }
    }
}

/// Maps µs after the trigger to x within the visible window.
#[derive(Clone, Copy)]
pub struct Axis {
    pub d: Dims,
    pub t0: u64,
    pub scale: f64,
}

impl Axis {
    pub fn new(d: Dims, t0: u64, t1: u64) -> Axis {
        Axis {
            d,
            t0,
            scale: d.chart_w / (t1.saturating_sub(t0).max(1)) as f64,
        }
    }
    pub fn x(&self, t: u64) -> f64 {
        self.d.label_w + (t as f64 - self.t0 as f64) * self.scale
    }
    fn right(&self) -> f64 {
        self.d.label_w + self.d.chart_w
    }
    /// Whether x lies in the chart area.
    fn shows(&self, x: f64) -> bool {
        x >= self.d.label_w - 0.5 && x <= self.right() + 0.5
    }
    /// The visible part of [a, b] (µs) as (x, width), if any.
    fn segment(&self, a: u64, b: u64) -> Option<(f64, f64)> {
        let x0 = self.x(a).max(self.d.label_w);
        let x1 = self.x(b).min(self.right());
        (x1 > x0 || (a == b && self.shows(x0))).then_some((x0, (x1 - x0).max(0.0)))
    }
}

fn ms(us: u64) -> String {
    format!("{:.3} ms", us as f64 / 1_000.0)
}

fn phase_rects(p: &Phases, label: &str, id: u64, ax: Axis, y: f64) -> Html {
    let parts = [
        ("start-delay", "start delay", p.start_delay),
        ("alignment", "alignment", p.alignment),
        ("sync", "sync", p.sync),
        ("async", "async", p.async_),
    ];
    let mut x = 0u64;
    html! {
        <>
            { for parts.iter().filter_map(|(class, name, d)| {
                let start = x;
                x += d;
                if *d == 0 {
                    return None;
                }
                let (rx, w) = ax.segment(start, start + d)?;
                Some(html! {
                    <rect class={classes!("phase", *class)} x={rx.to_string()}
                          y={(y + 2.0).to_string()} width={w.max(1.0).to_string()}
                          height={(ROW_H - 4.0).to_string()}>
                        <title>{ format!("{label} · checkpoint {id}: {name} {} (+{} → +{})", ms(*d), ms(start), ms(start + d)) }</title>
                    </rect>
                })
            }) }
            if ax.shows(ax.x(p.ack)) {
                <line class="ack" x1={ax.x(p.ack).to_string()} x2={ax.x(p.ack).to_string()}
                      y1={y.to_string()} y2={(y + ROW_H).to_string()}>
                    <title>{ format!("{label} · checkpoint {id}: acknowledged at +{}", ms(p.ack)) }</title>
                </line>
            }
        </>
    }
}

/// The groups for `cps` from `y` down, and the y below the last one. With `visible` (a y range),
/// subtask rows outside it are laid out but not drawn: a 4096-subtask checkpoint scrolls
/// through a window of rows instead of redrawing every one.
pub fn groups(
    cps: &[&TimelineCheckpoint],
    ax: Axis,
    mut y: f64,
    onpin: &Callback<u64>,
    visible: Option<(f64, f64)>,
) -> (Vec<Html>, f64) {
    let d = ax.d;
    let label_w = d.label_w;
    let mut out = Vec::new();
    for cp in cps.iter().copied() {
        let header_y = y;
        y += HEADER_H;
        let jm_y = y;
        y += ROW_H;
        let kind = if cp.savepoint {
            "Savepoint"
        } else {
            "Checkpoint"
        };
        let subtask_rows: Vec<Html> = cp
            .subtasks
            .iter()
            .filter_map(|s| {
                let row_y = y;
                y += ROW_H;
                if visible.is_some_and(|(top, bottom)| row_y + ROW_H < top || row_y > bottom) {
                    return None;
                }
                let title = match &s.phases {
                    Some(ph) => format!(
                        "{} · {kind} {}: start delay {}, alignment {}, sync {}, async {}, acknowledged at +{}{}{}{}",
                        s.label, cp.id, ms(ph.start_delay), ms(ph.alignment), ms(ph.sync), ms(ph.async_), ms(ph.ack),
                        if ph.unaligned { ", unaligned" } else { "" },
                        if ph.persisted > 0 { format!(", persisted {}", format::bytes(ph.persisted)) } else { String::new() },
                        if s.outlier { " — outlier" } else { "" },
                    ),
                    None => format!("{} · {kind} {}: not acknowledged", s.label, cp.id),
                };
                Some(html! {
                    <g class={classes!("tl-row", "subtask", s.outlier.then_some("outlier"))}>
                        <title>{ title }</title>
                        <text class="tl-label" x="4" y={(row_y + ROW_H - 4.0).to_string()}>{ s.label.clone() }</text>
                        // In the label column, so it stays visible however the axis is zoomed.
                        if s.outlier {
                            <text class="tl-outlier" x={(label_w - 6.0).to_string()} y={(row_y + ROW_H - 4.0).to_string()} text-anchor="end">
                                <title>{ OUTLIER_RULE }</title>
                                { "▲" }
                            </text>
                        }
                        { match &s.phases {
                            Some(ph) => phase_rects(ph, &s.label, cp.id, ax, row_y),
                            None => html! {
                                <text class="tl-pending" x={(label_w + 2.0).to_string()} y={(row_y + ROW_H - 4.0).to_string()}>
                                    { "pending" }
                                </text>
                            },
                        } }
                    </g>
                })
            })
            .collect();
        let cy = jm_y + ROW_H / 2.0;
        let end_x = cp.end.map(|e| ax.x(e));
        // In progress: the span runs to the right edge.
        let span_seg = ax.segment(0, cp.end.unwrap_or(u64::MAX / 4));
        let pin = {
            let (onpin, id) = (onpin.clone(), cp.id);
            Callback::from(move |_: MouseEvent| onpin.emit(id))
        };
        out.push(html! {
            <g class={classes!("tl-group", cp.outlier.then_some("outlier"))} data-id={cp.id.to_string()}>
                <text class="tl-header" x="4" y={(header_y + HEADER_H - 6.0).to_string()} onclick={pin}>
                    <title>{ "Click to pin this checkpoint (or unpin it)" }</title>
                    { format!("{kind} {} · {} · triggered at {}", cp.id, cp.status, format::sim_time(cp.trigger)) }
                    if cp.outlier {
                        <tspan class="tl-outlier">
                            <title>{ OUTLIER_RULE }</title>
                            { format!(" · ▲ outlier: took {}", format::micros(cp.end.unwrap_or(0))) }
                        </tspan>
                    }
                </text>
                <g class="tl-row jobmanager">
                    <title>{ match cp.end {
                        Some(e) => format!("JobManager: {kind} {} triggered at {}, {} after {}{}", cp.id,
                            format::sim_time(cp.trigger), cp.status.as_str().to_ascii_lowercase(), ms(e),
                            cp.notify.map(|n| format!(", first subtask notified at +{}", ms(n))).unwrap_or_default()),
                        None => format!("JobManager: {kind} {} triggered at {}, in progress", cp.id, format::sim_time(cp.trigger)),
                    } }</title>
                    <text class="tl-label" x="4" y={(jm_y + ROW_H - 4.0).to_string()}>{ "JobManager" }</text>
                    if let Some((x, w)) = span_seg {
                        <line class="jm-span" x1={x.to_string()} x2={(x + w).to_string()}
                              y1={cy.to_string()} y2={cy.to_string()} />
                    }
                    if ax.shows(ax.x(0)) {
                        <circle class="jm-trigger" cx={ax.x(0).to_string()} cy={cy.to_string()} r="4" />
                    }
                    if let Some(x) = end_x.filter(|x| ax.shows(*x)) {
                        <rect class={classes!("jm-end", cp.status.as_str().to_ascii_lowercase())} x={(x - 4.0).to_string()}
                              y={(cy - 4.0).to_string()} width="8" height="8"
                              transform={format!("rotate(45 {x} {cy})")} />
                    }
                    if let Some(x) = cp.notify.map(|n| ax.x(n)).filter(|x| ax.shows(*x)) {
                        <path class="jm-notify" d={format!("M {x} {} l 4 -7 l -8 0 z", cy + 3.0)} />
                    }
                </g>
                { for subtask_rows }
            </g>
        });
    }
    (out, y)
}

/// Five ticks across the visible window, with their labels.
pub fn axis(ax: Axis, t1: u64, height: f64) -> Html {
    let ticks = (0..=4).map(|k| {
        let t = ax.t0 + (t1 - ax.t0) * k / 4;
        let x = ax.x(t);
        html! {
            <g class="tick">
                <line x1={x.to_string()} x2={x.to_string()} y1={(AXIS_H - 4.0).to_string()} y2={height.to_string()} />
                <text x={x.to_string()} y={(AXIS_H - 8.0).to_string()}
                      text-anchor={if k == 0 { "start" } else if k == 4 { "end" } else { "middle" }}>
                    { format!("+{}", format::micros(t)) }
                </text>
            </g>
        }
    });
    html! {
        <>
            <g class="axis">{ for ticks }</g>
        </>
    }
}
