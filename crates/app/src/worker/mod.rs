//! The page's Web Worker: simulations that need not share the main thread with rendering run
//! there (`barrierlab-worker`, built by Trunk from `src/worker_main.rs`). The page and the
//! worker exchange these messages as JSON text; the worker answers with plain data, never with a
//! simulation, except where a job crosses as bytes beside the text (the playground's own job,
//! `play.rs`). The work: the playground's job (`play.rs`), the comparison of modes
//! (`compare.rs`), "Simulate this job" (`imported/sim_runs.rs`) and the engine benchmark
//! (`bench.rs`, for `tests/e2e/bench.mjs`).

use barrierlab_engine::scenario::Scenario;
use barrierlab_engine::types::Micros;
use serde::{Deserialize, Serialize};

use crate::compare::CompareSummary;
use crate::imported::sim_runs::RunsSummary;
use crate::speed::Speed;
use play::Played;

#[cfg(target_arch = "wasm32")]
pub mod host;
pub mod play;
#[cfg(target_arch = "wasm32")]
pub mod playing;
#[cfg(target_arch = "wasm32")]
pub mod serve;
#[cfg(target_arch = "wasm32")]
mod transport;

/// The worker's script (`web/worker-loader.js`), relative to the page: the site works under any path.
pub const WORKER_URL: &str = "./worker-loader.js";

/// What the page asks of the worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ToWorker {
    /// Run `scenario` under each compared mode to `now` (at least 30 s simulated), posting a
    /// summary after each slice of work.
    Compare { scenario: Scenario, now: Micros },
    /// "Simulate this job": the scenario derived from a bundle, run to `target`.
    Simulate { scenario: Scenario, target: Micros },
    /// Adds a what-if (an index into `imported::simulate::WHAT_IFS`) to the job simulated.
    WhatIf { index: usize },
    /// `bench::run`: bench-512 for `seconds` on `taskmanagers` TaskManagers.
    Bench { seconds: u32, taskmanagers: u32 },
    /// Play the page's job (its snapshot, the message's bytes) at `speed`; `session` numbers
    /// the plays, so that updates of one the page stopped are known as such. `travel_at`: when
    /// the page's time travel takes its next snapshot, which the worker then writes for it.
    Play {
        session: u64,
        speed: Speed,
        travel_at: Micros,
    },
    /// The page's speed changed while the worker plays.
    PlaySpeed(Speed),
    /// The page applied an update: the next one when the job moved (`travel_at` as in `Play`).
    Want { travel_at: Micros },
    /// The page took the job back (a step, a fault, a pause): no more updates of this play.
    Stop,
}

/// What the worker answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum FromWorker {
    /// The worker's handler is installed. A message posted before would be lost (the module
    /// instantiates after the script has run), so the page sends its request on this.
    Ready,
    Compare(CompareSummary),
    Simulate(RunsSummary),
    Bench(Result<serde_json::Value, String>),
    /// An update of the job played (`Simulation::to_snapshot_since`, the message's bytes).
    Played(Played),
    /// The request could not be read, or the worker panicked: the page runs the work itself.
    Error(String),
}

impl ToWorker {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    pub fn parse(text: &str) -> Result<ToWorker, String> {
        serde_json::from_str(text).map_err(|e| format!("a request the worker cannot read: {e}"))
    }
}

impl FromWorker {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    pub fn parse(text: &str) -> Result<FromWorker, String> {
        serde_json::from_str(text).map_err(|e| format!("an answer the page cannot read: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::Compare;
    use barrierlab_engine::scenario::preset;
    use barrierlab_engine::sim::Simulation;

    #[test]
    fn a_comparison_crosses_as_json_and_runs_as_it_would_on_the_page() {
        let scenario = preset("seed-demo").unwrap();
        let asked = ToWorker::Compare {
            scenario: scenario.clone(),
            now: 0,
        };
        let ToWorker::Compare { scenario: got, now } = ToWorker::parse(&asked.to_json()).unwrap()
        else {
            panic!("not a comparison")
        };
        assert_eq!(got, scenario);
        // The worker's runs from the scenario as it arrived: each mode's fingerprint is that
        // of the same scenario run natively to the same time.
        let mut c = Compare::new(&got, now);
        while !c.done() {
            c.advance(1000.0);
        }
        let summary = c.summary();
        let back = FromWorker::parse(&FromWorker::Compare(summary.clone()).to_json()).unwrap();
        assert_eq!(back, FromWorker::Compare(summary.clone()));
        let mut unaligned = scenario.clone();
        unaligned.config.insert(
            "execution.checkpointing.unaligned.enabled".into(),
            "true".into(),
        );
        unaligned
            .config
            .insert("execution.checkpointing.mode".into(), "EXACTLY_ONCE".into());
        let mut sim = Simulation::new(unaligned).unwrap();
        sim.run_until(summary.target);
        assert_eq!(summary.runs[1].mode, "unaligned");
        assert_eq!(summary.runs[1].fingerprint, sim.fingerprint());
        assert!(summary.done && summary.runs.iter().all(|r| r.stats.is_ok()));
    }

    #[test]
    fn simulate_this_job_crosses_as_json_what_ifs_and_figures_included() {
        use crate::imported::sim_runs::JobRuns;
        let asked = ToWorker::Simulate {
            scenario: preset("seed-backpressure").unwrap(),
            target: 6_000_000,
        };
        let ToWorker::Simulate { scenario, target } = ToWorker::parse(&asked.to_json()).unwrap()
        else {
            panic!("not a simulation")
        };
        let mut runs = JobRuns::new(scenario, target);
        let ToWorker::WhatIf { index } =
            ToWorker::parse(&ToWorker::WhatIf { index: 0 }.to_json()).unwrap()
        else {
            panic!("not a what-if")
        };
        runs.add_what_if(index);
        while !runs.done() {
            runs.advance(1000.0);
        }
        let summary = runs.summary();
        assert_eq!(summary.runs.len(), 2);
        assert!(summary
            .baseline()
            .is_some_and(|f| f.as_ref().is_ok_and(|f| f.completed > Some(0))));
        let back = FromWorker::parse(&FromWorker::Simulate(summary.clone()).to_json()).unwrap();
        assert_eq!(back, FromWorker::Simulate(summary));
    }

    #[test]
    fn a_request_that_is_not_one_is_refused_with_a_message() {
        let e = ToWorker::parse("{\"Compare\":{}}").unwrap_err();
        assert!(e.starts_with("a request the worker cannot read"), "{e}");
        assert!(FromWorker::parse("[").is_err());
    }
}
