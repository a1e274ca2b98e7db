//! The runs behind "Simulate this job": the derived scenario, then what-ifs added one click at a
//! time, all to the same simulated time, moved on a few milliseconds per tick
//! (`budget::advance_level`, as Compare modes does) so the page never blocks. A run's figures are
//! measured once, when it is done.

use barrierlab_engine::scenario::Scenario;
use barrierlab_engine::sim::Simulation;
use barrierlab_engine::types::Micros;
use serde::{Deserialize, Serialize};

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

    /// What the panel shows of the runs as they are now.
    pub fn summary(&self) -> RunsSummary {
        RunsSummary {
            target: self.target,
            progress: self.progress(),
            done: self.done(),
            runs: self
                .runs
                .iter()
                .map(|r| RunFigures {
                    what_if: r.what_if,
                    figures: r.figures.clone(),
                })
                .collect(),
        }
    }
}

/// One run as the panel shows it: which it is, and its figures once measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunFigures {
    pub what_if: Option<usize>,
    pub figures: Option<Result<Figures, String>>,
}

/// [`JobRuns`] as plain data: the same from the worker and from the page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunsSummary {
    pub target: Micros,
    /// Simulated time reached by the run furthest behind.
    pub progress: Micros,
    pub done: bool,
    /// The derived scenario's run first, then the what-ifs in the order clicked.
    pub runs: Vec<RunFigures>,
}

impl RunsSummary {
    /// The derived scenario's figures, when measured.
    pub fn baseline(&self) -> Option<&Result<Figures, String>> {
        self.runs.first().and_then(|r| r.figures.as_ref())
    }
}

/// "Simulate this job" as the page started it: in the worker where one starts (`worker/`), else
/// on the page, a few milliseconds per tick.
pub enum SimulateJob {
    #[cfg(target_arch = "wasm32")]
    Worker {
        worker: crate::worker::host::WorkerJob,
        base: Scenario,
        what_ifs: Vec<usize>,
        summary: RunsSummary,
    },
    Local(Box<JobRuns>),
}

impl SimulateJob {
    pub fn start(base: Scenario, target: Micros) -> SimulateJob {
        #[cfg(target_arch = "wasm32")]
        {
            let request = crate::worker::ToWorker::Simulate {
                scenario: base.clone(),
                target,
            };
            if let Some(worker) = crate::worker::host::WorkerJob::start(&request) {
                let summary = RunsSummary {
                    target,
                    progress: 0,
                    done: false,
                    runs: vec![RunFigures {
                        what_if: None,
                        figures: None,
                    }],
                };
                return SimulateJob::Worker {
                    worker,
                    base,
                    what_ifs: Vec::new(),
                    summary,
                };
            }
        }
        SimulateJob::Local(Box::new(JobRuns::new(base, target)))
    }

    pub fn in_worker(&self) -> bool {
        !matches!(self, SimulateJob::Local(_))
    }

    pub fn summary(&self) -> RunsSummary {
        match self {
            #[cfg(target_arch = "wasm32")]
            SimulateJob::Worker { summary, .. } => summary.clone(),
            SimulateJob::Local(runs) => runs.summary(),
        }
    }

    /// Adds what-if `index` (of [`WHAT_IFS`]) unless it is there already.
    pub fn add_what_if(&mut self, index: usize) {
        match self {
            #[cfg(target_arch = "wasm32")]
            SimulateJob::Worker {
                worker,
                what_ifs,
                summary,
                ..
            } => {
                if index >= WHAT_IFS.len() || what_ifs.contains(&index) {
                    return;
                }
                what_ifs.push(index);
                worker.send(&crate::worker::ToWorker::WhatIf { index });
                summary.runs.push(RunFigures {
                    what_if: Some(index),
                    figures: None,
                });
                summary.done = false;
            }
            SimulateJob::Local(runs) => runs.add_what_if(index),
        }
    }

    /// Moves the runs on: the page's by up to `budget_ms`, the worker's by taking what it posted
    /// (a worker that failed hands the work to the page, from the start). Returns whether done.
    pub fn advance(&mut self, budget_ms: f64) -> bool {
        match self {
            #[cfg(target_arch = "wasm32")]
            SimulateJob::Worker {
                worker,
                base,
                what_ifs,
                summary,
            } => match worker.take() {
                Ok(Some(crate::worker::FromWorker::Simulate(s))) => {
                    // A summary from before the newest what-if reached the worker lacks it.
                    if s.runs.len() == summary.runs.len() {
                        *summary = s;
                    }
                    summary.done
                }
                Ok(_) => summary.done,
                Err(e) => {
                    web_sys::console::warn_1(
                        &format!("Simulate this job: {e}; running on the page").into(),
                    );
                    let mut runs = JobRuns::new(base.clone(), summary.target);
                    for &i in what_ifs.iter() {
                        runs.add_what_if(i);
                    }
                    *self = SimulateJob::Local(Box::new(runs));
                    false
                }
            },
            SimulateJob::Local(runs) => {
                runs.advance(budget_ms);
                runs.done()
            }
        }
    }
}
