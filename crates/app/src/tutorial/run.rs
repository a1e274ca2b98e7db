//! Reaching a step: the step's scenario from time 0 through the stop conditions of every step
//! since the scenario last changed. Nothing depends on what the user did in between, which is
//! what makes Back exact and a step link reproducible.

use barrierlab_engine::scenario::{apply_set, preset, Scenario};
use barrierlab_engine::sim::Simulation;

use super::{run_until, Hit, Setup, Tutorial};
use crate::travel::TimeTravel;

/// A step reached: the paused simulation, its time-travel snapshots, and the stop event.
pub struct Reached {
    pub sim: Simulation,
    pub travel: TimeTravel,
    /// The event the step stopped on (`None` for a time condition).
    pub hit: Option<Hit>,
    /// Why the step (or one before it) never reached its condition.
    pub error: Option<String>,
}

/// The scenario a setup describes; a bad preset or override is a message.
pub fn scenario(setup: &Setup) -> Result<Scenario, String> {
    let mut s =
        preset(&setup.preset).ok_or_else(|| format!("unknown preset '{}'", setup.preset))?;
    for assignment in &setup.set {
        apply_set(&mut s, assignment)?;
    }
    s.faults.extend(setup.faults.iter().cloned());
    Ok(s)
}

/// Runs tutorial `t` to the stop of step `step` (0-based).
pub fn reach(t: &Tutorial, step: usize) -> Result<Reached, String> {
    let last = step.min(t.steps.len().saturating_sub(1));
    let first = (0..=last)
        .rev()
        .find(|&j| j == 0 || t.steps[j].setup != t.steps[j - 1].setup)
        .unwrap_or(0);
    let mut sim = Simulation::new(scenario(&t.steps[first].setup)?)?;
    let mut travel = TimeTravel::new(&sim);
    let mut hit = None;
    let mut error = None;
    let mut cursor = sim.trace.total();
    for (j, s) in t.steps.iter().enumerate().take(last + 1).skip(first) {
        let result = run_until(&mut sim, &s.until, &mut cursor, |sim| {
            travel.record(sim);
        });
        match result {
            Ok(h) => hit = h,
            Err(e) => {
                error = Some(if j == last {
                    e
                } else {
                    format!("Step {} stopped early. {e}", j + 1)
                });
                hit = None;
                break;
            }
        }
    }
    Ok(Reached {
        sim,
        travel,
        hit,
        error,
    })
}
