//! The runs behind "Simulate this job": the derived scenario, then what-ifs added one click at a
//! time, all to the same simulated time, moved on a few milliseconds per tick
//! (`budget::advance_level`, as Compare modes does) so the page never blocks. A run's figures are
//! measured once, when it is done.

use barrierlab_engine::scenario::Scenario;
use barrierlab_engine::sim::Simulation;
use barrierlab_engine::types::Micros;

use super::simulate::{simulated_bundle, Figures, WHAT_IFS};
use crate::budget::advance_level;

#[derive(Debug, Clone)]
pub struct JobRun {
    /// `None` for the derived scenario itself, else the what-if's index in [`WHAT_IFS`].
    pub what_if: Option<usize>,
    pub sim: Result<Simulation, String>,
    /// Measured once the run reached the target (or its job ended).
    pub figures: Option<Result<Figures, String>>,
}

#[derive(Debug, Clone)]
pub struct JobRuns {
    pub base: Scenario,
    pub target: Micros,
    /// The derived scenario's run first, then the what-ifs in the order clicked.
    pub runs: Vec<JobRun>,
}

impl JobRuns {
    pub fn new(base: Scenario, target: Micros) -> JobRuns {
        let sim = Simulation::new(base.clone());
        let mut runs = JobRuns {
            base,
            target,
            runs: Vec::new(),
        };
        runs.push(None, sim);
        runs
    }

    fn push(&mut self, what_if: Option<usize>, sim: Result<Simulation, String>) {
        let figures = sim.as_ref().err().map(|e| Err(e.clone()));
        self.runs.push(JobRun {
            what_if,
            sim,
            figures,
        });
    }

    /// Adds what-if `index` (of [`WHAT_IFS`]) unless it is there already.
    pub fn add_what_if(&mut self, index: usize) {
        if self.runs.iter().any(|r| r.what_if == Some(index)) {
            return;
        }
        let Some(w) = WHAT_IFS.get(index) else { return };
        let mut s = self.base.clone();
        let sim = (w.apply)(&mut s).and_then(|()| Simulation::new(s));
        self.push(Some(index), sim);
    }

    pub fn done(&self) -> bool {
        self.runs.iter().all(|r| r.figures.is_some())
    }

    /// Simulated time reached by the run furthest behind.
    pub fn progress(&self) -> Micros {
        self.runs
            .iter()
            .filter(|r| r.figures.is_none())
            .filter_map(|r| r.sim.as_ref().ok())
            .map(|s| s.now)
            .min()
            .unwrap_or(self.target)
    }

    /// Moves the unfinished runs on for up to `budget_ms` of wall time, and measures those that
    /// finished.
    pub fn advance(&mut self, budget_ms: f64) {
        let mut sims: Vec<&mut Simulation> = self
            .runs
            .iter_mut()
            .filter(|r| r.figures.is_none())
            .filter_map(|r| r.sim.as_mut().ok())
            .collect();
        advance_level(&mut sims, self.target, budget_ms);
        let target = self.target;
        for r in self.runs.iter_mut().filter(|r| r.figures.is_none()) {
            if let Ok(sim) = &r.sim {
                if sim.now >= target || !sim.status.is_live() {
                    r.figures = Some(simulated_bundle(sim).map(|b| Figures::of(&b)));
                }
            }
        }
    }

    /// The derived scenario's figures, when measured.
    pub fn baseline(&self) -> Option<&Result<Figures, String>> {
        self.runs.first().and_then(|r| r.figures.as_ref())
    }
}
