//! Duration and size trends: the newest completed checkpoints from the engine's own summary
//! windows (the values Flink's percentiles come from), so the charts are the same at any speed.

use yew::prelude::*;

use crate::format;

/// Checkpoints a chart shows at most.
pub const TREND_POINTS: usize = 120;

const WIDTH: f64 = 320.0;
const HEIGHT: f64 = 90.0;

/// End-to-end durations (ms, as Flink's summary keeps them) and checkpointed sizes (bytes),
/// oldest first.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Trends {
    pub durations: Vec<u64>,
    pub sizes: Vec<u64>,
}

/// The polyline points of `values` scaled into the chart, and the largest value (the scale).
fn points(values: &[u64]) -> (String, u64) {
    let max = values.iter().copied().max().unwrap_or(0).max(1);
    let step = if values.len() > 1 {
        WIDTH / (values.len() - 1) as f64
    } else {
        0.0
    };
    let pts = values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let x = i as f64 * step;
            let y = HEIGHT - (*v as f64 / max as f64) * (HEIGHT - 4.0) - 2.0;
            format!("{x:.1},{y:.1}")
        })
        .collect::<Vec<_>>()
        .join(" ");
    (pts, max)
}

fn chart(id: &str, title: &str, values: &[u64], label: impl Fn(u64) -> String) -> Html {
    let (pts, max) = points(values);
    let min = values.iter().copied().min().unwrap_or(0);
    let last = values.last().copied().unwrap_or(0);
    let summary = format!(
        "{title}: {} checkpoints, min {}, max {}, newest {}",
        values.len(),
        label(min),
        label(max),
        label(last)
    );
    html! {
        <figure class="trend" id={id.to_string()}>
            <figcaption>
                <span>{ title }</span>
                <span class="muted">{ format!("newest {} · max {}", label(last), label(max)) }</span>
            </figcaption>
            <svg viewBox={format!("0 0 {WIDTH} {HEIGHT}")} preserveAspectRatio="none" role="img" aria-label={summary.clone()}>
                <title>{ summary }</title>
                <line class="axis" x1="0" y1={HEIGHT.to_string()} x2={WIDTH.to_string()} y2={HEIGHT.to_string()} />
                <polyline class="line" points={pts} />
            </svg>
            <div class="trend-axis muted"><span>{ format!("{} checkpoints ago", values.len()) }</span><span>{ "newest" }</span></div>
        </figure>
    }
}

pub fn trends(t: &Trends) -> Html {
    if t.durations.len() < 2 {
        return html! { <p class="empty">{ "The trends need two completed checkpoints." }</p> };
    }
    html! {
        <div class="trends" id="checkpoint-trends">
            { chart("trend-duration", "End to End Duration", &t.durations, format::millis) }
            { chart("trend-size", "Checkpointed Data Size", &t.sizes, format::bytes) }
        </div>
    }
}
