//! The worker's side: reads each request, runs it in slices (so long work posts its progress as
//! it goes, and a what-if sent meanwhile joins it) and posts the answers.

use std::cell::RefCell;
use std::rc::Rc;

use gloo_timers::callback::Timeout;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageChannel, MessageEvent, MessagePort};

use super::play::{Next, Player, SLICE_MS};
use super::transport::{decode, encode};
use super::{FromWorker, ToWorker};
use crate::compare::Compare;
use crate::imported::sim_runs::JobRuns;

/// The work a worker runs.
enum Work {
    Compare(Compare),
    Simulate(JobRuns),
    // Boxed: a whole simulation beside the other two variants' handles.
    Play(Box<Player>),
}

/// An answer's text and bytes.
type Answer = (FromWorker, Option<Vec<u8>>);

impl Work {
    /// One slice; the answer to post, and when the next slice is due.
    fn slice(&mut self) -> (Option<Answer>, Next) {
        let until_done = |done: bool| if done { Next::Idle } else { Next::Now };
        match self {
            Work::Compare(c) => {
                c.advance(SLICE_MS);
                (
                    Some((FromWorker::Compare(c.summary()), None)),
                    until_done(c.done()),
                )
            }
            Work::Simulate(r) => {
                r.advance(SLICE_MS);
                (
                    Some((FromWorker::Simulate(r.summary()), None)),
                    until_done(r.done()),
                )
            }
            Work::Play(p) => {
                let (update, next) = p.slice(crate::clock::now_ms(), SLICE_MS);
                let answer =
                    update.map(|(played, bytes)| (FromWorker::Played(played), Some(bytes)));
                (answer, next)
            }
        }
    }
}

type Slot = Rc<RefCell<Option<Work>>>;

thread_local! {
    /// The port a due slice is posted to. A chain of `setTimeout(0)` is clamped to 4 ms a link
    /// after five (HTML's timer nesting rule, in workers too; measured in Chromium here: 4.1 ms a
    /// link, against 0.01 ms through a `MessageChannel`), which idled the worker for 4 ms of
    /// every 50 ms slice. A message on the channel is queued as a task like the page's own
    /// messages, so a `Stop` or `Want` still lands between two slices.
    static NEXT_SLICE: RefCell<Option<MessagePort>> = const { RefCell::new(None) };
}

fn scope() -> DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

fn post(answer: &FromWorker) {
    post_with(answer, None);
}

fn post_with(answer: &FromWorker, bytes: Option<&[u8]>) {
    let (data, transfer) = encode(&answer.to_json(), bytes);
    let _ = match transfer {
        Some(t) => scope().post_message_with_transfer(&data, &t),
        None => scope().post_message(&data),
    };
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
    if let Ok(channel) = MessageChannel::new() {
        let (w, s) = (work.clone(), stepping.clone());
        let on_due = Closure::<dyn FnMut(MessageEvent)>::new(move |_: MessageEvent| {
            step(w.clone(), s.clone())
        });
        channel
            .port1()
            .set_onmessage(Some(on_due.as_ref().unchecked_ref()));
        // Lives as long as the worker, as the message handler below.
        on_due.forget();
        NEXT_SLICE.set(Some(channel.port2()));
    }
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
        let (text, bytes) = decode(&e.data());
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
            ToWorker::Play {
                session,
                speed,
                travel_at,
            } => {
                let bytes = bytes.as_deref().unwrap_or_default();
                let player = Player::new(session, bytes, speed, travel_at);
                match player {
                    Ok(p) => *work.borrow_mut() = Some(Work::Play(Box::new(p))),
                    Err(e) => return post(&FromWorker::Error(e)),
                }
            }
            ToWorker::PlaySpeed(speed) => {
                if let Some(Work::Play(p)) = work.borrow_mut().as_mut() {
                    p.set_speed(speed);
                }
            }
            ToWorker::Want { travel_at } => {
                if let Some(Work::Play(p)) = work.borrow_mut().as_mut() {
                    p.want(travel_at);
                }
            }
            ToWorker::Stop => *work.borrow_mut() = None,
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

/// One slice of the work, its answer posted; the next slice when it is due, after any message
/// that arrived meanwhile.
fn step(work: Slot, stepping: Rc<RefCell<bool>>) {
    let next = match work.borrow_mut().as_mut() {
        Some(w) => {
            let (answer, next) = w.slice();
            if let Some((answer, bytes)) = answer {
                post_with(&answer, bytes.as_deref());
            }
            next
        }
        None => Next::Idle,
    };
    match next {
        // Kept: a what-if may extend it, a `Want` ask for a played job's last update.
        Next::Idle => *stepping.borrow_mut() = false,
        Next::Now => {
            let posted = NEXT_SLICE.with_borrow(|port| {
                port.as_ref()
                    .is_some_and(|p| p.post_message(&wasm_bindgen::JsValue::NULL).is_ok())
            });
            if !posted {
                Timeout::new(0, move || step(work, stepping)).forget();
            }
        }
        Next::After(ms) => {
            Timeout::new(ms, move || step(work, stepping)).forget();
        }
    }
}
