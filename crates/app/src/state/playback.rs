//! Playback: the timer's ticks move the job on at the chosen speed within a wall-clock budget;
//! play, pause, step, step to a checkpoint phase and time travel.

use std::rc::Rc;

use barrierlab_engine::sim::Simulation;
use barrierlab_engine::types::Micros;

use super::State;
use crate::budget::{deadline, run_budgeted, RunEnd};
use crate::faults::catch_up;
use crate::job::Job;
use crate::speed::Speed;

/// The work one timer task may do, simulating and rendering together, to fit in a 16.7 ms frame
/// with the browser's style, layout and paint (`tests/e2e/frames.mjs` measures all three).
const FRAME_WORK_MS: f64 = 14.0;
/// Least a tick simulates, even when the last render took the whole frame: a huge job still moves.
const MIN_TICK_BUDGET_MS: f64 = 2.0;
/// Most a tick simulates, however cheap the render.
const MAX_TICK_BUDGET_MS: f64 = 12.0;
/// Longest wall-clock gap a tick accounts for (a hidden tab must not cause a jump).
const MAX_TICK_GAP_MS: f64 = 200.0;
/// Most wall-clock time a job behind the clock makes up (at 1x and the other fixed speeds): a
/// large job's dear stretches (its checkpoints) are made up in the cheap ones after them. With
/// 200 ms, bench-512 at 1x lost what it fell behind in each checkpoint (0.67-0.99x a 3 s window).
const MAX_OWED_MS: f64 = 1_000.0;

/// Wall-clock milliseconds a tick may simulate: what the last render (`render_ms`) left of a
/// frame's work, at 1x and at maximum speed alike; half of it when a comparison shares the page.
pub(crate) fn tick_budget(render_ms: f64, comparing_on_page: bool) -> f64 {
    let budget = (FRAME_WORK_MS - render_ms).clamp(MIN_TICK_BUDGET_MS, MAX_TICK_BUDGET_MS);
    if comparing_on_page {
        budget / 2.0
    } else {
        budget
    }
}

/// Advances `sim` by `gap_ms` of wall-clock time at `speed`, plus what earlier ticks aimed at
/// and did not reach (`aim`, a simulated time), spending at most `budget_ms`. Returns the time
/// it aimed at: a tick that could not keep up is made up by the cheaper ticks after it (and by
/// the frames between them, `Between`), up to `MAX_OWED_MS` of wall-clock time behind. Maximum
/// speed aims at nothing beyond where it got.
fn advance(
    sim: &mut Simulation,
    speed: Speed,
    gap_ms: f64,
    aim: Option<Micros>,
    budget_ms: f64,
) -> Micros {
    advance_owing(sim, speed, gap_ms, aim, budget_ms, MAX_OWED_MS)
}

/// `advance`, making up at most `max_owed_ms` of wall-clock time (the worker's own limit,
/// `worker::play`).
pub(crate) fn advance_owing(
    sim: &mut Simulation,
    speed: Speed,
    gap_ms: f64,
    aim: Option<Micros>,
    budget_ms: f64,
    max_owed_ms: f64,
) -> Micros {
    let Some(per_ms) = speed.micros_per_ms() else {
        run_budgeted(sim, Micros::MAX, deadline(budget_ms), |_| false);
        return sim.now;
    };
    let owed = aim.map_or(0, |a| a.saturating_sub(sim.now));
    let due = ((gap_ms * per_ms) as u64 + owed).min((max_owed_ms * per_ms) as u64);
    let target = sim.now + due;
    run_toward(sim, target, budget_ms);
    target
}

/// Runs `sim` to `target` within `budget_ms` (to the target itself if there is time).
fn run_toward(sim: &mut Simulation, target: Micros, budget_ms: f64) {
    if run_budgeted(sim, target, deadline(budget_ms), |_| false) != RunEnd::OutOfTime {
        sim.run_until(target.max(sim.now));
    }
}

/// Simulation work in a frame between two ticks (`cadence::Beat::Between`): what a tick may
/// simulate at most, since no render follows.
const BETWEEN_BUDGET_MS: f64 = MAX_TICK_BUDGET_MS;

