//! Compare: one scenario and seed under aligned, unaligned and at-least-once checkpointing, run to
//! the same simulated time. The runs go to the page's Web Worker (`worker/`), so they cost the
//! page no frames; where no worker starts (a page without its worker script, the wasm tests) they
//! run on the main thread, a few milliseconds per tick. Either way the panel shows a
//! [`CompareSummary`]: plain data, the same from both.

use std::cell::RefCell;
use std::rc::Rc;

use barrierlab_engine::scenario::Scenario;
use barrierlab_engine::sim::{CheckpointRow, Simulation};
use barrierlab_engine::types::Micros;
use serde::{Deserialize, Serialize};

use crate::budget::advance_level;

pub type CompareCell = Rc<RefCell<CompareJob>>;

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

/// The runs themselves, wherever they execute (the worker or the main thread).
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

    /// What the panel shows of the runs as they are now.
    pub fn summary(&self) -> CompareSummary {
        CompareSummary {
            target: self.target,
            progress: self.progress(),
            done: self.done(),
            runs: self
                .runs
                .iter()
                .map(|r| RunSummary {
                    mode: r.mode.to_string(),
                    now: r.sim.as_ref().map_or(0, |s| s.now),
                    stats: r
                        .sim
                        .as_ref()
                        .map(|s| Stats::of(&s.checkpoint_rows()))
                        .map_err(Clone::clone),
                    fingerprint: r
                        .sim
                        .as_ref()
                        .map(Simulation::fingerprint)
                        .unwrap_or_default(),
                })
                .collect(),
        }
    }
}

/// One mode's figures, over its completed checkpoints.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    pub completed: usize,
    pub avg: Option<u64>,
    pub max: Option<u64>,
    pub persisted: u64,
    pub checkpointed: u64,
}

impl Stats {
    pub fn of(rows: &[CheckpointRow]) -> Stats {
        let done: Vec<u64> = rows.iter().filter_map(|r| r.duration).collect();
        Stats {
            completed: done.len(),
            avg: (!done.is_empty()).then(|| done.iter().sum::<u64>() / done.len() as u64),
            max: done.iter().copied().max(),
            persisted: rows.iter().map(|r| r.persisted).sum(),
            checkpointed: rows.iter().map(|r| r.checkpointed_size).sum(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    pub mode: String,
    pub now: Micros,
    /// The figures, or why the mode's scenario does not run.
    pub stats: Result<Stats, String>,
    /// The run's fingerprint: the same in the worker, on the main thread and natively.
    pub fingerprint: String,
}

/// A comparison as the panel shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompareSummary {
    pub target: Micros,
    /// Simulated time reached by the slowest run.
    pub progress: Micros,
    pub done: bool,
    pub runs: Vec<RunSummary>,
}

/// Where the runs execute.
enum Runner {
    /// In the Web Worker, which posts summaries as it goes; kept for the error that may end it.
    #[cfg(target_arch = "wasm32")]
    Worker(crate::worker::host::WorkerJob, Scenario, Micros),
    /// On the main thread, in the page's ticks.
    Local(Box<Compare>),
}

/// A comparison the page started: its runner and the latest summary.
pub struct CompareJob {
    runner: Runner,
    summary: CompareSummary,
}

impl std::fmt::Debug for CompareJob {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompareJob")
            .field("in_worker", &self.in_worker())
            .field("summary", &self.summary)
            .finish()
    }
}

impl CompareJob {
    /// Starts comparing `scenario` up to `now` (at least [`MIN_COMPARE`]): in the worker where
    /// one starts, else on the main thread.
    pub fn start(scenario: &Scenario, now: Micros) -> CompareCell {
        let local = Compare::new(scenario, now);
        let mut summary = local.summary();
        summary.progress = 0;
        #[cfg(target_arch = "wasm32")]
        {
            let request = crate::worker::ToWorker::Compare {
                scenario: scenario.clone(),
                now,
            };
            if let Some(worker) = crate::worker::host::WorkerJob::start(&request) {
                return Rc::new(RefCell::new(CompareJob {
                    runner: Runner::Worker(worker, scenario.clone(), now),
                    summary,
                }));
            }
        }
        Self::local(local, summary)
    }

    fn local(local: Compare, summary: CompareSummary) -> CompareCell {
        Rc::new(RefCell::new(CompareJob {
            runner: Runner::Local(Box::new(local)),
            summary,
        }))
    }

    pub fn summary(&self) -> &CompareSummary {
        &self.summary
    }

    pub fn done(&self) -> bool {
        self.summary.done
    }

    pub fn in_worker(&self) -> bool {
        !matches!(self.runner, Runner::Local(_))
    }

    /// Moves the comparison on: the main thread's runs by up to `budget_ms`, the worker's by
    /// taking what it posted. Returns whether the summary changed.
    pub fn advance(&mut self, budget_ms: f64) -> bool {
        match &mut self.runner {
            #[cfg(target_arch = "wasm32")]
            Runner::Worker(worker, scenario, now) => match worker.take() {
                Ok(Some(crate::worker::FromWorker::Compare(summary))) => {
                    self.summary = summary;
                    true
                }
                Ok(_) => false,
                Err(e) => {
                    // The worker failed (its script missing, out of memory): the main thread
                    // runs the comparison from the start instead.
                    web_sys::console::warn_1(
                        &format!("Compare modes: {e}; running on the page").into(),
                    );
                    let local = Compare::new(scenario, *now);
                    self.summary = local.summary();
                    self.runner = Runner::Local(Box::new(local));
                    true
                }
            },
            Runner::Local(c) => {
                if c.done() {
                    return false;
                }
                c.advance(budget_ms);
                self.summary = c.summary();
                true
            }
        }
    }
}
