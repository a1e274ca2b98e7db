//! The job graph as an SVG: job vertices in layers, left to right, each subtask a box coloured by
//! its busy time (backpressure apart); on each edge its partitioner and one bar per channel showing the
//! buffers queued in its subpartition, blocked channels and barriers in flight.
//!
//! All names are rendered as SVG text nodes, never as markup.

use std::rc::Rc;

use yew::prelude::*;

mod folded;

use crate::format;
use crate::model::graph::{ChannelModel, EdgeModel, GraphModel, SubtaskModel, VertexModel};
use crate::model::subtask_label;
use folded::{render_cells, render_drill_down, render_group_row};

const PAD: f64 = 16.0;
const VW: f64 = 190.0;
const GAP_X: f64 = 130.0;
const GAP_Y: f64 = 30.0;
const LINE_H: f64 = 15.0;
const SUB: f64 = 18.0;
const SUB_GAP: f64 = 4.0;
const SUBS_PER_ROW: u32 = 10;
/// A vertex with more subtasks draws this many cells, each folding a range of subtasks (the
/// worst backpressure and the highest busy time of the range); a click lists the range's
/// subtasks below the graph.
const MAX_SUBTASK_CELLS: u32 = 64;
const MAX_LINE_CHARS: usize = 26;
/// Channel block: label column and bar.
const CH_LABEL_W: f64 = 24.0;
const CH_BAR_W: f64 = 70.0;
/// Column for a channel's debloated buffer size, right of its bar.
const CH_SIZE_W: f64 = 34.0;

/// A debloated buffer size in few characters: `10.5k`, `32k`, `512`.
fn short_size(b: u32) -> String {
    match b {
        0..=999 => b.to_string(),
        _ if b.is_multiple_of(1024) || b >= 10 * 1024 => format!("{}k", (b + 512) / 1024),
        _ => format!("{:.1}k", f64::from(b) / 1024.0),
    }
}

#[derive(Properties, PartialEq)]
pub struct JobGraphProps {
    pub model: Rc<GraphModel>,
    /// Lay the graph out top to bottom (narrow screens).
    #[prop_or_default]
    pub vertical: bool,
    /// A subtask was clicked: (vertex, subtask index).
    #[prop_or_default]
    pub onselect: Callback<(u32, u32)>,
    /// The subtask shown in the inspector.
    #[prop_or_default]
    pub selected: Option<(u32, u32)>,
    /// An edge was clicked (or chosen with Enter): (source vertex, target vertex). `None`: edges
    /// are not interactive.
    #[prop_or_default]
    pub onedge: Option<Callback<(u32, u32)>>,
    /// The edge whose fault menu is open.
    #[prop_or_default]
    pub selected_edge: Option<(u32, u32)>,
}

/// The chained name, one operator a line.
fn name_lines(name: &str) -> Vec<String> {
    name.split(" -> ")
        .enumerate()
        .map(|(i, part)| {
            let line = if i == 0 {
                part.to_string()
            } else {
                format!("→ {part}")
            };
            if line.chars().count() > MAX_LINE_CHARS {
                let cut: String = line.chars().take(MAX_LINE_CHARS - 1).collect();
                format!("{cut}…")
            } else {
                line
            }
        })
        .collect()
}

/// Subtasks per cell: 1, or the range a folded cell stands for.
fn per_cell(v: &VertexModel) -> u32 {
    v.parallelism.div_ceil(MAX_SUBTASK_CELLS).max(1)
}

fn vertex_height(v: &VertexModel) -> f64 {
    let lines = name_lines(&v.name).len() as f64;
    let cells = v.parallelism.div_ceil(per_cell(v));
    let rows = cells.div_ceil(SUBS_PER_ROW).max(1) as f64;
    12.0 + lines * LINE_H + 16.0 + rows * (SUB + SUB_GAP) + 6.0
}

struct Placed {
    x: f64,
    y: f64,
    h: f64,
}

/// Height of an edge's channel block (bars plus padding).
fn block_height(channels: usize) -> f64 {
    channel_row_height(channels) * channels.max(1) as f64 + 6.0
}

fn channel_row_height(channels: usize) -> f64 {
    if channels <= 12 {
        10.0
    } else {
        (120.0 / channels as f64).max(3.0)
    }
}

