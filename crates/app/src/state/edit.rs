//! New jobs from the page's own controls: a preset, a reset or new seed, an applied edit, a
//! fault edit re-running the job to where it was; and the edits that keep the job (a name of
//! one's own, a comparison of modes).

use std::rc::Rc;

use barrierlab_engine::scenario::{identify, preset, Scenario};
use barrierlab_engine::sim::Simulation;

use super::{default_sim, Keep, State};
use crate::compare::CompareJob;
use crate::faults::CatchUp;
use crate::job::{Opened, DEFAULT_PRESET};

/// The scenario for a preset name and seed; an unknown name is an error message.
fn scenario_for(name: &str, seed: Option<u64>) -> Result<Scenario, String> {
    let mut scenario = preset(name).ok_or_else(|| format!("unknown preset '{name}'"))?;
    if let Some(seed) = seed {
        scenario.seed = seed;
    }
    Ok(scenario)
}

impl State {
    /// A fresh job of preset `name` (with `seed`, or the preset's own). An unknown name runs the
    /// default preset, paused, and says why.
    pub(super) fn load(&self, name: &str, seed: Option<u64>, playing: bool) -> State {
        match scenario_for(name, seed).and_then(Simulation::new) {
            Ok(sim) => self.replace_job(
                Opened {
                    playing,
                    ..Opened::new(sim, name)
                },
                Keep::Nothing,
            ),
            Err(e) => {
                let fallback = Opened {
                    playing: false,
                    ..Opened::new(default_sim(), DEFAULT_PRESET)
                };
                let mut next = self.replace_job(fallback, Keep::Nothing);
                next.ui.error = Some(e);
                next
            }
        }
    }

    /// The current scenario (preset or edited) from time 0 with `seed`.
    pub(super) fn reload(&self, seed: u64, playing: bool) -> State {
        let mut scenario = (*self.job.scenario).clone();
        scenario.seed = seed;
        match crate::consent::simulation(scenario, self.over_budget_ok()) {
            Ok(sim) => self.replace_job(
                Opened {
                    custom: self.job.custom,
                    playing,
                    ..Opened::new(sim, &self.job.preset)
                },
                Keep::Nothing,
            ),
            Err(_) => self.load(&self.job.preset, Some(seed), playing),
        }
    }

    /// Restarts with an edited scenario; one over the cost budget asks first, an invalid one
    /// keeps the running job and says why.
    pub(super) fn apply_scenario(self: Rc<Self>, mut scenario: Scenario) -> Rc<State> {
        identify(&self.job.preset, &mut scenario);
        if let Some(pending) = crate::consent::for_scenario(&scenario) {
            return self.ask(pending);
        }
        match Simulation::new(scenario) {
            Ok(sim) => {
                let custom = preset(&sim.scenario.name).is_none();
                let opened = Opened {
                    custom,
                    ..Opened::new(sim, &self.job.preset)
                };
                Rc::new(self.replace_job(opened, Keep::Nothing))
            }
            Err(e) => {
                let mut next = (*self).clone();
                next.ui.error = Some(e);
                Rc::new(next)
            }
        }
    }

    /// Re-runs `scenario` from time 0 up to the current time, re-applying the user's actions:
    /// the way a fault edit takes effect (see `faults.rs`). An invalid scenario keeps the job
    /// and says why.
    pub(super) fn rerun(self: Rc<Self>, mut scenario: Scenario) -> Rc<State> {
        identify(&self.job.preset, &mut scenario);
        let custom = scenario != *self.job.scenario || self.job.custom;
        let sim = match crate::consent::simulation(scenario, self.over_budget_ok()) {
            Ok(sim) => sim,
            Err(e) => {
                let mut next = (*self).clone();
                next.ui.fault_error = Some(e);
                return Rc::new(next);
            }
        };
        let catch_up = CatchUp {
            target: self.job.sim().borrow().now,
            resume: self.ui.playing,
            next_action: 0,
        };
        let opened = Opened {
            custom: custom && preset(&sim.scenario.name).is_none(),
            playing: false,
            catch_up: Some(catch_up),
            ..Opened::new(sim, &self.job.preset)
        };
        Rc::new(self.replace_job(opened, Keep::Work))
    }

    pub(super) fn rename(self: Rc<Self>, name: String, description: String) -> Rc<State> {
        let name = name.trim().to_string();
        if name.is_empty() || self.job.catch_up.is_some() {
            return self;
        }
        let mut next = (*self).clone();
        Rc::make_mut(&mut next.job).rename(name, description.trim().to_string());
        Rc::new(next)
    }

    pub(super) fn start_compare(self: Rc<Self>) -> Rc<State> {
        let compare = {
            let sim = self.job.sim().borrow();
            CompareJob::start(&sim.scenario, sim.now)
        };
        let mut next = (*self).clone();
        Rc::make_mut(&mut next.job).compare = Some(compare);
        Rc::new(next)
    }
}
