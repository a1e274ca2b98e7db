//! Compare the current scenario under aligned, unaligned and at-least-once checkpointing.

use yew::prelude::*;

use crate::compare::{CompareCell, Stats};
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
                <p class="muted">{ "Runs this scenario and seed under aligned, unaligned and at-least-once checkpointing to the same simulated time (at least 30 s), in a background worker: the running job keeps its speed." }</p>
                <button id="compare-start" class="primary" onclick={start}>{ "Compare modes" }</button>
            </div>
        };
    };
    let (summary, in_worker) = {
        let c = cell.borrow();
        (c.summary().clone(), c.in_worker())
    };
    let runs: Vec<(AttrValue, Result<Stats, String>, u64, AttrValue)> = summary
        .runs
        .into_iter()
        .map(|r| (r.mode.into(), r.stats, r.now, r.fingerprint.into()))
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
    let done = summary.done;
    let runner = if in_worker { "worker" } else { "page" };
    html! {
        <div class="compare" id="compare" data-done={done.to_string()} data-runner={runner}>
            <p>
                { if done { format!("Done: all runs at {}.", format::sim_time(summary.target)) }
                  else { format!("Running… {} of {}", format::sim_time(summary.progress), format::sim_time(summary.target)) } }
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
                { for runs.iter().map(|(mode, s, now, fingerprint)| match s {
                    Ok(s) => html! {
                        <tr data-mode={mode.clone()} data-fingerprint={fingerprint.clone()} title={format!("fingerprint {fingerprint}")}>
                            <td>{ mode.clone() }</td>
                            <td>{ format::sim_time(*now) }</td>
                            <td>{ s.completed }</td>
                            <td class={classes!(rank(s.avg, &avgs))}>{ s.avg.map_or("–".into(), format::micros) }</td>
                            <td class={classes!(rank(s.max, &maxs))}>{ s.max.map_or("–".into(), format::micros) }</td>
                            <td class={classes!("persisted", rank(Some(s.persisted), &pers))}>{ format::bytes(s.persisted) }</td>
                            <td>{ format::bytes(s.checkpointed) }</td>
                        </tr>
                    },
                    Err(e) => html! { <tr data-mode={mode.clone()}><td>{ mode.clone() }</td><td colspan="6" class="error">{ e.clone() }</td></tr> },
                    }) }
                </tbody>
            </table>
            </div>
            <p class="muted">{ "Green: lowest of the runs, red: highest. " }
                { if in_worker { "Run in a background worker." } else { "Run on this page, a few milliseconds per frame (no background worker started)." } }</p>
        </div>
    }
}
