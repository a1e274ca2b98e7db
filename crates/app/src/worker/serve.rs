//! The worker's side: reads each request, runs it in slices (so long work posts its progress as
//! it goes, and a what-if sent meanwhile joins it) and posts the answers.

use std::cell::RefCell;
use std::rc::Rc;

use gloo_timers::callback::Timeout;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

use super::{FromWorker, ToWorker};
use crate::compare::Compare;
use crate::imported::sim_runs::JobRuns;

/// Wall-clock milliseconds of work between two summaries.
const SLICE_MS: f64 = 50.0;

/// The work a worker runs.
enum Work {
    Compare(Compare),
    Simulate(JobRuns),
}

impl Work {
    /// One slice; the summary to post, and whether the work is done.
    fn slice(&mut self) -> (FromWorker, bool) {
        match self {
            Work::Compare(c) => {
                c.advance(SLICE_MS);
                (FromWorker::Compare(c.summary()), c.done())
            }
            Work::Simulate(r) => {
                r.advance(SLICE_MS);
                (FromWorker::Simulate(r.summary()), r.done())
            }
        }
    }
}

type Slot = Rc<RefCell<Option<Work>>>;

fn scope() -> DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

fn post(answer: &FromWorker) {
    let _ = scope().post_message(&answer.to_json().into());
}

/// Installs the worker's message handler and posts `Ready`; the worker then lives on its
/// messages.
pub fn serve() {
    // A panic in the worker reaches the page as an error: it runs the work itself instead.
    std::panic::set_hook(Box::new(|info| {
        post(&FromWorker::Error(format!("the worker panicked: {info}")))
    }));
    let work: Slot = Rc::new(RefCell::new(None));
    // Whether a slice is scheduled: a request while work runs joins it, else starts the slices.
    let stepping = Rc::new(RefCell::new(false));
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
        let text = e.data().as_string().unwrap_or_default();
        let request = match ToWorker::parse(&text) {
            Ok(r) => r,
            Err(e) => return post(&FromWorker::Error(e)),
        };
        match request {
            ToWorker::Compare { scenario, now } => {
                *work.borrow_mut() = Some(Work::Compare(Compare::new(&scenario, now)));
            }
            ToWorker::Simulate { scenario, target } => {
                *work.borrow_mut() = Some(Work::Simulate(JobRuns::new(scenario, target)));
            }
            ToWorker::WhatIf { index } => match work.borrow_mut().as_mut() {
                Some(Work::Simulate(r)) => r.add_what_if(index),
                _ => {
                    return post(&FromWorker::Error(
                        "a what-if without a job to simulate".into(),
                    ))
                }
            },
            ToWorker::Bench {
                seconds,
                taskmanagers,
            } => return post(&FromWorker::Bench(crate::bench::run(seconds, taskmanagers))),
        }
        if !*stepping.borrow() {
            *stepping.borrow_mut() = true;
            step(work.clone(), stepping.clone());
        }
    });
    scope().set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The worker keeps its handler for its lifetime.
    on_message.forget();
    post(&FromWorker::Ready);
}

/// One slice of the work, its summary posted; the next slice after any message that arrived
/// meanwhile.
fn step(work: Slot, stepping: Rc<RefCell<bool>>) {
    let done = match work.borrow_mut().as_mut() {
        Some(w) => {
            let (answer, done) = w.slice();
            post(&answer);
            done
        }
        None => true,
    };
    if done {
        // Kept: a what-if may extend it.
        *stepping.borrow_mut() = false;
    } else {
        Timeout::new(0, move || step(work, stepping)).forget();
    }
}