/// The playing job as the last render left it, for the frames between two ticks: they move its
/// simulation on in place, towards what the last tick aimed at, and render nothing. The next
/// tick gives the job its next version, so the views see the time they simulated then. Nothing
/// else of the job or the page changes in between (a job that ends waits for the tick to pause).
pub struct Between {
    job: Rc<Job>,
    /// `None`: maximum speed, as far as the budget goes.
    aim: Option<Micros>,
}

impl Between {
    /// One frame's simulation.
    pub fn advance(&self) {
        let (mut sim, mut travel) = self.job.sim_in_place();
        if !sim.status.is_live() {
            return;
        }
        match self.aim {
            None => {
                run_budgeted(&mut sim, Micros::MAX, deadline(BETWEEN_BUDGET_MS), |_| {
                    false
                });
            }
            Some(aim) if aim > sim.now => run_toward(&mut sim, aim, BETWEEN_BUDGET_MS),
            Some(_) => return,
        }
        travel.record(&sim);
    }
}

impl State {
    /// The job for the frames between ticks, while it plays on its own: not before the first
    /// tick set the pace, nor during a re-run catching up or a comparison on the page (each of
    /// those changes the job's state at every step).
    pub fn between(&self) -> Option<Between> {
        let comparing_on_page = self
            .job
            .compare
            .as_ref()
            .is_some_and(|c| !c.borrow().done() && !c.borrow().in_worker());
        if !self.ui.playing
            || self.in_worker()
            || self.ui.last_tick_ms.is_none()
            || self.job.catch_up.is_some()
            || comparing_on_page
        {
            return None;
        }
        let aim = match self.ui.speed {
            Speed::Max => None,
            _ => Some(self.ui.aim?),
        };
        Some(Between {
            job: self.job.clone(),
            aim,
        })
    }

    /// Whether the worker plays the job now (`worker::playing`).
    pub fn in_worker(&self) -> bool {
        #[cfg(target_arch = "wasm32")]
        return self.ui.playing && crate::worker::playing::playing(self.job.sim().cell.id());
        #[cfg(not(target_arch = "wasm32"))]
        false
    }

    pub(super) fn tick(self: Rc<Self>, now_ms: f64, render_ms: f64) -> Rc<State> {
        #[cfg(target_arch = "wasm32")]
        if crate::panic::trap_requested() && self.job.sim().borrow().now > 1_000_000 {
            // Inside the reducer, with Yew's state borrowed: what an allocation failure does.
            std::process::abort();
        }
        #[cfg(target_arch = "wasm32")]
        if !self.ui.playing || self.job.catch_up.is_some() {
            crate::worker::playing::stop();
        }
        if let Some(c) = &self.job.catch_up {
            let mut next = (*self).clone();
            let mut c = c.clone();
            let job = Rc::make_mut(&mut next.job);
            let log = job.user_log.clone();
            let done = {
                let (mut sim, mut travel) = job.sim_mut();
                let done = catch_up(
                    &mut sim,
                    c.target,
                    &log,
                    &mut c.next_action,
                    tick_budget(render_ms, false),
                );
                travel.record(&sim);
                done
            };
            if done {
                job.catch_up = None;
                next.ui.playing = c.resume && self.status().is_live();
                next.ui.last_tick_ms = None;
                return next.jumped();
            }
            job.catch_up = Some(c);
            return next.changed();
        }
        let comparing = self
            .job
            .compare
            .as_ref()
            .is_some_and(|c| !c.borrow().done());
        // A comparison on the main thread shares the tick's budget; in the worker it costs none.
        let mut compare_local = false;
        if let (true, Some(c)) = (comparing, &self.job.compare) {
            let budget = tick_budget(render_ms, self.ui.playing);
            let mut c = c.borrow_mut();
            compare_local = !c.in_worker();
            let changed = c.advance(budget);
            if !self.ui.playing {
                let mut next = (*self).clone();
                next.ui.last_tick_ms = None;
                if changed {
                    // The comparison is the job's: new figures are a new version of it.
                    Rc::make_mut(&mut next.job);
                }
                return Rc::new(next);
            }
        }
        if !self.ui.playing {
            if self.ui.last_tick_ms.is_none() {
                return self;
            }
            let mut next = (*self).clone();
            next.ui.last_tick_ms = None;
            return Rc::new(next);
        }
        #[cfg(target_arch = "wasm32")]
        if compare_local {
            crate::worker::playing::stop();
        } else if let Some(next) = self.tick_in_worker(now_ms) {
            return next;
        }
        let gap = match self.ui.last_tick_ms {
            Some(last) => (now_ms - last).clamp(0.0, MAX_TICK_GAP_MS),
            None => 0.0,
        };
        let mut next = (*self).clone();
        next.ui.last_tick_ms = Some(now_ms);
        {
            let (mut sim, mut travel) = Rc::make_mut(&mut next.job).sim_mut();
            let budget = tick_budget(render_ms, compare_local);
            let aim = self.ui.last_tick_ms.and(self.ui.aim);
            next.ui.aim = Some(advance(&mut sim, self.ui.speed, gap, aim, budget));
            if !sim.status.is_live() {
                next.ui.playing = false;
            }
            travel.record(&sim);
        }
        next.changed()
    }

