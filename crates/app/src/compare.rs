//! Compare: one scenario and seed under aligned, unaligned and at-least-once checkpointing, run to
//! the same simulated time in slices (a few milliseconds per tick, never blocking the page).

use std::cell::RefCell;
use std::rc::Rc;

use barrierlab_engine::scenario::Scenario;
use barrierlab_engine::sim::Simulation;
use barrierlab_engine::types::Micros;

use crate::budget::advance_level;

pub type CompareCell = Rc<RefCell<Compare>>;

/// The shortest comparison, in simulated time.
pub const MIN_COMPARE: Micros = 30_000_000;

/// The modes compared: label and the configuration set for it.
pub const MODES: [(&str, &[(&str, &str)]); 3] = [
    (
        "aligned",
        &[
            ("execution.checkpointing.mode", "EXACTLY_ONCE"),
            ("execution.checkpointing.unaligned.enabled", "false"),
        ],
    ),
    (
        "unaligned",
        &[
            ("execution.checkpointing.mode", "EXACTLY_ONCE"),
            ("execution.checkpointing.unaligned.enabled", "true"),
        ],
    ),
    (
        "at-least-once",
        &[
            ("execution.checkpointing.mode", "AT_LEAST_ONCE"),
            ("execution.checkpointing.unaligned.enabled", "false"),
        ],
    ),
];

#[derive(Debug, Clone)]
pub struct CompareRun {
    pub mode: &'static str,
    pub sim: Result<Simulation, String>,
}

#[derive(Debug, Clone)]
pub struct Compare {
    pub target: Micros,
    pub runs: Vec<CompareRun>,
}

impl Compare {
    pub fn new(scenario: &Scenario, now: Micros) -> Compare {
        let runs = MODES
            .iter()
            .map(|(mode, keys)| {
                let mut s = scenario.clone();
                for (k, v) in keys.iter() {
                    s.config.insert((*k).to_string(), (*v).to_string());
                }
                CompareRun {
                    mode,
                    sim: Simulation::new(s),
                }
            })
            .collect();
        Compare {
            target: now.max(MIN_COMPARE),
            runs,
        }
    }

    fn run_done(&self, sim: &Simulation) -> bool {
        sim.now >= self.target || !sim.status.is_live()
    }

    pub fn done(&self) -> bool {
        self.runs.iter().all(|r| match &r.sim {
            Ok(sim) => self.run_done(sim),
            Err(_) => true,
        })
    }

    /// Simulated time reached by the slowest run.
    pub fn progress(&self) -> Micros {
        self.runs
            .iter()
            .filter_map(|r| r.sim.as_ref().ok())
            .map(|s| if self.run_done(s) { self.target } else { s.now })
            .min()
            .unwrap_or(self.target)
    }

    /// Runs the slowest unfinished run for up to `budget_ms` of wall time.
    pub fn advance(&mut self, budget_ms: f64) {
        let mut sims: Vec<&mut Simulation> = self
            .runs
            .iter_mut()
            .filter_map(|r| r.sim.as_mut().ok())
            .collect();
        advance_level(&mut sims, self.target, budget_ms);
    }
}