/// Places vertices in layers: columns left to right, or rows top to bottom when `vertical`.
fn layout(model: &GraphModel, vertical: bool) -> (Vec<Placed>, f64, f64) {
    let layers = model
        .vertices
        .iter()
        .map(|v| v.layer)
        .max()
        .map_or(0, |l| l + 1) as usize;
    let heights: Vec<f64> = model.vertices.iter().map(vertex_height).collect();
    if vertical {
        let gap_v = model
            .edges
            .iter()
            .map(|e| block_height(e.rows()) + 44.0)
            .fold(90.0, f64::max);
        let mut row_h = vec![0.0f64; layers];
        let mut row_n = vec![0usize; layers];
        for (v, h) in model.vertices.iter().zip(&heights) {
            row_h[v.layer as usize] = row_h[v.layer as usize].max(*h);
            row_n[v.layer as usize] += 1;
        }
        let row_w = |n: usize| n as f64 * VW + n.saturating_sub(1) as f64 * GAP_Y;
        let width = row_n.iter().map(|n| row_w(*n)).fold(VW, f64::max) + PAD * 2.0;
        let mut top = vec![PAD; layers];
        for l in 1..layers {
            top[l] = top[l - 1] + row_h[l - 1] + gap_v;
        }
        let mut next_x: Vec<f64> = row_n.iter().map(|n| (width - row_w(*n)) / 2.0).collect();
        let placed = model
            .vertices
            .iter()
            .zip(&heights)
            .map(|(v, h)| {
                let l = v.layer as usize;
                let x = next_x[l];
                next_x[l] += VW + GAP_Y;
                Placed {
                    x,
                    y: top[l] + (row_h[l] - h) / 2.0,
                    h: *h,
                }
            })
            .collect();
        let height =
            top.last().copied().unwrap_or(PAD) + row_h.last().copied().unwrap_or(0.0) + PAD;
        return (placed, width, height);
    }
    let mut layer_h = vec![0.0f64; layers];
    for (v, h) in model.vertices.iter().zip(&heights) {
        let lh = &mut layer_h[v.layer as usize];
        *lh += if *lh > 0.0 { GAP_Y } else { 0.0 } + h;
    }
    let total_h = layer_h.iter().cloned().fold(0.0, f64::max);
    let mut cursor: Vec<f64> = layer_h.iter().map(|h| PAD + (total_h - h) / 2.0).collect();
    let placed = model
        .vertices
        .iter()
        .zip(&heights)
        .map(|(v, h)| {
            let y = cursor[v.layer as usize];
            cursor[v.layer as usize] += h + GAP_Y;
            Placed {
                x: PAD + v.layer as f64 * (VW + GAP_X),
                y,
                h: *h,
            }
        })
        .collect();
    let width = PAD * 2.0 + layers as f64 * VW + layers.saturating_sub(1) as f64 * GAP_X;
    (placed, width, total_h + PAD * 2.0)
}

fn subtask_title(vertex: &str, s: &SubtaskModel) -> String {
    let mut t = format!(
        "{} — back pressure {}\nbusy {} · idle {} · backpressured {} (last second)\nrecords in {} · out {}",
        subtask_label(vertex, s.index),
        s.level.to_ascii_uppercase(),
        format::percent(s.busy),
        format::percent(s.idle),
        format::percent(s.backpressured),
        s.records_in,
        s.records_out,
    );
    if let Some(h) = s.handler_state {
        t.push_str(&format!("\nbarrier handler: {h}"));
    }
    t.push_str(&format!("\nmailbox: {} mail(s)", s.mailbox));
    if s.finished {
        t.push_str("\nFINISHED");
    }
    t
}

/// Flink's Web UI colours a subtask by its busy time: blue when idle, red when busy all the
/// time. Backpressure is shown apart from it (the dark bar), as the Web UI does.
fn busy_colour(busy: f64) -> String {
    let t = busy.clamp(0.0, 1.0);
    // #5b9bd5 (idle) → #d9534f (busy)
    let mix = |a: f64, b: f64| (a + (b - a) * t).round() as u8;
    format!(
        "#{:02x}{:02x}{:02x}",
        mix(91.0, 217.0),
        mix(155.0, 83.0),
        mix(213.0, 79.0)
    )
}

/// Reached with Tab, chosen with Enter or Space as a button is: `cb` gets `key`. Space must not
/// also reach the page's play/pause shortcut.
fn press_keys<T: Copy + 'static>(cb: &Callback<T>, key: T) -> Callback<KeyboardEvent> {
    let cb = cb.clone();
    Callback::from(move |k: KeyboardEvent| {
        if k.key() == "Enter" || k.key() == " " {
            k.prevent_default();
            k.stop_propagation();
            cb.emit(key);
        }
    })
}

