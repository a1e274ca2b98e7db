//! The page's side: starts a worker for one piece of work, sends it requests once it is ready,
//! keeps what it posts until the page takes it, and ends the worker when the work is dropped.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{ErrorEvent, Event, MessageEvent, Worker};

use super::play::Played;
use super::transport::{decode, encode};
use super::{FromWorker, ToWorker, WORKER_URL};

/// A request's text and bytes, as `transport::encode` sends them.
type Request = (String, Option<Vec<u8>>);

#[derive(Default)]
struct Inbox {
    ready: bool,
    /// Requests made before the worker was ready, in order.
    pending: Vec<Request>,
    /// The newest answer not yet taken: each answer is a whole summary, so older ones can go.
    latest: Option<FromWorker>,
    /// Updates of a played job, in order: each one builds on the one before.
    played: VecDeque<(Played, Vec<u8>)>,
    error: Option<String>,
}

fn post(worker: &Worker, (text, bytes): &Request) -> bool {
    let (data, transfer) = encode(text, bytes.as_deref());
    match transfer {
        Some(t) => worker.post_message_with_transfer(&data, &t).is_ok(),
        None => worker.post_message(&data).is_ok(),
    }
}

/// Work running in its own worker; terminated when dropped.
pub struct WorkerJob {
    worker: Worker,
    inbox: Rc<RefCell<Inbox>>,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(Event)>,
}

impl WorkerJob {
    /// Starts a worker with `request`; `None` where the browser starts none.
    pub fn start(request: &ToWorker) -> Option<WorkerJob> {
        Self::start_with(request, None)
    }

    /// Starts a worker with `request` and its bytes.
    pub fn start_with(request: &ToWorker, bytes: Option<Vec<u8>>) -> Option<WorkerJob> {
        let worker = Worker::new(WORKER_URL).ok()?;
        let inbox = Rc::new(RefCell::new(Inbox {
            pending: vec![(request.to_json(), bytes)],
            ..Inbox::default()
        }));
        let on_message = {
            let inbox = inbox.clone();
            let worker = worker.clone();
            Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
                let (text, bytes) = decode(&e.data());
                let mut inbox = inbox.borrow_mut();
                match FromWorker::parse(&text) {
                    Ok(FromWorker::Ready) => {
                        inbox.ready = true;
                        for request in std::mem::take(&mut inbox.pending) {
                            if !post(&worker, &request) {
                                inbox.error = Some("the worker took no request".into());
                            }
                        }
                    }
                    Ok(FromWorker::Error(e)) => inbox.error = Some(e),
                    Ok(FromWorker::Played(played)) => match bytes {
                        Some(bytes) => inbox.played.push_back((played, bytes)),
                        None => inbox.error = Some("an update without its bytes".into()),
                    },
                    Ok(answer) => inbox.latest = Some(answer),
                    Err(e) => inbox.error = Some(e),
                }
            })
        };
        let on_error = {
            let inbox = inbox.clone();
            Closure::<dyn FnMut(Event)>::new(move |e: Event| {
                // A script that does not load fires a plain `error` event; a script error an
                // `ErrorEvent` with its message.
                let message = e
                    .dyn_ref::<ErrorEvent>()
                    .map(ErrorEvent::message)
                    .filter(|m| !m.is_empty())
                    .unwrap_or_else(|| format!("the worker ({WORKER_URL}) did not start"));
                inbox.borrow_mut().error = Some(message);
            })
        };
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        Some(WorkerJob {
            worker,
            inbox,
            _on_message: on_message,
            _on_error: on_error,
        })
    }

    /// Sends a further request (now, or once the worker is ready).
    pub fn send(&self, request: &ToWorker) {
        self.send_with(request, None)
    }

    /// Sends a further request with its bytes.
    pub fn send_with(&self, request: &ToWorker, bytes: Option<Vec<u8>>) {
        let request = (request.to_json(), bytes);
        let mut inbox = self.inbox.borrow_mut();
        if !inbox.ready {
            inbox.pending.push(request);
        } else if !post(&self.worker, &request) {
            inbox.error = Some("the worker took no request".into());
        }
    }

    /// The oldest update of a played job not yet taken, or the error that ended the worker.
    pub fn take_played(&mut self) -> Result<Option<(Played, Vec<u8>)>, String> {
        let mut inbox = self.inbox.borrow_mut();
        match inbox.error.take() {
            Some(e) => Err(e),
            None => Ok(inbox.played.pop_front()),
        }
    }

    /// The newest answer posted since the last call, or the error that ended the worker.
    pub fn take(&mut self) -> Result<Option<FromWorker>, String> {
        let mut inbox = self.inbox.borrow_mut();
        match inbox.error.take() {
            Some(e) => Err(e),
            None => Ok(inbox.latest.take()),
        }
    }
}

impl Drop for WorkerJob {
    fn drop(&mut self) {
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        self.worker.terminate();
    }
}
