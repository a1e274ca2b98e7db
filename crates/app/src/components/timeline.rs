//! Per-subtask checkpoint phases (start delay → alignment → sync → async) as stacked bars, one
//! group per checkpoint, on a time axis shared by every group (time since the trigger), with a
//! JobManager row marking trigger and completion.

use std::rc::Rc;

use yew::prelude::*;

use crate::format;
use crate::model::timeline::{Phases, TimelineCheckpoint};

/// Subtask rows shown at most (whole checkpoints; always at least one).
const MAX_ROWS: usize = 26;
const ROW_H: f64 = 15.0;
const HEADER_H: f64 = 20.0;
const AXIS_H: f64 = 22.0;

#[derive(Properties, PartialEq)]
pub struct TimelineProps {
    pub checkpoints: Rc<Vec<TimelineCheckpoint>>,
    /// A narrower drawing for phones.
    #[prop_or_default]
    pub narrow: bool,
}

/// Drawing width, label column and chart width.
#[derive(Clone, Copy)]
struct Dims {
    w: f64,
    label_w: f64,
    chart_w: f64,
}

impl Dims {
    fn new(narrow: bool) -> Dims {
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

fn phase_rects(p: &Phases, label: &str, id: u64, scale: f64, y: f64, d: Dims) -> Html {
    let label_w = d.label_w;
    let parts = [
        ("start-delay", "start delay", p.start_delay),
        ("alignment", "alignment", p.alignment),
        ("sync", "sync", p.sync),
        ("async", "async", p.async_),
    ];
    let mut x = 0u64;
    html! {
        <>
            { for parts.iter().map(|(class, name, d)| {
                let start = x;
                x += d;
                html! {
                    <rect class={classes!("phase", *class)} x={(label_w + start as f64 * scale).to_string()}
                          y={(y + 2.0).to_string()} width={(*d as f64 * scale).max(if *d > 0 { 1.0 } else { 0.0 }).to_string()}
                          height={(ROW_H - 4.0).to_string()}>
                        <title>{ format!("{label} · checkpoint {id}: {name} {}", format::micros(*d)) }</title>
                    </rect>
                }
            }) }
            <line class="ack" x1={(label_w + p.ack as f64 * scale).to_string()} x2={(label_w + p.ack as f64 * scale).to_string()}
                  y1={y.to_string()} y2={(y + ROW_H).to_string()}>
                <title>{ format!("{label} · checkpoint {id}: acknowledged at +{}", format::micros(p.ack)) }</title>
            </line>
        </>
    }
}

#[function_component(Timeline)]
pub fn timeline(p: &TimelineProps) -> Html {
    let d = Dims::new(p.narrow);
    let (label_w, chart_w, w) = (d.label_w, d.chart_w, d.w);
    let mut rows = 0;
    let cps: Vec<&TimelineCheckpoint> = p
        .checkpoints
        .iter()
        .take_while(|c| {
            rows += c.subtasks.len() + 1;
            rows <= MAX_ROWS || rows == c.subtasks.len() + 1
        })
        .collect();
    if cps.is_empty() {
        return html! {
            <p class="empty">{ "Per-subtask checkpoint phases appear here once a checkpoint is triggered." }</p>
        };
    }
    let span = cps.iter().map(|c| c.span()).max().unwrap_or(1).max(1000);
    let scale = chart_w / span as f64;
    let rows: usize = cps.iter().map(|c| c.subtasks.len() + 1).sum();
    let height = AXIS_H + cps.len() as f64 * HEADER_H + rows as f64 * ROW_H + 8.0;
    let mut y = AXIS_H;
    let mut groups = Vec::new();
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
        let end_x = cp.end.map(|e| label_w + e as f64 * scale);
        let subtask_rows: Vec<Html> = cp
            .subtasks
            .iter()
            .map(|s| {
                let row_y = y;
                y += ROW_H;
                let title = match &s.phases {
                    Some(ph) => format!(
                        "{} · {kind} {}: start delay {}, alignment {}, sync {}, async {}, ack +{}{}{}",
                        s.label, cp.id,
                        format::micros(ph.start_delay), format::micros(ph.alignment),
                        format::micros(ph.sync), format::micros(ph.async_), format::micros(ph.ack),
                        if ph.unaligned { ", unaligned" } else { "" },
                        if ph.persisted > 0 { format!(", persisted {}", format::bytes(ph.persisted)) } else { String::new() },
                    ),
                    None => format!("{} · {kind} {}: not acknowledged", s.label, cp.id),
                };
                html! {
                    <g class="tl-row subtask">
                        <title>{ title }</title>
                        <text class="tl-label" x="4" y={(row_y + ROW_H - 4.0).to_string()}>{ s.label.clone() }</text>
                        { match &s.phases {
                            Some(ph) => phase_rects(ph, &s.label, cp.id, scale, row_y, d),
                            None => html! {
                                <text class="tl-pending" x={(label_w + 2.0).to_string()} y={(row_y + ROW_H - 4.0).to_string()}>
                                    { "pending" }
                                </text>
                            },
                        } }
                    </g>
                }
            })
            .collect();
        groups.push(html! {
            <g class="tl-group" data-id={cp.id.to_string()}>
                <text class="tl-header" x="4" y={(header_y + HEADER_H - 6.0).to_string()}>
                    { format!("{kind} {} · {} · triggered at {}", cp.id, cp.status, format::sim_time(cp.trigger)) }
                </text>
                <g class="tl-row jobmanager">
                    <title>{ match cp.end {
                        Some(e) => format!("JobManager: {kind} {} triggered at {}, {} after {}", cp.id,
                            format::sim_time(cp.trigger), cp.status.to_lowercase(), format::micros(e)),
                        None => format!("JobManager: {kind} {} triggered at {}, in progress", cp.id, format::sim_time(cp.trigger)),
                    } }</title>
                    <text class="tl-label" x="4" y={(jm_y + ROW_H - 4.0).to_string()}>{ "JobManager" }</text>
                    <line class="jm-span" x1={label_w.to_string()} x2={end_x.unwrap_or(label_w + chart_w).to_string()}
                          y1={(jm_y + ROW_H / 2.0).to_string()} y2={(jm_y + ROW_H / 2.0).to_string()} />
                    <circle class="jm-trigger" cx={label_w.to_string()} cy={(jm_y + ROW_H / 2.0).to_string()} r="4" />
                    if let Some(x) = end_x {
                        <rect class={classes!("jm-end", cp.status.to_lowercase())} x={(x - 4.0).to_string()}
                              y={(jm_y + ROW_H / 2.0 - 4.0).to_string()} width="8" height="8"
                              transform={format!("rotate(45 {x} {})", jm_y + ROW_H / 2.0)} />
                    }
                </g>
                { for subtask_rows }
            </g>
        });
    }
    let ticks = (0..=4).map(|k| {
        let t = span * k / 4;
        let x = label_w + t as f64 * scale;
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
        <div class="timeline-wrap">
            <svg class="timeline" viewBox={format!("0 0 {w} {height}")} style={format!("min-width: {}px", if p.narrow { w } else { w * 0.7 })} role="img"
                 aria-label="Checkpoint timeline: per-subtask phases after the trigger">
                <g class="axis">{ for ticks }</g>
                { for groups }
            </svg>
            <ul class="legend">
                <li><span class="swatch phase start-delay" />{ "start delay" }</li>
                <li><span class="swatch phase alignment" />{ "alignment" }</li>
                <li><span class="swatch phase sync" />{ "sync" }</li>
                <li><span class="swatch phase async" />{ "async" }</li>
                <li><span class="swatch ack" />{ "acknowledged" }</li>
            </ul>
        </div>
    }
}
