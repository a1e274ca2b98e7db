//! The page's side of playing its job in the worker (`play.rs`): one worker for the page's
//! lifetime, started at the first play, and the play it runs now. The reducer's tick polls it
//! (`State::tick`); `Job::sim_mut`, the one way to change the job, stops it first, so the page's
//! copy is the job whenever the page changes it.

use std::cell::{Cell, RefCell};

use barrierlab_engine::sim::Simulation;
use barrierlab_engine::types::Micros;

use super::host::WorkerJob;
use super::play::Played;
use super::ToWorker;
use crate::speed::Speed;

/// Main-thread time that applying updates and drawing them may take, as a share of the wall
/// clock: bench-512's updates (the whole job, 5.3 MB) take 20-30 ms to apply, so it gets one every
/// few hundred ms and the frames between stay free; a small job's take under a millisecond.
const MAIN_THREAD_SHARE: f64 = 0.12;

/// What a tick of the page does with its job.
pub enum Poll {
    /// Plays it on the page: no worker here (none starts, or it failed).
    Local,
    /// Nothing new from the worker yet: the page stays as it is.
    Waiting,
    /// The job moved: apply these bytes to the page's copy.
    Update(Played, Vec<u8>),
}

struct Page {
    worker: WorkerJob,
    /// The play running (0: none), and the simulation it plays (`SimCell::id`).
    session: u64,
    sim_id: usize,
    speed: Speed,
    /// An update asked for and not yet received.
    asked: bool,
    /// When the next update may be asked for (wall clock, ms).
    ask_at: f64,
    /// The last update applied is being drawn (`drawn` adds its cost).
    drawing: bool,
    /// The page's copy as it was before the last update: the next one is read into its memory
    /// (`Simulation::update_from_snapshot_reusing`). Dropped when the play stops.
    spare: Option<Simulation>,
}

thread_local! {
    static PAGE: RefCell<Option<Page>> = const { RefCell::new(None) };
    /// No worker plays on this page: none started, or one failed. The page plays its job itself.
    static UNAVAILABLE: Cell<bool> = const { Cell::new(false) };
    static SESSIONS: Cell<u64> = const { Cell::new(0) };
}

/// Whether the worker plays simulation `sim_id` now.
pub fn playing(sim_id: usize) -> bool {
    PAGE.with_borrow(|p| {
        p.as_ref()
            .is_some_and(|p| p.session != 0 && p.sim_id == sim_id)
    })
}

/// Stops the play, if one runs: the page's copy is the job from here on.
pub fn stop() {
    PAGE.with_borrow_mut(|p| {
        if let Some(p) = p.as_mut().filter(|p| p.session != 0) {
            p.worker.send(&ToWorker::Stop);
            p.session = 0;
            p.spare = None;
        }
    });
}

/// Gives up on the worker: the page plays its jobs itself from here on.
pub fn give_up(why: &str) {
    web_sys::console::warn_1(&format!("the page plays its job itself: {why}").into());
    UNAVAILABLE.set(true);
    PAGE.set(None);
}

/// A tick while `sim` (`sim_id`) plays at `speed`: starts its play in the worker if none runs,
/// passes the speed on, asks for an update when the last one's cost allows, and returns the
/// newest update of this play. `travel_at`: when the page's time travel takes its next
/// snapshot (the worker writes it into the first update from then).
pub fn poll(sim: &Simulation, sim_id: usize, speed: Speed, now_ms: f64, travel_at: Micros) -> Poll {
    if UNAVAILABLE.get() {
        return Poll::Local;
    }
    let started = PAGE.with_borrow_mut(|page| {
        let fresh = page
            .as_ref()
            .is_none_or(|p| p.session == 0 || p.sim_id != sim_id);
        if !fresh {
            let p = page.as_mut()?;
            if p.speed != speed {
                p.worker.send(&ToWorker::PlaySpeed(speed));
                p.speed = speed;
            }
            return Some(());
        }
        let session = SESSIONS.get() + 1;
        SESSIONS.set(session);
        let play = ToWorker::Play {
            session,
            speed,
            travel_at,
        };
        let snapshot = Some(sim.to_snapshot());
        let worker = match page.take() {
            Some(p) => {
                p.worker.send_with(&play, snapshot);
                p.worker
            }
            None => WorkerJob::start_with(&play, snapshot)?,
        };
        *page = Some(Page {
            worker,
            session,
            sim_id,
            speed,
            // The worker posts the first update unasked.
            asked: true,
            ask_at: 0.0,
            drawing: false,
            spare: None,
        });
        Some(())
    });
    if started.is_none() {
        give_up("no worker started");
        return Poll::Local;
    }
    let taken = PAGE.with_borrow_mut(|page| {
        let p = page.as_mut()?;
        // Updates of a play the page stopped are stale: its copy moved on without them.
        loop {
            match p.worker.take_played() {
                Ok(Some((played, bytes))) if played.session == p.session => {
                    p.asked = false;
                    return Some(Ok((played, bytes)));
                }
                Ok(Some(_)) => continue,
                Ok(None) => break,
                Err(e) => return Some(Err(e)),
            }
        }
        if !p.asked && now_ms >= p.ask_at {
            p.worker.send(&ToWorker::Want { travel_at });
            p.asked = true;
        }
        None
    });
    match taken {
        Some(Ok((played, bytes))) => Poll::Update(played, bytes),
        Some(Err(e)) => {
            give_up(&e);
            Poll::Local
        }
        None => Poll::Waiting,
    }
}

/// The memory the play's next update is read into, if it has one (`keep_spare` gives it back).
pub fn take_spare() -> Option<Simulation> {
    PAGE.with_borrow_mut(|p| p.as_mut().and_then(|p| p.spare.take()))
}

/// Keeps what an update left for the next one to be read into, while the play runs.
pub fn keep_spare(spare: Option<Simulation>) {
    PAGE.with_borrow_mut(|p| {
        if let Some(p) = p.as_mut().filter(|p| p.session != 0) {
            p.spare = spare;
        }
    });
}

/// The page applied an update in `apply_ms`: the next is asked for when that much main-thread
/// time stays within its share of the wall clock (and the update's drawing, `drawn`, too).
pub fn applied(now_ms: f64, apply_ms: f64) {
    PAGE.with_borrow_mut(|p| {
        if let Some(p) = p.as_mut() {
            p.ask_at = now_ms + apply_ms / MAIN_THREAD_SHARE - apply_ms;
            p.drawing = true;
        }
    });
}

/// The page drew what a tick left in `render_ms`: an update's drawing defers the next update
/// as its applying did.
pub fn drawn(render_ms: f64) {
    PAGE.with_borrow_mut(|p| {
        if let Some(p) = p.as_mut().filter(|p| p.drawing) {
            p.ask_at += render_ms / MAIN_THREAD_SHARE;
            p.drawing = false;
        }
    });
}