/// A subtask's (or a folded range's) box: filled by busy time, with the backpressured bar.
fn busy_box(x: f64, y: f64, busy: f64, backpressured: f64) -> Html {
    html! {
        <>
            <rect class="busy-fill" x={x.to_string()} y={y.to_string()} width={SUB.to_string()} height={SUB.to_string()} rx="3"
                  style={format!("fill: {}", busy_colour(busy))} data-busy={format!("{busy:.2}")} />
            if backpressured > 0.005 {
                <rect class="bp-bar" x={x.to_string()} y={(y + SUB * (1.0 - backpressured)).to_string()}
                      width="4" height={(SUB * backpressured).to_string()} />
            }
        </>
    }
}

fn render_vertex(
    v: &VertexModel,
    p: &Placed,
    onselect: &Callback<(u32, u32)>,
    selected: Option<(u32, u32)>,
    onexpand: &Callback<(u32, u32, u32)>,
    expanded: Option<(u32, u32, u32)>,
) -> Html {
    let lines = name_lines(&v.name);
    let text_top = p.y + 10.0;
    let subs_top = text_top + lines.len() as f64 * LINE_H + 16.0;
    let folded = per_cell(v) > 1;
    html! {
        <g class="vertex" data-vertex={v.id.to_string()}>
            <title>{ format!("{} (parallelism {})", v.name, v.parallelism) }</title>
            <rect class="vertex-box" x={p.x.to_string()} y={p.y.to_string()} width={VW.to_string()}
                  height={p.h.to_string()} rx="6" />
            { for lines.iter().enumerate().map(|(i, line)| html! {
                <text class={if i == 0 { "vertex-name" } else { "vertex-name chained" }}
                      x={(p.x + 10.0).to_string()} y={(text_top + (i as f64 + 0.8) * LINE_H).to_string()}>
                    { line.clone() }
                </text>
            }) }
            <text class="vertex-meta" x={(p.x + 10.0).to_string()} y={(subs_top - 4.0).to_string()}>
                { format!("Parallelism: {}", v.parallelism) }
            </text>
            if folded {
                { render_cells(v, p.x + 10.0, subs_top, onexpand, expanded) }
            }
            { for v.subtasks.iter().filter(|_| !folded).map(|s| {
                let col = f64::from(s.index % SUBS_PER_ROW);
                let row = f64::from(s.index / SUBS_PER_ROW);
                let x = p.x + 10.0 + col * (SUB + SUB_GAP);
                let y = subs_top + row * (SUB + SUB_GAP);
                let onclick = {
                    let (on, key) = (onselect.clone(), (v.id, s.index));
                    Callback::from(move |_: MouseEvent| on.emit(key))
                };
                let onkeydown = press_keys(onselect, (v.id, s.index));
                let is_selected = selected == Some((v.id, s.index));
                let label = format!("{} — busy {}, back pressure {}", subtask_label(&v.name, s.index), format::percent(s.busy), s.level.to_ascii_uppercase());
                html! {
                    <g class={classes!("subtask", format!("bp-{}", s.level), s.finished.then_some("finished"), is_selected.then_some("selected"))}
                       data-subtask={s.index.to_string()} data-level={s.level} {onclick} {onkeydown} role="button"
                       tabindex="0" aria-label={label} aria-pressed={is_selected.to_string()}>
                        <title>{ subtask_title(&v.name, s) }</title>
                        { busy_box(x, y, s.busy, s.backpressured) }
                        <text x={(x + SUB / 2.0).to_string()} y={(y + SUB / 2.0 + 3.5).to_string()} text-anchor="middle">
                            { s.index.to_string() }
                        </text>
                    </g>
                }
            }) }
        </g>
    }
}

fn channel_title(e: &EdgeModel, c: &ChannelModel) -> String {
    let mut t = format!(
        "channel {} #{} → {} #{} ({}, {})\n{} of {} buffers queued ({})",
        e.from,
        c.producer,
        e.to,
        c.consumer,
        e.partitioner,
        if c.remote { "remote" } else { "local" },
        c.queued,
        c.capacity,
        format::bytes(c.queued_bytes),
    );
    if let Some(size) = c.buffer_size {
        t.push_str(&format!(
            "\nbuffer size {} (debloated: new buffers are trimmed to it)",
            format::bytes(u64::from(size))
        ));
    }
    if c.blocked {
        t.push_str("\nBLOCKED: aligned barrier received, waiting for the other channels");
    }
    for b in &c.barriers {
        t.push_str(&format!(
            "\nbarrier {} ({}) in flight, {} item(s) ahead",
            b.id,
            if b.unaligned { "unaligned" } else { "aligned" },
            b.position
        ));
    }
    t
}

