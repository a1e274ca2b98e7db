//! Views derived from the simulation for the panels: the checkpoint history, the REST report and
//! the timeline. They are rebuilt only when the history moved and, while the job plays fast, at
//! most a few times a second (each rebuild re-renders the timeline).

use std::rc::Rc;

use barrierlab_engine::sim::{CheckpointRow, JobStatus, RestReport, Simulation};

use crate::clock;
use crate::model::timeline::{timeline_model, TimelineCheckpoint};
use crate::speed::Speed;

/// Least wall-clock time between two rebuilds of the REST report and timeline at high speed.
const REPORT_EVERY_MS: f64 = 500.0;
/// The same at maximum speed.
const REPORT_EVERY_MAX_MS: f64 = 1_000.0;

/// Flink's REST shapes, typed. A report is built whole and never changed, so the same `Rc` is
/// the same report: comparing contents would walk every subtask's statistics on each render.
#[derive(Clone)]
pub struct ReportRef(pub Rc<RestReport>);

impl PartialEq for ReportRef {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

#[derive(Clone)]
pub struct Derived {
    pub rows: Rc<Vec<CheckpointRow>>,
    pub report: ReportRef,
    pub timeline: Rc<Vec<TimelineCheckpoint>>,
    /// What changed the views last time: checkpoint counts, restores, status.
    key: (u64, u64, u64, u64, JobStatus),
    /// Wall-clock time the views were last rebuilt (ms).
    at: f64,
}

/// How the job moves, which decides how often its views may be rebuilt.
#[derive(Debug, Clone, Copy)]
pub struct Pace {
    pub playing: bool,
    pub speed: Speed,
    /// A re-run is catching up (as fast as it can).
    pub catching_up: bool,
}

/// Subtasks plus channels above which a job is a large one (the 512-subtask bench job has 50 k):
/// rebuilding its views on every frame would take the frame, whatever the speed.
const LARGE_JOB: usize = 20_000;

/// Whether `sim` is a large job (see [`LARGE_JOB`]).
pub fn is_large(sim: &Simulation) -> bool {
    sim.tasks.len() + sim.net.channels.len() > LARGE_JOB
}

impl Pace {
    /// The least wall-clock time between two rebuilds, if the job moves fast enough to need one.
    /// A large job counts as fast at any speed: at 1x the 4096-subtask job's acks change a row
    /// nearly every frame, and rebuilding the report and timeline each time was a tenth of the
    /// page's time (a Chromium profile).
    fn throttle(self, large: bool) -> Option<f64> {
        let fast = self.catching_up
            || (self.playing && (large || self.speed.micros_per_ms().is_none_or(|m| m > 2_000.0)));
        // Playing fast, even milestones wait for the next refresh: at maximum speed several
        // checkpoints a second trigger and complete.
        let every = if self.catching_up || self.speed == Speed::Max {
            REPORT_EVERY_MAX_MS
        } else {
            REPORT_EVERY_MS
        };
        fast.then_some(every)
    }
}

/// The history's key: what moves when a checkpoint completes, fails or is restored.
fn key(sim: &Simulation) -> (u64, u64, u64, u64, JobStatus) {
    let c = sim.coordinator.stats().counts;
    (c.total, c.completed, c.failed, c.restored, sim.status)
}

impl Derived {
    /// The views of `sim`, built now.
    pub fn new(sim: &Simulation) -> Derived {
        Derived::build(sim, sim.checkpoint_rows(), clock::now_ms())
    }

    fn build(sim: &Simulation, rows: Vec<CheckpointRow>, at: f64) -> Derived {
        Derived {
            rows: Rc::new(rows),
            report: ReportRef(Rc::new(sim.rest_report())),
            timeline: Rc::new(timeline_model(sim)),
            key: key(sim),
            at,
        }
    }

    /// Rebuilds the views if the history moved: when a checkpoint completed, failed or was
    /// restored, or a row changed. While the job moves fast (`Pace`) they wait for the next
    /// rebuild time; `force` rebuilds them regardless (after a jump: seek, restore, pause).
    pub fn refresh(&mut self, sim: &Simulation, pace: Pace, force: bool) {
        let now = clock::now_ms();
        let large = is_large(sim);
        if !force
            && pace
                .throttle(large)
                .is_some_and(|every| now - self.at < every)
        {
            return;
        }
        let rows = sim.checkpoint_rows();
        if force || key(sim) != self.key || *self.rows != rows {
            *self = Derived::build(sim, rows, now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pace(playing: bool, speed: Speed) -> Pace {
        Pace {
            playing,
            speed,
            catching_up: false,
        }
    }

    #[test]
    fn a_large_job_rebuilds_its_views_at_most_twice_a_second_at_any_speed() {
        assert_eq!(pace(true, Speed::One).throttle(false), None);
        assert_eq!(pace(true, Speed::One).throttle(true), Some(REPORT_EVERY_MS));
        assert_eq!(
            pace(true, Speed::Tenth).throttle(true),
            Some(REPORT_EVERY_MS)
        );
        assert_eq!(
            pace(true, Speed::Max).throttle(true),
            Some(REPORT_EVERY_MAX_MS)
        );
        // Paused, every change shows at once.
        assert_eq!(pace(false, Speed::One).throttle(true), None);
    }

    #[test]
    fn the_bench_job_is_large_and_the_seed_demo_is_not() {
        let demo = Simulation::new(barrierlab_engine::scenario::preset("seed-demo").unwrap());
        assert!(!is_large(&demo.unwrap()));
        let bench = Simulation::new(barrierlab_engine::scenario::bench_job(1)).unwrap();
        assert!(is_large(&bench));
    }
}
