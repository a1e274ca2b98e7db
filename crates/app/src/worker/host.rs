//! The page's side: starts a worker for one piece of work, sends it requests once it is ready,
//! keeps what it posts until the page takes it, and ends the worker when the work is dropped.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{ErrorEvent, Event, MessageEvent, Worker};

use super::{FromWorker, ToWorker, WORKER_URL};

#[derive(Default)]
struct Inbox {
    ready: bool,
    /// Requests made before the worker was ready, in order.
    pending: Vec<String>,
    /// The newest answer not yet taken: each answer is a whole summary, so older ones can go.
    latest: Option<FromWorker>,
    error: Option<String>,
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
        let worker = Worker::new(WORKER_URL).ok()?;
        let inbox = Rc::new(RefCell::new(Inbox {
            pending: vec![request.to_json()],
            ..Inbox::default()
        }));
        let on_message = {
            let inbox = inbox.clone();
            let worker = worker.clone();
            Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
                let text = e.data().as_string().unwrap_or_default();
                let mut inbox = inbox.borrow_mut();
                match FromWorker::parse(&text) {
                    Ok(FromWorker::Ready) => {
                        inbox.ready = true;
                        for request in std::mem::take(&mut inbox.pending) {
                            if worker.post_message(&request.into()).is_err() {
                                inbox.error = Some("the worker took no request".into());
                            }
                        }
                    }
                    Ok(FromWorker::Error(e)) => inbox.error = Some(e),
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
        let mut inbox = self.inbox.borrow_mut();
        if !inbox.ready {
            inbox.pending.push(request.to_json());
        } else if self.worker.post_message(&request.to_json().into()).is_err() {
            inbox.error = Some("the worker took no request".into());
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
