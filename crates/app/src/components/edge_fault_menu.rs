//! The fault menu of one edge of the job graph (opened by clicking the edge): delay the network
//! on it for a while, or drop its connection now. Both act on remote channels only, so an edge
//! whose channels are all local (one TaskManager) says so and offers a second TaskManager.

use barrierlab_engine::scenario::{edge_ref, Fault};
use barrierlab_engine::types::{parse_duration, Micros};
use yew::prelude::*;

use crate::components::fault_menu::text_input;
use crate::faults::{at_millis, duration_text};
use crate::job::SimCell;
use crate::state::{Action, State};

#[derive(Properties, PartialEq)]
pub struct EdgeFaultMenuProps {
    pub sim: SimCell,
    /// The scenario edge: producer and consumer operator names.
    pub from: String,
    pub to: String,
    pub partitioner: String,
    /// Channels of the edge, and how many of them cross the network.
    pub channels: usize,
    pub remote: usize,
    pub taskmanagers: u32,
    /// A re-run is catching up: injecting waits.
    pub busy: bool,
    pub dispatch: UseReducerDispatcher<State>,
    /// The same callback from render to render: a new one would re-render the menu.
    pub onclose: Callback<()>,
}

/// A network delay of `by` on the edge from now for `span`.
pub fn network_delay(edge: &str, now: Micros, by: &str, span: &str) -> Result<Fault, String> {
    let by = by.trim();
    if parse_duration(by).map_err(|e| format!("delay: {e}"))? == 0 {
        return Err("delay: must be more than 0".into());
    }
    let span = parse_duration(span).map_err(|e| format!("for: {e}"))?;
    if span == 0 {
        return Err("for: the window is empty".into());
    }
    let from = at_millis(now);
    Ok(Fault::NetworkDelay {
        edge: edge.to_string(),
        by: by.to_string(),
        from: duration_text(from),
        until: Some(duration_text(from + span)),
    })
}

