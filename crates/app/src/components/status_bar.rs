use barrierlab_engine::sim::JobStatus;
use yew::prelude::*;

use crate::format;
use crate::worker::play::Load;

#[derive(Properties, PartialEq)]
pub struct StatusBarProps {
    pub now: u64,
    pub speed: &'static str,
    pub status: JobStatus,
    pub playing: bool,
    pub lagging: bool,
    /// The job plays in the Web Worker (`worker::playing`); the page draws what it posts.
    #[prop_or_default]
    pub in_worker: bool,
    /// The worker's shares of its time before its last update.
    #[prop_or_default]
    pub worker_load: Option<Load>,
    pub events: u64,
    pub fingerprint: String,
    /// RESTARTING: simulated time until the restart strategy's delay is over.
    #[prop_or_default]
    pub restart_in: Option<u64>,
    /// A re-run with an edited fault script is catching up.
    #[prop_or_default]
    pub rerunning: bool,
}

#[function_component(StatusBar)]
pub fn status_bar(p: &StatusBarProps) -> Html {
    let run = if p.rerunning {
        "re-running"
    } else if p.status == JobStatus::Restarting {
        if p.playing {
            "playing"
        } else {
            "paused"
        }
    } else if p.status != JobStatus::Running {
        "stopped"
    } else if p.playing {
        "playing"
    } else {
        "paused"
    };
    html! {
        <footer class="statusbar" role="status">
            <span id="sim-time" title="Simulated time" data-micros={p.now.to_string()}>{ format!("t = {}", format::sim_time(p.now)) }</span>
            <span id="sim-speed">{ format!("speed {}", p.speed) }
                if p.lagging { <span class="lagging" title="The browser cannot keep up; simulated time runs slower than asked">{ " (lagging)" }</span> }
                if p.in_worker { { worker_note(p.worker_load) } }
            </span>
            <span id="job-status" class={classes!("job-status", p.status.flink_name().to_ascii_lowercase())}>
                { format!("{} · {run}", p.status.flink_name()) }
                if let Some(us) = p.restart_in {
                    <span id="restart-countdown" title="The restart strategy's delay before the job is redeployed and restored">
                        { format!(" · restart in {}", format::micros(us)) }
                    </span>
                }
            </span>
            <span id="sim-events">{ format!("{} events", p.events) }</span>
            <span class="spacer" />
            <span id="fingerprint" title="The engine's trace fingerprint so far: identical runs print identical fingerprints">
                { format!("fingerprint {}", p.fingerprint) }
            </span>
            <span class="version">{ concat!("barrierlab ", env!("CARGO_PKG_VERSION")) }</span>
        </footer>
    }
}

/// "in a worker", with how the worker spent its time (the shares as data for the benchmark).
fn worker_note(load: Option<Load>) -> Html {
    let mut title =
        String::from("The simulation runs in a Web Worker; this page only draws what it posts.");
    let (stepping, writing, pace) = match load {
        Some(l) => {
            title += &format!(
                " Before its last update the worker simulated {:.2} s per second, and spent \
                 {:.0} % of its time simulating and {:.0} % writing updates for this page; the \
                 rest it waited, for the clock or for the CPU.",
                l.pace,
                l.stepping * 100.0,
                l.writing * 100.0
            );
            (
                format!("{:.3}", l.stepping),
                format!("{:.3}", l.writing),
                format!("{:.3}", l.pace),
            )
        }
        None => Default::default(),
    };
    html! {
        <span id="sim-worker" class="muted" title={title} data-stepping={stepping} data-writing={writing} data-pace={pace}>
            { " · in a worker" }
        </span>
    }
}
