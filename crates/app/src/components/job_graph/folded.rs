//! A large job's job graph, folded: a vertex's subtasks as ranges (cells) with a drill-down
//! list, an edge's channels as producer-range rows.

use yew::prelude::*;

use super::{
    busy_box, busy_colour, per_cell, press_keys, subtask_title, CH_BAR_W, SUB, SUBS_PER_ROW,
    SUB_GAP,
};
use crate::format;
use crate::model::graph::{
    level_rank, ChannelGroup, EdgeModel, GraphModel, SubtaskModel, VertexModel,
};

/// What a folded cell shows of its subtasks: the worst level, the highest busy and
/// backpressured time, and whether all finished.
struct CellSummary {
    first: u32,
    last: u32,
    level: &'static str,
    busy: f64,
    backpressured: f64,
    finished: bool,
}

fn summarize(subtasks: &[SubtaskModel]) -> Option<CellSummary> {
    let first = subtasks.first()?;
    let mut c = CellSummary {
        first: first.index,
        last: first.index,
        level: first.level,
        busy: 0.0,
        backpressured: 0.0,
        finished: true,
    };
    for s in subtasks {
        c.last = c.last.max(s.index);
        c.first = c.first.min(s.index);
        if level_rank(s.level) > level_rank(c.level) {
            c.level = s.level;
        }
        c.busy = c.busy.max(s.busy);
        c.backpressured = c.backpressured.max(s.backpressured);
        c.finished &= s.finished;
    }
    Some(c)
}

/// The cells of a vertex whose subtasks are folded: one per range, a click lists it.
pub(super) fn render_cells(
    v: &VertexModel,
    x0: f64,
    top: f64,
    onexpand: &Callback<(u32, u32, u32)>,
    expanded: Option<(u32, u32, u32)>,
) -> Html {
    let n = per_cell(v) as usize;
    html! {
        { for v.subtasks.chunks(n).enumerate().filter_map(|(i, chunk)| {
            let c = summarize(chunk)?;
            let i = i as u32;
            let x = x0 + f64::from(i % SUBS_PER_ROW) * (SUB + SUB_GAP);
            let y = top + f64::from(i / SUBS_PER_ROW) * (SUB + SUB_GAP);
            let key = (v.id, c.first, c.last);
            let onclick = onexpand.reform(move |_: MouseEvent| key);
            let onkeydown = press_keys(onexpand, key);
            let open = expanded == Some(key);
            let label = format!(
                "{} subtasks {}–{}: highest busy {}, back pressure {}",
                v.name, c.first, c.last, format::percent(c.busy), c.level.to_ascii_uppercase()
            );
            Some(html! {
                <g class={classes!("subtask", "subtask-group", format!("bp-{}", c.level), c.finished.then_some("finished"), open.then_some("selected"))}
                   data-first={c.first.to_string()} data-last={c.last.to_string()} data-level={c.level}
                   {onclick} {onkeydown} role="button" tabindex="0" aria-label={label.clone()} aria-expanded={open.to_string()}>
                    <title>{ label }</title>
                    { busy_box(x, y, c.busy, c.backpressured) }
                </g>
            })
        }) }
    }
}

/// The subtasks of an opened cell, below the graph: each selects itself in the inspector.
pub(super) fn render_drill_down(
    model: &GraphModel,
    (vertex, first, last): (u32, u32, u32),
    onselect: &Callback<(u32, u32)>,
    selected: Option<(u32, u32)>,
    onclose: Callback<MouseEvent>,
) -> Html {
    let Some(v) = model.vertices.iter().find(|v| v.id == vertex) else {
        return html! {};
    };
    html! {
        <div class="subtask-drill" id="subtask-drill" role="group"
             aria-label={format!("{} subtasks {first}–{last}", v.name)}>
            <span class="drill-title">{ format!("{} · subtasks {first}–{last}", v.name) }</span>
            { for v.subtasks.iter().filter(|s| (first..=last).contains(&s.index)).map(|s| {
                let key = (v.id, s.index);
                let is_selected = selected == Some(key);
                html! {
                    <button class={classes!("subtask-chip", format!("bp-{}", s.level), is_selected.then_some("selected"))}
                            data-subtask={s.index.to_string()} data-level={s.level} title={subtask_title(&v.name, s)}
                            style={format!("background: {}", busy_colour(s.busy))} aria-pressed={is_selected.to_string()}
                            onclick={onselect.reform(move |_: MouseEvent| key)}>
                        { s.index.to_string() }
                    </button>
                }
            }) }
            <button class="drill-close" aria-label="Close the subtask list" onclick={onclose}>{ "×" }</button>
        </div>
    }
}

fn group_title(e: &EdgeModel, g: &ChannelGroup) -> String {
    let mut t = format!(
        "channels {} #{}–{} → {} ({}): {} channels, {} remote\n{} buffers queued ({}), the fullest channel {} of {}",
        e.from,
        g.producers.0,
        g.producers.1,
        e.to,
        e.partitioner,
        g.channels,
        g.remote,
        g.queued,
        format::bytes(g.queued_bytes),
        g.max_queued,
        barrierlab_engine::network::MAX_BUFFERS_PER_CHANNEL,
    );
    if g.blocked > 0 {
        t.push_str(&format!(
            "\nBLOCKED: {} channel(s) wait for alignment",
            g.blocked
        ));
    }
    if g.aligned_barriers + g.unaligned_barriers > 0 {
        t.push_str(&format!(
            "\nbarriers in flight: {} aligned, {} unaligned",
            g.aligned_barriers, g.unaligned_barriers
        ));
    }
    t
}

/// A folded row: its bar is the fullest channel's queue, so one full channel still shows.
pub(super) fn render_group_row(
    e: &EdgeModel,
    g: &ChannelGroup,
    left: f64,
    bar_x: f64,
    y: f64,
    h: f64,
    labels: bool,
) -> Html {
    let cap = f64::from(barrierlab_engine::network::MAX_BUFFERS_PER_CHANNEL.max(1));
    let fill = f64::from(g.max_queued).min(cap) / cap * CH_BAR_W;
    let barrier = |class: &'static str, n: u32, dx: f64| {
        (n > 0).then(|| html! {
            <rect class={classes!("barrier", class)} x={(bar_x + CH_BAR_W - 4.0 - dx).to_string()}
                  y={(y - 1.0).to_string()} width="4" height={(h + 2.0).to_string()} />
        })
    };
    html! {
        <g class={classes!("channel", "channel-group", (g.blocked > 0).then_some("blocked"),
                           (g.aligned_barriers + g.unaligned_barriers > 0).then_some("has-barrier"))}
           data-queued={g.queued.to_string()} data-channels={g.channels.to_string()}>
            <title>{ group_title(e, g) }</title>
            if labels {
                <text class="channel-label" x={(left + 4.0).to_string()} y={(y + h - 0.5).to_string()}>
                    { format!("{}–{}", g.producers.0, g.producers.1) }
                </text>
            }
            <rect class="channel-track" x={bar_x.to_string()} y={y.to_string()}
                  width={CH_BAR_W.to_string()} height={h.to_string()} />
            <rect class="channel-fill" x={bar_x.to_string()} y={y.to_string()}
                  width={fill.to_string()} height={h.to_string()} />
            { barrier("aligned", g.aligned_barriers, 0.0) }
            { barrier("unaligned", g.unaligned_barriers, 6.0) }
        </g>
    }
}
