//! The playground's root: owns the state (its effects on the page: `effects.rs`), lays out the
//! panels.

use std::rc::Rc;

use yew::prelude::*;

use crate::components::backpressure::{BackpressurePanel, TaskManagersPanel};
use crate::components::event_log::use_log_view;
use crate::components::storage_browser::StorageBrowser;
use crate::components::tutorial_panel::TutorialPanel;
use crate::components::{
    checkpoints::CheckpointsPanel, compare_panel::ComparePanel, config_panel::ConfigPanel,
    controls::Controls, editor::TopologyEditor, event_log::EventLog, export::ExportBar,
    fault_menu::FaultMenu, faults_panel::FaultsPanel, header::Header, help::HelpOverlay,
    inspector::Inspector, job_graph::JobGraph, panel::Panel, recovery::RecoveryPanel,
    share_bar::ShareBar, status_bar::StatusBar, time_travel::TimeTravelBar, timeline::Timeline,
    verdict::VerdictPanel, why_panel::WhyPanel,
};
use crate::effects::use_page_effects;
use crate::hooks::{use_graph_model, use_media_query, NARROW_QUERY};
use crate::keyboard::use_shortcuts;
use crate::share::Current;
use crate::state::{Action, State};
use barrierlab_engine::sim::JobStatus;
use barrierlab_engine::trace::TraceKind;