fn render_edge(
    e: &EdgeModel,
    from: &Placed,
    to: &Placed,
    vertical: bool,
    onedge: Option<&Callback<(u32, u32)>>,
    selected: bool,
) -> Html {
    let key = (e.from, e.to);
    let onclick = onedge.map(|cb| cb.reform(move |_: MouseEvent| key));
    let onkeydown = onedge.map(|cb| {
        let cb = cb.clone();
        Callback::from(move |k: KeyboardEvent| {
            if k.key() == "Enter" || k.key() == " " {
                k.prevent_default();
                cb.emit(key);
            }
        })
    });
    let interactive = onedge.is_some();
    let path = if vertical {
        let (x1, y1) = (from.x + VW / 2.0, from.y + from.h);
        let (x2, y2) = (to.x + VW / 2.0, to.y);
        let dy = (y2 - y1) / 2.0;
        format!("M{x1},{y1} C{x1},{} {x2},{} {x2},{y2}", y1 + dy, y2 - dy)
    } else {
        let (x1, y1) = (from.x + VW, from.y + from.h / 2.0);
        let (x2, y2) = (to.x, to.y + to.h / 2.0);
        let dx = (x2 - x1) / 2.0;
        format!("M{x1},{y1} C{},{y1} {},{y2} {x2},{y2}", x1 + dx, x2 - dx)
    };
    let (mx, my) = if vertical {
        ((from.x + to.x + VW) / 2.0, (from.y + from.h + to.y) / 2.0)
    } else {
        (
            (from.x + VW + to.x) / 2.0,
            (from.y + from.h / 2.0 + to.y + to.h / 2.0) / 2.0,
        )
    };
    let row_h = channel_row_height(e.rows());
    let debloated = e.channels.iter().any(|c| c.buffer_size.is_some());
    // A folded row's label is a producer range (`480–511`), wider than `3→1`.
    let label_w = if e.groups.is_empty() {
        CH_LABEL_W
    } else {
        CH_LABEL_W + 20.0
    };
    let block_w = label_w + CH_BAR_W + 8.0 + if debloated { CH_SIZE_W } else { 0.0 };
    let block_h = block_height(e.rows());
    let left = mx - block_w / 2.0;
    let top = my - block_h / 2.0;
    let bar_x = left + 4.0 + label_w;
    let labels = row_h >= 8.0;
    let channel_count = e.channel_count();
    html! {
        <g class={classes!("edge", interactive.then_some("clickable"), selected.then_some("selected"))}
           data-from={e.from.to_string()} data-to={e.to.to_string()} {onclick} {onkeydown}
           tabindex={interactive.then_some("0")} role={interactive.then_some("button")}
           aria-label={interactive.then(|| format!("Edge {} ({channel_count} channels): inject a network fault", e.partitioner))}>
            <path class="edge-hit" d={path.clone()} />
            <path class="edge-line" d={path} marker-end="url(#arrow)" />
            <text class="edge-label" x={mx.to_string()} y={(top - 6.0).to_string()} text-anchor="middle">
                { e.partitioner.clone() }
            </text>
            <rect class="channel-block" x={left.to_string()} y={top.to_string()}
                  width={block_w.to_string()} height={block_h.to_string()} rx="4" />
            { for e.groups.iter().enumerate().map(|(i, g)| {
                let y = top + 3.0 + i as f64 * row_h;
                render_group_row(e, g, left, bar_x, y, (row_h - 2.0).max(1.5), labels)
            }) }
            { for e.channels.iter().enumerate().map(|(i, c)| {
                let y = top + 3.0 + i as f64 * row_h;
                let h = (row_h - 2.0).max(1.5);
                let fill = f64::from(c.queued.min(c.capacity)) / f64::from(c.capacity.max(1)) * CH_BAR_W;
                html! {
                    <g class={classes!("channel", c.blocked.then_some("blocked"), (!c.barriers.is_empty()).then_some("has-barrier"))}
                       data-queued={c.queued.to_string()}>
                        <title>{ channel_title(e, c) }</title>
                        if labels {
                            <text class="channel-label" x={(left + 4.0).to_string()} y={(y + h - 0.5).to_string()}>
                                { format!("{}→{}", c.producer, c.consumer) }
                            </text>
                        }
                        <rect class="channel-track" x={bar_x.to_string()} y={y.to_string()}
                              width={CH_BAR_W.to_string()} height={h.to_string()} />
                        <rect class="channel-fill" x={bar_x.to_string()} y={y.to_string()}
                              width={fill.to_string()} height={h.to_string()} />
                        if let (true, Some(size)) = (labels, c.buffer_size) {
                            <text class="channel-size" x={(bar_x + CH_BAR_W + 3.0).to_string()} y={(y + h - 0.5).to_string()}
                                  data-buffer-size={size.to_string()}>
                                { short_size(size) }
                            </text>
                        }
                        { for c.barriers.iter().map(|b| {
                            // The head of the queue is at the consumer's end (right).
                            let bx = (bar_x + CH_BAR_W - 4.0 - f64::from(b.position) * 6.0).max(bar_x);
                            html! {
                                <rect class={classes!("barrier", if b.unaligned { "unaligned" } else { "aligned" })}
                                      x={bx.to_string()} y={(y - 1.0).to_string()} width="4" height={(h + 2.0).to_string()} />
                            }
                        }) }
                    </g>
                }
            }) }
        </g>
    }
}

