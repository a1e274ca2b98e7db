//! Compare the current scenario under aligned, unaligned and at-least-once checkpointing.

use barrierlab_engine::sim::CheckpointRow;
use yew::prelude::*;

use crate::compare::CompareCell;
use crate::format;
use crate::state::{Action, State};

#[derive(Properties)]
pub struct CompareProps {
    pub compare: Option<CompareCell>,
    pub version: u64,
    pub dispatch: UseReducerDispatcher<State>,
}

impl PartialEq for CompareProps {
    fn eq(&self, o: &Self) -> bool {
        let same = match (&self.compare, &o.compare) {
            (Some(a), Some(b)) => std::rc::Rc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        same && self.version == o.version
    }
}

struct Stats {
    completed: usize,
    avg: Option<u64>,
    max: Option<u64>,
    persisted: u64,
    checkpointed: u64,
}

fn stats(rows: &[CheckpointRow]) -> Stats {
    let done: Vec<u64> = rows.iter().filter_map(|r| r.duration).collect();
    Stats {
        completed: done.len(),
        avg: (!done.is_empty()).then(|| done.iter().sum::<u64>() / done.len() as u64),
        max: done.iter().copied().max(),
        persisted: rows.iter().map(|r| r.persisted).sum(),
        checkpointed: rows.iter().map(|r| r.checkpointed_size).sum(),
    }
}

/// "best" / "worst" class for a value among the runs (lower is better).
fn rank(v: Option<u64>, all: &[Option<u64>]) -> Option<&'static str> {
    let vals: Vec<u64> = all.iter().flatten().copied().collect();
    let (lo, hi) = (vals.iter().min()?, vals.iter().max()?);
    let v = v?;
    if lo == hi {
        None
    } else if v == *lo {
        Some("best")
    } else if v == *hi {
        Some("worst")
    } else {
        None
    }
}

#[function_component(ComparePanel)]
pub fn compare_panel(p: &CompareProps) -> Html {
    let start = {
        let d = p.dispatch.clone();
        Callback::from(move |_| d.dispatch(Action::StartCompare))
    };
    let stop = {
        let d = p.dispatch.clone();
        Callback::from(move |_| d.dispatch(Action::StopCompare))
    };
    let Some(cell) = &p.compare else {
        return html! {
            <div class="compare">
                <p class="muted">{ "Runs this scenario and seed under aligned, unaligned and at-least-once checkpointing to the same simulated time (at least 30 s), a few milliseconds per frame." }</p>
                <button id="compare-start" class="primary" onclick={start}>{ "Compare modes" }</button>
            </div>
        };
    };
    let c = cell.borrow();
    let runs: Vec<(&str, Result<Stats, String>, u64)> = c
        .runs
        .iter()
        .map(|r| match &r.sim {
            Ok(sim) => (r.mode, Ok(stats(&sim.checkpoint_rows())), sim.now),
            Err(e) => (r.mode, Err(e.clone()), 0),
        })
        .collect();
    let avgs: Vec<Option<u64>> = runs
        .iter()
        .map(|r| r.1.as_ref().ok().and_then(|s| s.avg))
        .collect();
    let maxs: Vec<Option<u64>> = runs
        .iter()
        .map(|r| r.1.as_ref().ok().and_then(|s| s.max))
        .collect();
    let pers: Vec<Option<u64>> = runs
        .iter()
        .map(|r| r.1.as_ref().ok().map(|s| s.persisted))
        .collect();
    let done = c.done();
    html! {
        <div class="compare" id="compare" data-done={done.to_string()}>
            <p>
                { if done { format!("Done: all runs at {}.", format::sim_time(c.target)) }
                  else { format!("Running… {} of {}", format::sim_time(c.progress()), format::sim_time(c.target)) } }
                { " " }
                <button id="compare-restart" onclick={start}>{ "Run again" }</button>
                <button id="compare-close" onclick={stop}>{ "Close" }</button>
            </p>
            <div class="table-scroll">
            <table class="data" id="compare-table">
                <thead><tr>
                    <th>{ "mode" }</th><th>{ "sim time" }</th><th>{ "completed" }</th><th>{ "avg duration" }</th>
                    <th>{ "max duration" }</th><th>{ "persisted (in-flight)" }</th><th>{ "checkpointed" }</th>
                </tr></thead>
                <tbody>
                { for runs.iter().map(|(mode, s, now)| match s {
                    Ok(s) => html! {
                        <tr data-mode={*mode}>
                            <td>{ *mode }</td>
                            <td>{ format::sim_time(*now) }</td>
                            <td>{ s.completed }</td>
                            <td class={classes!(rank(s.avg, &avgs))}>{ s.avg.map_or("–".into(), format::micros) }</td>
                            <td class={classes!(rank(s.max, &maxs))}>{ s.max.map_or("–".into(), format::micros) }</td>
                            <td class={classes!("persisted", rank(Some(s.persisted), &pers))}>{ format::bytes(s.persisted) }</td>
                            <td>{ format::bytes(s.checkpointed) }</td>
                        </tr>
                    },
                    Err(e) => html! { <tr data-mode={*mode}><td>{ *mode }</td><td colspan="6" class="error">{ e.clone() }</td></tr> },
                    }) }
                </tbody>
            </table>
            </div>
            <p class="muted">{ "Green: lowest of the runs, red: highest." }</p>
        </div>
    }
}