#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer_eq(|| State::open(&crate::share::location_hash()));
    // `#import`, `#job=…`: a real Flink job's page instead of the workspace (not in embeds).
    let import_route = crate::components::imported::use_import_route();
    use_page_effects(state.clone());
    use_shortcuts(state.dispatcher());
    // The job-graph edge whose fault menu is open.
    let edge_menu = use_state(|| None::<(u32, u32)>);
    // Callbacks the same from render to render, so they re-render nothing by themselves.
    let onseek = use_callback(state.dispatcher(), |t, d| d.dispatch(Action::Seek(t)));
    let close_edge_menu = use_callback(edge_menu.setter(), |_, set| set.set(None));
    let narrow = use_media_query(NARROW_QUERY);

    let (log_sim, log_lines) = use_log_view(state.job.sim().clone(), state.pace());
    let graph = use_graph_model(state.job.sim().clone(), state.pace());
    // Slots change only with the deployment: a new job (or its task list, after a rescale).
    let taskmanagers = {
        let cell = state.job.sim().cell.clone();
        let key = (state.job.sim().submission, cell.borrow().tasks.len());
        use_memo(key, move |_| {
            crate::model::graph::taskmanager_views(&cell.borrow())
        })
    };
    let sim = state.job.sim().borrow();
    let dispatch = state.dispatcher();
    let selected = state
        .ui
        .inspected
        .and_then(|i| sim.tasks.get(i as usize))
        .map(|t| (t.id.vertex, t.id.subtask));
    // The same callbacks from render to render: a new one would redraw the job graph each frame.
    let onselect = use_callback(
        (
            dispatch.clone(),
            state.job.sim().cell.clone(),
            edge_menu.setter(),
        ),
        |(v, s): (u32, u32), (d, sim_cell, edge_menu)| {
            edge_menu.set(None);
            let index = sim_cell
                .borrow()
                .tasks
                .iter()
                .position(|t| t.id.vertex == v && t.id.subtask == s)
                .map(|i| i as u32);
            d.dispatch(Action::Inspect(index));
        },
    );
    let busy = state.job.catch_up.is_some();
    // Phase durations of the history's checkpoints, recomputed only when the history changed.
    let phases = {
        let rows = state.job.derived.rows.clone();
        let sim_cell = state.job.sim().cell.clone();
        (*use_memo(rows, move |_| {
            let sim = sim_cell.borrow();
            let names = sim.vertex_names();
            let mut map = crate::components::checkpoint_details::PhaseMicros::new();
            for cp in sim.coordinator.stats().history() {
                for (v, t) in &cp.tasks {
                    let name = names.get(*v as usize).cloned().unwrap_or_default();
                    let mut by_index = Vec::new();
                    for s in t.subtasks.values() {
                        let i = s.index as usize;
                        if by_index.len() <= i {
                            by_index.resize(i + 1, None);
                        }
                        let m = &s.metrics;
                        by_index[i] = Some([
                            m.sync_duration,
                            m.async_duration,
                            m.alignment_duration,
                            m.start_delay,
                        ]);
                    }
                    map.insert((cp.id, name), by_index);
                }
            }
            Rc::new(map)
        }))
        .clone()
    };
    let trends = {
        use crate::components::trends::{Trends, TREND_POINTS};
        let summary = &sim.coordinator.stats().summary;
        Rc::new(Trends {
            durations: summary.end_to_end_duration.recent(TREND_POINTS),
            sizes: summary.checkpointed_size.recent(TREND_POINTS),
        })
    };
    let onedge = use_callback(
        (dispatch.clone(), edge_menu.setter(), *edge_menu),
        |e: (u32, u32), (d, set, open)| {
            d.dispatch(Action::Inspect(None));
            set.set((*open != Some(e)).then_some(e));
        },
    );
    let edge_fault_menu = edge_menu.and_then(|e| {
        crate::components::edge_fault_menu::edge_menu(
            &state,
            &graph,
            e,
            dispatch.clone(),
            close_edge_menu.clone(),
        )
    });
    let fault_menu = state
        .ui
        .inspected
        .filter(|_| state.ui.fault_menu_open)
        .and_then(|i| sim.tasks.get(i as usize))
        .map(|t| {
            let v = &sim.graph.vertices[t.id.vertex as usize];
            let operators: Vec<String> = v
                .operators
                .iter()
                .map(|o| sim.scenario.operators[*o].name.clone())
                .collect();
            let next_checkpoint = state.job.derived.rows.last().map_or(1, |r| r.id + 1);
            html! {
                <FaultMenu sim={state.job.sim().cell.clone()} vertex={v.name.clone()} operators={operators}
                           subtask={t.id.subtask} next_checkpoint={next_checkpoint} busy={busy}
                           dispatch={dispatch.clone()} />
            }
        });
    // RESTARTING: the restart is due `delay` after the newest RestartScheduled (the queue was
    // cleared at the failure, so it is among the last events traced).
    let restart_in = (sim.status == JobStatus::Restarting)
        .then(|| {
            sim.trace
                .events()
                .rev()
                .take(64)
                .find_map(|e| match e.kind {
                    TraceKind::RestartScheduled { delay } => {
                        Some((e.time + delay).saturating_sub(sim.now))
                    }
                    _ => None,
                })
        })
        .flatten();
    let status_bar = html! {
        <StatusBar
            now={sim.now}
            speed={state.ui.speed.label()}
            status={sim.status}
            playing={state.ui.playing}
            lagging={state.lagging()}
            in_worker={state.in_worker()}
            worker_load={state.ui.worker_load}
            events={sim.events}
            fingerprint={sim.fingerprint()}
            restart_in={restart_in}
            rerunning={busy}
        />
    };
    let retained: Vec<(u64, bool)> = sim
        .completed_state
        .keys()
        .map(|id| {
            let savepoint = state
                .job
                .derived
                .rows
                .iter()
                .any(|r| r.id == *id && r.savepoint);
            (*id, savepoint)
        })
        .collect();
    let operators: Vec<(String, u32)> = sim
        .scenario
        .operators
        .iter()
        .enumerate()
        .map(|(i, o)| (o.name.clone(), sim.scenario.parallelism(i)))
        .collect();
    let progress = state.job.catch_up.as_ref().map(|c| (sim.now, c.target));
    let (horizon, snapshots) = {
        let travel = state.job.travel.borrow();
        (travel.horizon, travel.times())
    };
    let notice = state.ui.notice.clone().map(|(message, outcome)| {
        let d = dispatch.clone();
        html! {
            <div id="link-error" class="link-error" role="alert">
                <span>{ message }</span>
                <span class="muted">{ " " }{ outcome }</span>
                <button id="link-error-dismiss" class="icon" title="Dismiss" aria-label="Dismiss"
                        onclick={Callback::from(move |_| d.dispatch(Action::DismissNotice))}>{ "×" }</button>
            </div>
        }
    });
    let consent = state.ui.consent.clone().map(|pending| {
        let (run, cancel) = (dispatch.clone(), dispatch.clone());
        html! {
            <div id="consent" class="link-error consent" role="alertdialog" aria-labelledby="consent-title">
                <strong id="consent-title">{ format!("\u{201c}{}\u{201d} is over the cost budget", pending.scenario.name) }</strong>
                <span id="consent-message">{ " " }{ capitalized(&pending.message) }{ "." }</span>
                <span class="muted">{ " The running job continues until you choose." }</span>
                <span class="consent-actions">
                    <button id="consent-run" onclick={Callback::from(move |_| run.dispatch(Action::RunAnyway))}>{ "Run anyway" }</button>
                    <button id="consent-cancel" class="primary" onclick={Callback::from(move |_| cancel.dispatch(Action::DeclineConsent))}>{ "Keep the running job" }</button>
                </span>
            </div>
        }
    });
    // A re-run that will resume counts as playing; a busy re-run leaves nothing to control.
    let playing = state.ui.playing || state.job.catch_up.as_ref().is_some_and(|c| c.resume);
    let running = sim.status.is_live() && !busy;
    if state.ui.embed {
        // A tutorial step embedded (`#tutorial=…&embed=1`): its narration above the run, and
        // "Open" leads to the step in the full playground.
        let step = crate::tutorial::current(state.ui.tutorial.as_deref())
            .map(|s| crate::tutorial::link::fragment(s.tutorial, s.step));
        let open_full = step.as_ref().map_or_else(
            || crate::share::full_app_href(&state.job.scenario, state.ui.link.as_deref()),
            |f| format!("{}{f}", crate::share::base_url()),
        );
        let tutorial = state.ui.tutorial.clone();
        return html! {
            <div id="barrierlab" class={classes!("app", "embed", tutorial.is_some().then_some("with-tutorial"))}>
                <header class="embed-bar">
                    <Controls
                        preset={state.job.preset.clone()}
                        seed={state.job.seed()}
                        playing={playing}
                        speed={state.ui.speed}
                        running={running}
                        error={state.ui.error.clone()}
                        dispatch={dispatch.clone()}
                        compact=true
                    />
                    <span class="spacer" />
                    <a id="open-full" href={open_full} target="_blank" rel="noopener">
                        { if step.is_some() { "Open this step in Barrier Lab ↗" } else { "Open in Barrier Lab ↗" } }
                    </a>
                </header>
                { consent.unwrap_or_default() }
                <main class="workspace embed-workspace">
                    if let Some(view) = tutorial {
                        <div class="area-tutorial">
                            <TutorialPanel view={view} dispatch={dispatch.clone()} compact=true />
                        </div>
                    }
                    <Panel id="job-graph" title="Job graph" area="graph">
                        <JobGraph model={graph} vertical={false} onselect={Callback::noop()} selected={None::<(u32, u32)>} />
                    </Panel>
                    <Panel id="timeline" title="Timeline" area="timeline">
                        <Timeline checkpoints={state.job.derived.timeline.clone()} narrow={narrow} compact=true />
                    </Panel>
                </main>
                { status_bar }
            </div>
        };
    }
    if let Some(route) = import_route {
        return html! {
            <div id="barrierlab" class="app">
                <Header />
                <crate::components::imported::ImportPage route={route} />
            </div>
        };
    }
    let initial_checkpoint = crate::tutorial::checkpoint_hint(state.ui.tutorial.as_deref())
        .or_else(|| state.ui.link.as_ref().and_then(|o| o.checkpoint));
    html! {
        <div id="barrierlab" class="app">
            <Header />
            <Controls
                preset={state.job.preset.clone()}
                seed={state.job.seed()}
                playing={playing}
                speed={state.ui.speed}
                running={running}
                error={state.ui.error.clone()}
                dispatch={dispatch.clone()}
                phase={state.ui.phase_stop.as_ref().map(|s| (format!("{} ({})", s.text, crate::format::sim_time(s.time)), s.seq))}
                custom={state.job.custom.then(|| (state.job.scenario.name.clone(), state.job.scenario.description.clone()))}
            />
            <ShareBar current={Current {
                scenario: state.job.scenario.clone(),
                sim: state.job.sim().cell.clone(),
                paused: !state.ui.playing && !busy,
                speed: state.ui.speed,
            }} />
            { notice.unwrap_or_default() }
            { consent.clone().unwrap_or_default() }
            if state.ui.link.is_none() && state.ui.tutorial.is_none() {
                <crate::components::welcome::Welcome />
            }
            if let Some(view) = state.ui.tutorial.clone() {
                <TutorialPanel view={view} dispatch={dispatch.clone()} />
            }
            <main class="workspace">
                <Panel id="job-graph" title="Job graph" area="graph">
                    { fault_menu.unwrap_or_default() }
                    { edge_fault_menu.unwrap_or_default() }
                    <JobGraph model={graph.clone()} vertical={narrow} onselect={onselect} selected={selected}
                              onedge={onedge} selected_edge={*edge_menu} />
                </Panel>
                <Panel id="checkpoints" title="Checkpoints" area="checkpoints">
                    <CheckpointsPanel key={crate::tutorial::panel_key(state.ui.tutorial.as_deref())} rows={state.job.derived.rows.clone()} report={state.job.derived.report.clone()} initial={initial_checkpoint} trends={trends} phases={phases} />
                </Panel>
                <Panel id="faults-panel" title="Faults" area="faults">
                    <FaultsPanel sim={state.job.sim().cell.clone()} faults={state.job.scenario.faults.clone()} progress={progress}
                                 error={state.ui.fault_error.clone()} dispatch={dispatch.clone()} />
                </Panel>
                <Panel id="verdict-panel" title="Exactly-once verdict" area="verdict">
                    <VerdictPanel sim={state.job.sim().clone()} playing={state.ui.playing || busy} />
                </Panel>
                <Panel id="recovery-panel" title="Savepoints and recovery" area="recovery">
                    <RecoveryPanel retained={retained} operators={operators} running={sim.status == JobStatus::Running}
                                   busy={busy} error={state.ui.recovery_error.clone()} dispatch={dispatch.clone()} />
                </Panel>
                <Panel id="storage-panel" title="Checkpoint storage" area="storage">
                    <StorageBrowser sim={state.job.sim().clone()} busy={busy} dispatch={dispatch.clone()} />
                </Panel>
                <Panel id="travel" title="Time travel" area="travel">
                    <TimeTravelBar now={sim.now} horizon={horizon} snapshots={snapshots} dispatch={dispatch.clone()} />
                </Panel>
                <Panel id="timeline" title="Timeline" area="timeline">
                    <ExportBar sim={state.job.sim().cell.clone()} scenario={state.job.scenario.clone()} />
                    <Timeline checkpoints={state.job.derived.timeline.clone()} narrow={narrow} />
                </Panel>
                <Panel id="inspector-panel" title="Subtask inspector" area="inspector">
                    <Inspector sim={state.job.sim().clone()} task={state.ui.inspected} dispatch={dispatch.clone()} />
                </Panel>
                <Panel id="backpressure-panel" title="Backpressure" area="backpressure">
                    <BackpressurePanel graph={graph.clone()} />
                </Panel>
                <Panel id="taskmanagers-panel" title="TaskManagers and slots" area="taskmanagers">
                    <TaskManagersPanel taskmanagers={taskmanagers} />
                </Panel>
                <Panel id="why-panel" title="Why was this checkpoint slow?" area="why">
                    <WhyPanel sim={state.job.sim().cell.clone()} rows={state.job.derived.rows.clone()} />
                </Panel>
                <Panel id="editor-panel" title="Topology editor" area="editor">
                    <TopologyEditor live={state.job.scenario.clone()} dispatch={dispatch.clone()} />
                </Panel>
                <Panel id="config-panel" title="Configuration" area="config">
                    <ConfigPanel live={state.job.scenario.clone()} dispatch={dispatch.clone()} />
                </Panel>
                <Panel id="compare-panel" title="Compare modes" area="compare">
                    <ComparePanel compare={state.job.compare.clone()} version={state.version()} dispatch={dispatch.clone()} />
                </Panel>
                <Panel id="event-log" title="Event log" area="log">
                    <EventLog sim={log_sim} lines={log_lines}
                              onseek={onseek} marked={state.ui.phase_stop.as_ref().and_then(|s| s.seq)} />
                </Panel>
            </main>
            { status_bar }
            if state.ui.help_open {
                <HelpOverlay onclose={Callback::from(move |_| dispatch.dispatch(Action::CloseHelp))} />
            }
        </div>
    }
}

/// `this scenario …` -> `This scenario …` (the engine's messages continue a sentence).
fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}