#[function_component(EdgeFaultMenu)]
pub fn edge_fault_menu(p: &EdgeFaultMenuProps) -> Html {
    let by = use_state(|| "300ms".to_string());
    let span = use_state(|| "10s".to_string());
    let error = use_state(|| None::<String>);
    let edge = edge_ref(&p.from, &p.to);
    let delay = {
        let (sim, d, error, edge) = (
            p.sim.clone(),
            p.dispatch.clone(),
            error.clone(),
            edge.clone(),
        );
        let (by, span) = ((*by).clone(), (*span).clone());
        Callback::from(move |_: MouseEvent| {
            let now = sim.borrow().now;
            match network_delay(&edge, now, &by, &span) {
                Ok(f) => {
                    error.set(None);
                    d.dispatch(Action::AddFault(f));
                }
                Err(e) => error.set(Some(e)),
            }
        })
    };
    let lose = {
        let (sim, d, edge) = (p.sim.clone(), p.dispatch.clone(), edge.clone());
        Callback::from(move |_: MouseEvent| {
            let at = duration_text(at_millis(sim.borrow().now));
            d.dispatch(Action::AddFault(Fault::ConnectionLoss {
                edge: edge.clone(),
                at,
            }));
        })
    };
    // Two TaskManagers: subtask i runs on TaskManager i, so a redistributing edge gets remote
    // channels. The job restarts from time 0 with the edited cluster.
    let spread = {
        let (sim, d) = (p.sim.clone(), p.dispatch.clone());
        Callback::from(move |_: MouseEvent| {
            let mut scenario = sim.borrow().scenario.clone();
            scenario.cluster.taskmanagers = scenario.cluster.taskmanagers.max(2);
            d.dispatch(Action::ApplyScenario(Box::new(scenario)));
        })
    };
    let close = p.onclose.reform(|_: MouseEvent| ());
    let disabled = p.busy;
    html! {
        <div class="fault-menu edge-fault-menu" id="edge-fault-menu" role="group" aria-label="Inject a fault on an edge">
            <div class="fault-menu-head">
                <strong id="edge-fault-title">{ format!("Inject into edge {} → {} ({})", p.from, p.to, p.partitioner) }</strong>
                <button class="icon" id="edge-fault-close" title="Close" aria-label="Close the edge fault menu" onclick={close}>{ "×" }</button>
            </div>
            if p.remote == 0 {
                <p class="muted" id="edge-fault-local">
                    { format!("All {} channels of this edge are local: their subtasks share a TaskManager (the job runs on {}), \
                               and a LocalInputChannel never touches the network, so there is nothing to delay or drop.",
                              p.channels, if p.taskmanagers == 1 { "1 TaskManager".to_string() } else { format!("{} TaskManagers", p.taskmanagers) }) }
                </p>
                if p.taskmanagers < 2 {
                    <button id="edge-fault-spread" {disabled} onclick={spread}
                            title="Restart the job from time 0 on 2 TaskManagers (cluster.taskmanagers: 2)">
                        { "Run on 2 TaskManagers" }
                    </button>
                }
            } else {
                <p class="muted">{ format!("{} of {} channels cross the network.", p.remote, p.channels) }</p>
                <div class="fault-menu-body">
                    <div class="fault-menu-grid">
                        { text_input("edge-fault-by", "Delay by", &by, (*by).clone()) }
                        { text_input("edge-fault-for", "for", &span, (*span).clone()) }
                        <button id="edge-fault-delay" {disabled} onclick={delay}
                                title="Data and barriers sent on this edge arrive later, from now for that long">
                            { "Delay the network" }
                        </button>
                    </div>
                    <div class="fault-menu-grid">
                        <button id="edge-fault-loss" class="danger" {disabled} onclick={lose}
                                title="The connection drops now: RemoteTransportException in the consumer, which fails; the job fails over">
                            { "Drop the connection" }
                        </button>
                    </div>
                </div>
            }
            if let Some(e) = &*error {
                <p class="error" id="edge-fault-error" role="alert">{ e.clone() }</p>
            }
        </div>
    }
}

/// The menu for job edge `(source vertex, target vertex)` of the running job, if it exists.
pub fn edge_menu(
    state: &State,
    graph: &crate::model::graph::GraphModel,
    (from, to): (u32, u32),
    dispatch: UseReducerDispatcher<State>,
    onclose: Callback<()>,
) -> Option<Html> {
    let sim = state.job.sim().borrow();
    let job_edge = sim
        .graph
        .edges()
        .find(|e| e.source_vertex == from && e.target_vertex == to)?;
    let spec = sim.scenario.edges.get(job_edge.scenario_edge)?;
    let edge = graph.edges.iter().find(|e| e.from == from && e.to == to)?;
    let remote = if edge.groups.is_empty() {
        edge.channels.iter().filter(|c| c.remote).count()
    } else {
        edge.groups.iter().map(|g| g.remote as usize).sum()
    };
    Some(html! {
        <EdgeFaultMenu sim={state.job.sim().cell.clone()} from={spec.from.clone()} to={spec.to.clone()}
                       partitioner={job_edge.partitioner.to_string()} channels={edge.channel_count()}
                       {remote}
                       taskmanagers={sim.scenario.cluster.taskmanagers} busy={state.job.catch_up.is_some()}
                       {dispatch} {onclose} />
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_delay_starts_now_and_rejects_nonsense() {
        let f = network_delay("a -> b", 12_345_678, "300ms", "10s").unwrap();
        assert_eq!(
            f,
            Fault::NetworkDelay {
                edge: "a -> b".into(),
                by: "300ms".into(),
                from: "12345ms".into(),
                until: Some("22345ms".into()),
            }
        );
        assert!(network_delay("a -> b", 0, "0ms", "1s").is_err());
        assert!(network_delay("a -> b", 0, "soon", "1s").is_err());
        assert!(network_delay("a -> b", 0, "1ms", "0s").is_err());
    }
}
