//! The worker's side: reads each request, runs it in slices (so a long comparison posts its
//! progress as it goes) and posts the answers.

use std::cell::RefCell;
use std::rc::Rc;

use gloo_timers::callback::Timeout;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

use super::{FromWorker, ToWorker};
use crate::compare::Compare;

/// Wall-clock milliseconds of work between two summaries.
const SLICE_MS: f64 = 50.0;

fn scope() -> DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

fn post(answer: &FromWorker) {
    let _ = scope().post_message(&answer.to_json().into());
}

/// Installs the worker's message handler; the worker then lives on its messages.
pub fn serve() {
    // A panic in the worker reaches the page as an error: it runs the work itself instead.
    std::panic::set_hook(Box::new(|info| {
        post(&FromWorker::Error(format!("the worker panicked: {info}")))
    }));
    let running: Rc<RefCell<Option<Compare>>> = Rc::new(RefCell::new(None));
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
        let text = e.data().as_string().unwrap_or_default();
        match ToWorker::parse(&text) {
            Ok(ToWorker::Compare { scenario, now }) => {
                let started = running.borrow().is_some();
                *running.borrow_mut() = Some(Compare::new(&scenario, now));
                if !started {
                    step(running.clone());
                }
            }
            Ok(ToWorker::Bench {
                seconds,
                taskmanagers,
            }) => post(&FromWorker::Bench(crate::bench::run(seconds, taskmanagers))),
            Err(e) => post(&FromWorker::Error(e)),
        }
    });
    scope().set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The worker keeps its handler for its lifetime.
    on_message.forget();
    post(&FromWorker::Ready);
}

/// One slice of the running comparison, its summary posted; the next slice after any message
/// that arrived meanwhile.
fn step(running: Rc<RefCell<Option<Compare>>>) {
    let done = {
        let mut slot = running.borrow_mut();
        let Some(c) = slot.as_mut() else { return };
        c.advance(SLICE_MS);
        post(&FromWorker::Compare(c.summary()));
        c.done()
    };
    if done {
        *running.borrow_mut() = None;
    } else {
        Timeout::new(0, move || step(running)).forget();
    }
}
