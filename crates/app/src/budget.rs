//! The one stepping loop for everything that runs the simulation against the wall clock: a tick,
//! a re-run catching up, a phase step, a comparison. It runs the events due by a simulated time,
//! looks at the clock every few events, and books the time reached when the budget runs out.

use barrierlab_engine::sim::Simulation;
use barrierlab_engine::types::Micros;

use crate::clock;

/// Events simulated between two looks at the wall clock.
const EVENTS_PER_CLOCK_CHECK: u32 = 32;

/// Why [`run_budgeted`] returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunEnd {
    /// No event is due by `until` any more (the clock is left where the events are).
    Reached,
    /// `stop` said so after an event.
    Stopped,
    /// The job is no longer running.
    JobEnded,
    /// The wall clock passed the deadline; the time reached is booked (`run_until(sim.now)`), so
    /// the tasks' work so far counts and the next run goes on from there.
    OutOfTime,
}

/// Steps `sim` through its events due by `until` until `stop` returns true after one, the job
/// ends, none is due, or the wall clock passes `deadline_ms` (`clock::now_ms()` plus a budget).
pub fn run_budgeted(
    sim: &mut Simulation,
    until: Micros,
    deadline_ms: f64,
    mut stop: impl FnMut(&Simulation) -> bool,
) -> RunEnd {
    let mut since_check = 0;
    loop {
        if !sim.status.is_live() {
            return RunEnd::JobEnded;
        }
        if sim.next_event_time().is_none_or(|t| t > until) {
            return RunEnd::Reached;
        }
        sim.step();
        if stop(sim) {
            return RunEnd::Stopped;
        }
        since_check += 1;
        if since_check == EVENTS_PER_CLOCK_CHECK {
            since_check = 0;
            if clock::now_ms() > deadline_ms {
                let now = sim.now;
                sim.run_until(now);
                return RunEnd::OutOfTime;
            }
        }
    }
}

/// A deadline `budget_ms` from now.
pub fn deadline(budget_ms: f64) -> f64 {
    clock::now_ms() + budget_ms
}

/// Moves several runs on towards `target` for up to `budget_ms` of wall time, always the one
/// furthest behind, 50 ms simulated at a time: the runs stay level, so what they show part-way
/// compares like with like (Compare modes, Simulate this job).
pub fn advance_level(sims: &mut [&mut Simulation], target: Micros, budget_ms: f64) {
    let deadline = deadline(budget_ms);
    loop {
        let next = sims
            .iter_mut()
            .filter(|s| s.now < target && s.status.is_live())
            .min_by_key(|s| s.now);
        let Some(sim) = next else { return };
        let until = (sim.now + 50_000).min(target);
        if run_budgeted(sim, until, deadline, |_| false) == RunEnd::OutOfTime {
            return;
        }
        sim.run_until(until);
        if clock::now_ms() > deadline {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use barrierlab_engine::scenario::preset;

    fn sim() -> Simulation {
        Simulation::new(preset("seed-demo").unwrap()).unwrap()
    }

    #[test]
    fn runs_the_events_due_and_leaves_the_clock_where_they_are() {
        let mut s = sim();
        assert_eq!(
            run_budgeted(&mut s, 500_000, f64::INFINITY, |_| false),
            RunEnd::Reached
        );
        assert!(s.now <= 500_000);
        assert!(s.next_event_time().is_some_and(|t| t > 500_000));
    }

    #[test]
    fn stops_when_asked_and_books_the_time_when_out_of_time() {
        let mut s = sim();
        let mut n = 0;
        let end = run_budgeted(&mut s, Micros::MAX, f64::INFINITY, |_| {
            n += 1;
            n == 5
        });
        assert_eq!((end, n), (RunEnd::Stopped, 5));
        // A deadline already past: one clock look, then the time reached is booked.
        let mut s = sim();
        assert_eq!(
            run_budgeted(&mut s, Micros::MAX, f64::NEG_INFINITY, |_| false),
            RunEnd::OutOfTime
        );
        assert!(s.now > 0);
    }
}