#[function_component(JobGraph)]
pub fn job_graph(props: &JobGraphProps) -> Html {
    let model = &props.model;
    let expanded = use_state(|| None::<(u32, u32, u32)>);
    if model.vertices.is_empty() {
        return html! { <p class="empty">{ "No job loaded." }</p> };
    }
    let vertical = props.vertical;
    let (placed, width, height) = layout(model, vertical);
    let onexpand = {
        let expanded = expanded.clone();
        Callback::from(move |key: (u32, u32, u32)| {
            expanded.set((*expanded != Some(key)).then_some(key))
        })
    };
    let onclose = {
        let expanded = expanded.clone();
        Callback::from(move |_: MouseEvent| expanded.set(None))
    };
    // A folded range stays open only while its vertex still has those subtasks (a new job).
    let open = (*expanded).filter(|(v, _, last)| {
        model
            .vertices
            .iter()
            .any(|m| m.id == *v && *last < m.parallelism && per_cell(m) > 1)
    });
    // Grow up to 1.4× to use the panel, shrink to 0.8× at most (then the panel scrolls).
    let style = format!(
        "width: 100%; max-width: {:.0}px; min-width: {:.0}px",
        width * 1.4,
        width * 0.8
    );
    html! {
        <div class="graph-wrap">
            <svg class="job-graph" viewBox={format!("0 0 {width} {height}")} style={style}
                 role="img" aria-label="Job graph">
                <defs>
                    <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
                        <path d="M0,0 L10,5 L0,10 z" class="arrowhead" />
                    </marker>
                </defs>
                { for model.edges.iter().filter_map(|e| {
                    let from = placed.get(e.from as usize)?;
                    let to = placed.get(e.to as usize)?;
                    let selected = props.selected_edge == Some((e.from, e.to));
                    Some(render_edge(e, from, to, vertical, props.onedge.as_ref(), selected))
                }) }
                { for model.vertices.iter().zip(&placed).map(|(v, p)| render_vertex(v, p, &props.onselect, props.selected, &onexpand, open)) }
            </svg>
            if let Some(range) = open {
                { render_drill_down(model, range, &props.onselect, props.selected, onclose) }
            }
            <ul class="legend" aria-label="Legend">
                <li><span class="swatch busy-scale" />{ "busy time: idle → 100 %" }</li>
                <li><span class="swatch bp-bar" />{ "backpressured time" }</li>
                <li><span class="swatch fill" />{ "queued buffers" }</li>
                if model.edges.iter().any(|e| e.channels.iter().any(|c| c.buffer_size.is_some())) {
                    <li><span class="legend-text">{ "10k" }</span>{ "debloated buffer size" }</li>
                }
                <li><span class="swatch blocked" />{ "blocked channel" }</li>
                <li><span class="swatch barrier aligned" />{ "aligned barrier" }</li>
                <li><span class="swatch barrier unaligned" />{ "unaligned barrier" }</li>
            </ul>
        </div>
    }
}
