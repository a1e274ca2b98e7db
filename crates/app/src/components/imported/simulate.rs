//! "Simulate this job": runs the scenario derived from the bundle beside the real job's figures,
//! and one-click what-ifs beside that run. The runs belong to this panel (keyed by the job, so
//! another job starts afresh) and run in the page's Web Worker; a timer of the panel's own takes
//! what the worker posted (or, without a worker, moves the runs on a few milliseconds per tick).

use std::cell::RefCell;
use std::rc::Rc;

use barrierlab_engine::import::derive::Derived;
use barrierlab_engine::share::{encode, LinkOptions};
use barrierlab_engine::types::{Micros, MICROS_PER_SEC};
use gloo_timers::callback::Interval;
use yew::prelude::*;

use crate::imported::sim_runs::{RunsSummary, SimulateJob};
use crate::imported::simulate::{headline, rows, Cell, Figures, WHAT_IFS};

/// Wall-clock milliseconds between two slices, and the work per slice: a quarter of a tick, as
/// the playground's own comparison takes while its job plays.
const TICK_MS: u32 = 40;
const BUDGET_MS: f64 = 10.0;

#[derive(Properties, PartialEq)]
pub struct SimulateProps {
    pub derived: Rc<Result<Derived, String>>,
    pub real: Rc<Figures>,
    /// Simulated time of every run.
    pub target: Micros,
}

#[function_component(ImportedSimulate)]
pub fn imported_simulate(p: &SimulateProps) -> Html {
    let runs: Rc<RefCell<Option<SimulateJob>>> = use_mut_ref(|| None);
    let running = use_state(|| false);
    let redraw = use_force_update();
    {
        let (runs, running_handle, redraw) = (runs.clone(), running.clone(), redraw.clone());
        use_effect_with(*running, move |on| {
            let interval = on.then(|| {
                Interval::new(TICK_MS, move || {
                    let done = runs
                        .borrow_mut()
                        .as_mut()
                        .is_none_or(|r| r.advance(BUDGET_MS));
                    if done {
                        running_handle.set(false);
                    }
                    redraw.force_update();
                })
            });
            move || drop(interval)
        });
    }
    let derived = match &*p.derived {
        Ok(d) => d,
        Err(e) => {
            return html! {
                <div id="import-simulate" class="import-simulate">
                    <p id="import-simulate-error" class="error">{ format!("This job cannot be simulated: {e}.") }</p>
                </div>
            }
        }
    };
    let start = {
        let (runs, running, redraw) = (runs.clone(), running.clone(), redraw.clone());
        let (scenario, target) = (derived.scenario.clone(), p.target);
        Callback::from(move |_| {
            *runs.borrow_mut() = Some(SimulateJob::start(scenario.clone(), target));
            running.set(true);
            redraw.force_update();
        })
    };
    let what_if = |i: usize| {
        let (runs, running, redraw) = (runs.clone(), running.clone(), redraw.clone());
        Callback::from(move |_| {
            if let Some(r) = runs.borrow_mut().as_mut() {
                r.add_what_if(i);
            }
            running.set(true);
            redraw.force_update();
        })
    };
    let open = encode(&derived.scenario, &LinkOptions::default());
    let n = derived.notes.len();
    let state = runs.borrow().as_ref().map(|r| (r.summary(), r.in_worker()));
    html! {
        <div id="import-simulate" class="import-simulate">
            <p class="muted">{ format!(
                "Runs the scenario derived from this bundle (the job's vertices, measured rates and costs, and checkpoint settings) for {} of simulated time, about as long as the real job had run, and sets its figures beside the real job's. Medians are over the completed checkpoints of each history; the slowest subtask's phases over those with per-subtask details.",
                whole_seconds(p.target)) }</p>
            if n > 0 {
                <details id="import-simulate-notes" class="import-notes">
                    <summary>{ format!("{n} assumption{} in the derived scenario", if n == 1 { "" } else { "s" }) }</summary>
                    <ul>{ for derived.notes.iter().map(|n| html! { <li>{ n }</li> }) }</ul>
                </details>
            }
            <p class="import-actions">
                <button id="import-simulate-run" class="primary" onclick={start}>
                    { if state.is_some() { "Simulate again" } else { "Simulate this job" } }
                </button>
                <a id="import-simulate-open" href={open} title="The derived scenario in the playground's editor and simulation">{ "Open in playground" }</a>
            </p>
            if let Some((r, in_worker)) = state.as_ref() {
                { results(r, *in_worker, &p.real, what_if) }
            }
        </div>
    }
}