    /// A tick while the worker plays the job: the newest update applied to the page's copy, or
    /// the page as it is until one comes. `None`: no worker here, the page plays the job.
    #[cfg(target_arch = "wasm32")]
    fn tick_in_worker(self: &Rc<Self>, now_ms: f64) -> Option<Rc<State>> {
        use crate::worker::playing::{self, Poll};
        let polled = {
            let sim = self.job.sim();
            let travel_at = self.job.travel.borrow().next_due();
            playing::poll(
                &sim.borrow(),
                sim.cell.id(),
                self.ui.speed,
                now_ms,
                travel_at,
            )
        };
        let (played, bytes) = match polled {
            Poll::Local => return None,
            Poll::Waiting => return Some(self.clone()),
            Poll::Update(played, bytes) => (played, bytes),
        };
        let started = crate::clock::now_ms();
        let mut next = (**self).clone();
        {
            let (mut sim, mut travel) = Rc::make_mut(&mut next.job).sim_played();
            let (update, snapshot) = played.parts(&bytes);
            let mut spare = playing::take_spare();
            if let Err(e) = sim.update_from_snapshot_reusing(update, &mut spare) {
                // The copy is unchanged: the page plays on from it.
                drop((sim, travel));
                playing::give_up(&e);
                return None;
            }
            playing::keep_spare(spare);
            travel.record_written(&sim, snapshot.map(<[u8]>::to_vec));
            if !played.live {
                next.ui.playing = false;
            }
        }
        next.ui.last_tick_ms = Some(now_ms);
        next.ui.aim = played.aim;
        next.ui.worker_load = Some(played.load);
        let next = next.changed();
        let done = crate::clock::now_ms();
        playing::applied(done, done - started);
        Some(next)
    }

    pub(super) fn toggle_play(self: Rc<Self>) -> Rc<State> {
        let mut next = (*self).clone();
        next.ui.playing = !self.ui.playing && self.status().is_live();
        next.ui.last_tick_ms = None;
        next.ui.phase_stop = None;
        if next.ui.playing {
            Rc::new(next)
        } else {
            // Taken back from the worker at once: an update on its way is stale.
            #[cfg(target_arch = "wasm32")]
            crate::worker::playing::stop();
            // Paused: views throttled while playing catch up at once.
            next.jumped()
        }
    }

    pub(super) fn step(self: Rc<Self>) -> Rc<State> {
        let mut next = (*self).clone();
        next.ui.playing = false;
        next.ui.last_tick_ms = None;
        Rc::make_mut(&mut next.job).sim_mut().0.step();
        next.ui.phase_stop = None;
        next.jumped()
    }

