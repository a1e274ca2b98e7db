//! The cost budget in the playground (`barrierlab_engine::scenario::cost`): a scenario estimated
//! beyond it does not start until the user says so. Applying an edit, opening a link, reopening
//! stored work and restoring a stored checkpoint all stop here first; the running job keeps going
//! while the question is open.

use std::rc::Rc;

use barrierlab_engine::scenario::Scenario;
use barrierlab_engine::share::{Link, LinkOptions};
use barrierlab_engine::sim::Simulation;
use barrierlab_engine::storage::StoredCheckpoint;

use crate::state::State;

/// A scenario over the budget, waiting for "Run anyway" or "Cancel".
#[derive(Clone)]
pub struct PendingConsent {
    pub scenario: Scenario,
    /// The options of the link it came from, if it came from a link.
    pub link: Option<LinkOptions>,
    /// The stored checkpoint to restore the job from, if it came from storage.
    pub stored: Option<Rc<StoredCheckpoint>>,
    /// The estimate and why it is over the budget.
    pub message: String,
}

/// The question for `scenario` if it is over the budget, or `None` (also for an invalid
/// scenario: validation says why).
pub fn for_scenario(scenario: &Scenario) -> Option<PendingConsent> {
    let message = scenario.cost_estimate().ok()?.over_budget()?;
    Some(PendingConsent {
        scenario: scenario.clone(),
        link: None,
        stored: None,
        message,
    })
}

/// A simulation of a scenario the user has consented to (or that is within the budget).
pub fn simulation(scenario: Scenario, consented: bool) -> Result<Simulation, String> {
    if consented {
        Simulation::new_over_budget(scenario)
    } else {
        Simulation::new(scenario)
    }
}

/// `state` with the question open.
pub fn ask(state: &State, pending: PendingConsent) -> Rc<State> {
    let mut next = state.clone();
    next.consent = Some(Rc::new(pending));
    next.version += 1;
    Rc::new(next)
}

/// "Run anyway": the pending scenario starts as an applied edit or an opened link would.
pub fn run_anyway(state: Rc<State>) -> Rc<State> {
    let Some(pending) = state.consent.clone() else {
        return state;
    };
    let pending = (*pending).clone();
    if let Some(stored) = pending.stored {
        let mut base = (*state).clone();
        base.consent = None;
        return crate::storage::restore_into_consented(Rc::new(base), &stored, true);
    }
    let opened = match pending.link {
        Some(options) => crate::share::state_from_link_consented(
            Link {
                version: barrierlab_engine::share::LATEST_VERSION,
                scenario: pending.scenario,
                options,
            },
            true,
        ),
        None => crate::share::state_from_scenario_consented(pending.scenario, state.speed, true),
    };
    match opened {
        Ok(mut next) => {
            next.version = state.version + 1;
            Rc::new(next)
        }
        Err(e) => {
            let mut next = (*state).clone();
            next.consent = None;
            next.error = Some(e);
            next.version += 1;
            Rc::new(next)
        }
    }
}

/// "Cancel": the question closes, the running job goes on.
pub fn decline(state: Rc<State>) -> Rc<State> {
    let mut next = (*state).clone();
    next.consent = None;
    next.version += 1;
    Rc::new(next)
}
