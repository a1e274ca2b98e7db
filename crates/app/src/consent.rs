//! The cost budget in the playground (`barrierlab_engine::scenario::cost`): a scenario estimated
//! beyond it does not start until the user says so. Applying an edit, opening a link, reopening
//! stored work and restoring a stored checkpoint all stop here first; the running job keeps going
//! while the question is open (the page asks and answers in `state/open.rs`).

use std::rc::Rc;

use barrierlab_engine::scenario::Scenario;
use barrierlab_engine::share::LinkOptions;
use barrierlab_engine::sim::Simulation;
use barrierlab_engine::storage::StoredCheckpoint;

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