    pub(super) fn step_phase(self: Rc<Self>) -> Rc<State> {
        let mut next = (*self).clone();
        next.ui.playing = false;
        next.ui.last_tick_ms = None;
        {
            let (mut sim, mut travel) = Rc::make_mut(&mut next.job).sim_mut();
            let stop = crate::phase::step_to_phase(
                &mut sim,
                self.ui.phase_stop.as_ref().and_then(|s| s.seq),
                crate::phase::PHASE_STEP_BUDGET_MS,
            );
            next.ui.phase_stop = Some(Rc::new(stop));
            travel.record(&sim);
        }
        next.jumped()
    }

    pub(super) fn seek(self: Rc<Self>, t: Micros) -> Rc<State> {
        let Some(sim) = self.job.travel.borrow().seek(t) else {
            return self;
        };
        let mut next = (*self).clone();
        next.ui.playing = false;
        next.ui.last_tick_ms = None;
        Rc::make_mut(&mut next.job).travel_to(sim);
        next.jumped()
    }
}

#[cfg(test)]
mod budget_tests {
    use super::*;

    #[test]
    fn a_tick_simulates_what_the_render_left_of_a_frame() {
        assert_eq!(tick_budget(6.0, false), 8.0);
        // A cheap render: the cap, so one task never outgrows a frame.
        assert_eq!(tick_budget(0.5, false), 12.0);
        // A render that took the frame: the floor, so a huge job still moves.
        assert_eq!(tick_budget(13.5, false), 2.0);
        assert_eq!(tick_budget(40.0, false), 2.0);
    }

    #[test]
    fn a_tick_that_runs_out_of_budget_is_made_up_by_the_next() {
        use barrierlab_engine::scenario::preset;

        let mut sim = Simulation::new(preset("seed-demo").unwrap()).unwrap();
        let start = 5_000_000;
        sim.run_until(start);
        // 10x: 40 ms of wall-clock time is 400 ms simulated. A deadline already past: the tick
        // stops after its first few events.
        let aim = advance(&mut sim, Speed::Ten, 40.0, None, -1.0);
        assert!(
            sim.now < aim && aim == start + 400_000,
            "{} towards {aim}",
            sim.now
        );
        // The next tick, 20 ms later and with time to spare, catches up with the wall clock.
        let aim = advance(&mut sim, Speed::Ten, 20.0, Some(aim), 1_000.0);
        assert_eq!((sim.now, aim), (start + 600_000, start + 600_000));
        // What is owed never exceeds 1 s of wall-clock time (a hidden tab, a long stall).
        advance(&mut sim, Speed::Ten, 150.0, Some(aim + 50_000_000), 1_000.0);
        assert_eq!(sim.now, start + 10_600_000);
    }

    #[test]
    fn the_frames_between_ticks_simulate_towards_the_aim_and_no_further() {
        use crate::job::Opened;
        use barrierlab_engine::scenario::preset;

        let mut state = State::new(Opened::new(
            Simulation::new(preset("seed-demo").unwrap()).unwrap(),
            "seed-demo",
        ));
        // Before the first tick, there is no pace to keep.
        assert!(state.between().is_none());
        state.ui.last_tick_ms = Some(0.0);
        state.ui.aim = Some(2_000_000);
        let between = state.between().expect("playing at 1x");
        let version = state.version();
        between.advance();
        let sim = state.job.sim().borrow();
        assert_eq!(sim.now, 2_000_000);
        // Moved in place: the version is the next tick's to give.
        assert_eq!(state.version(), version);
        drop(sim);
        between.advance();
        assert_eq!(state.job.sim().borrow().now, 2_000_000);
        // At maximum speed it runs on, with no aim.
        state.ui.speed = Speed::Max;
        state.between().unwrap().advance();
        assert!(state.job.sim().borrow().now > 2_000_000);
        // Paused, or catching up: nothing between ticks.
        state.ui.playing = false;
        assert!(state.between().is_none());
    }

    #[test]
    fn a_comparison_on_the_page_takes_half() {
        assert_eq!(tick_budget(6.0, true), 4.0);
    }
}