fn results(
    r: &RunsSummary,
    in_worker: bool,
    real: &Figures,
    what_if: impl Fn(usize) -> Callback<MouseEvent>,
) -> Html {
    let done = r.done;
    let status = if done {
        format!("Done: {} simulated.", whole_seconds(r.target))
    } else {
        format!(
            "Running… {} of {}",
            crate::format::sim_time(r.progress),
            whole_seconds(r.target)
        )
    };
    let runner = if in_worker { "worker" } else { "page" };
    let Some(base) = r.baseline() else {
        return html! { <p id="import-simulate-status" data-done="false" data-runner={runner}>{ status }</p> };
    };
    let base = match base {
        Ok(f) => f,
        Err(e) => {
            return html! { <p id="import-simulate-status" class="error" data-done="true">{ format!("The simulation did not run: {e}.") }</p> };
        }
    };
    let columns: Vec<_> = r.runs[1..]
        .iter()
        .filter_map(|run| Some((&WHAT_IFS[run.what_if?], run.figures.as_ref())))
        .collect();
    let figures: Vec<Option<&Figures>> = columns
        .iter()
        .map(|(_, f)| f.and_then(|f| f.as_ref().ok()))
        .collect();
    let table = rows(real, base, &figures);
    let cell = |c: &Cell| {
        html! {
            <td class={classes!(c.trend)}>
                { &c.value }
                if !c.diff.is_empty() { <span class="sim-diff">{ &c.diff }</span> }
            </td>
        }
    };
    html! {
        <>
            <p id="import-simulate-status" data-done={done.to_string()} data-runner={runner}>{ status }</p>
            <p id="import-simulate-headline" class="import-simulate-headline">{ headline(real, base) }</p>
            <div class="import-whatifs" role="group" aria-label="What if">
                <span class="muted">{ "What if… " }</span>
                { for WHAT_IFS.iter().enumerate().map(|(i, w)| {
                    let added = r.runs.iter().any(|run| run.what_if == Some(i));
                    html! {
                        <button id={format!("sim-whatif-{}", w.id)} title={w.change} disabled={added} onclick={what_if(i)}>{ w.label }</button>
                    }
                }) }
            </div>
            <div class="table-scroll">
            <table id="import-simulate-table" class="import-table import-simulate-table">
                <thead><tr>
                    <th>{ "" }</th><th>{ "Real job" }</th><th>{ "Simulated" }<span class="sim-diff">{ "vs real" }</span></th>
                    { for columns.iter().map(|(w, f)| html! {
                        <th data-whatif={w.id} title={w.change}>{ w.label }
                            <span class="sim-diff">{ match f {
                                None => "running…".to_string(),
                                Some(Err(e)) => format!("did not run: {e}"),
                                Some(Ok(_)) => "vs simulated".to_string(),
                            } }</span>
                        </th>
                    }) }
                </tr></thead>
                <tbody>
                { for table.iter().map(|row| html! {
                    <tr>
                        <th scope="row">{ row.label }</th>
                        <td>{ &row.real.value }</td>
                        { cell(&row.simulated) }
                        { for row.what_ifs.iter().map(|c| match c {
                            Some(c) => cell(c),
                            None => html! { <td class="muted">{ "–" }</td> },
                        }) }
                    </tr>
                }) }
                </tbody>
            </table>
            </div>
            <p class="muted">{ "Simulated against the real job, each what-if against the simulation: ×ratio for durations and sizes, +/− for counts. A what-if's green is lower, red higher (durations, sizes, failures)." }</p>
        </>
    }
}

/// A run length in whole seconds (`target` gives whole seconds): `30 s`.
fn whole_seconds(us: Micros) -> String {
    format!("{} s", us / MICROS_PER_SEC)
}
