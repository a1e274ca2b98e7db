//! The running job: the simulation and what belongs to it (its scenario, time travel, the views
//! derived from it, what the user did to it, a re-run catching up, a comparison of modes).
//!
//! The page (`state.rs`) holds the job behind an `Rc` and changes it copy-on-write
//! (`Rc::make_mut`), so a changed job is a new `Rc`; the reducer gives it the next version, and
//! `SimRef` carries that version to the components. The simulation itself is mutated in place
//! (cloning it per tick would be too slow), but only through `Job::sim_mut`, which needs such a
//! job of one's own: a change that forgets the version does not compile.
//!
//! `Opened` is a new job as the module that opened it describes it (a link, a tutorial step, a
//! stored checkpoint, reopened work). Those modules need nothing of the page, so none of them
//! depends on `state.rs`, which decides what of the page survives the new job.

use std::cell::{Ref, RefCell, RefMut};
use std::rc::Rc;

use barrierlab_engine::scenario::Scenario;
use barrierlab_engine::share::LinkOptions;
use barrierlab_engine::sim::Simulation;
use barrierlab_engine::types::Micros;

use crate::compare::CompareCell;
use crate::derived::{Derived, Pace};
use crate::faults::{CatchUp, UserAction};
use crate::speed::Speed;
use crate::travel::TimeTravel;

/// The preset the page opens with, and what the controls show for a scenario of no preset.
pub const DEFAULT_PRESET: &str = "seed-demo";

/// A message for the page's notice line, and what happens instead ("The running job continues.").
pub type Notice = (String, &'static str);

/// The simulation, shared and mutated in place. Equal only to itself: whether it changed is
/// `SimRef`'s question.
#[derive(Clone)]
pub struct SimCell(Rc<RefCell<Simulation>>);

impl SimCell {
    pub fn borrow(&self) -> Ref<'_, Simulation> {
        self.0.borrow()
    }

    /// Which simulation this is, for caches that follow one (a new one is a new submission).
    pub fn id(&self) -> usize {
        Rc::as_ptr(&self.0) as usize
    }
}

impl PartialEq for SimCell {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

thread_local! {
    static SUBMISSIONS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

fn next_submission() -> u64 {
    SUBMISSIONS.with(|n| {
        n.set(n.get() + 1);
        n.get()
    })
}

/// The simulation as of one version of the job: equal while it is the same simulation,
/// unchanged. Components that read the simulation take it as a prop.
#[derive(Clone, PartialEq)]
pub struct SimRef {
    pub cell: SimCell,
    pub version: u64,
    /// Which submission of a job this is: a new job (opened from a link, a tutorial step, a
    /// stored checkpoint) is a new one; time travel keeps it.
    pub submission: u64,
}

impl SimRef {
    pub fn borrow(&self) -> Ref<'_, Simulation> {
        self.cell.borrow()
    }
}

#[derive(Clone)]
pub struct Job {
    /// Private: see `sim_mut`.
    sim: SimRef,
    /// The preset the controls show: the scenario's, or the one an edited scenario came from.
    pub preset: String,
    /// The scenario differs from the preset (edited in the editor or configuration panel).
    pub custom: bool,
    /// The scenario the job was built from (for the editor and configuration panel).
    pub scenario: Rc<Scenario>,
    /// Snapshots for time travel.
    pub travel: Rc<RefCell<TimeTravel>>,
    /// Views derived from the simulation, recomputed only when the checkpoint history changed.
    pub derived: Derived,
    /// User actions outside the scenario (requests, restores, rescales) with their simulated
    /// times, re-applied when the job is re-run with an edited fault list.
    pub user_log: Rc<Vec<(Micros, UserAction)>>,
    /// A re-run catching up with the time the user was at.
    pub catch_up: Option<CatchUp>,
    /// The scenario run under each checkpointing mode (`compare.rs`).
    pub compare: Option<CompareCell>,
}

impl Job {
    /// A job of `sim` at version 0, with no user actions and no comparison.
    pub fn new(
        sim: Simulation,
        preset: String,
        custom: bool,
        travel: Option<TimeTravel>,
        catch_up: Option<CatchUp>,
    ) -> Job {
        let travel = travel.unwrap_or_else(|| TimeTravel::new(&sim));
        Job {
            scenario: Rc::new(sim.scenario.clone()),
            derived: Derived::new(&sim),
            sim: SimRef {
                cell: SimCell(Rc::new(RefCell::new(sim))),
                version: 0,
                submission: next_submission(),
            },
            preset,
            custom,
            travel: Rc::new(RefCell::new(travel)),
            user_log: Rc::new(Vec::new()),
            catch_up,
            compare: None,
        }
    }

    pub fn sim(&self) -> &SimRef {
        &self.sim
    }

    pub fn version(&self) -> u64 {
        self.sim.version
    }

    /// Only the reducer sets it (`State::reduce`), once per action that changed the job.
    pub fn set_version(&mut self, version: u64) {
        self.sim.version = version;
    }

    /// The simulation, to move it on, with its time travel to record or fork as it goes. Takes
    /// the job back from the worker if it plays there (`worker::playing`): the change happens
    /// to the page's copy, which the next play hands over.
    pub fn sim_mut(&mut self) -> (RefMut<'_, Simulation>, RefMut<'_, TimeTravel>) {
        #[cfg(target_arch = "wasm32")]
        crate::worker::playing::stop();
        self.sim_in_place()
    }

    /// The worker's update of the job it plays, applied to the page's copy (`State::tick`).
    #[cfg(target_arch = "wasm32")]
    pub(crate) fn sim_played(&mut self) -> (RefMut<'_, Simulation>, RefMut<'_, TimeTravel>) {
        self.sim_in_place()
    }

    /// The simulation and its time travel, moved on in place by the frames between two ticks
    /// (`state::playback::Between`) without a new version: the next tick gives it. Nothing else
    /// may call this; a change the views must show at once goes through `sim_mut`.
    pub(crate) fn sim_in_place(&self) -> (RefMut<'_, Simulation>, RefMut<'_, TimeTravel>) {
        (self.sim.cell.0.borrow_mut(), self.travel.borrow_mut())
    }

    /// Continues from `sim`, another moment of this job's time travel.
    pub fn travel_to(&mut self, sim: Simulation) {
        self.sim.cell = SimCell(Rc::new(RefCell::new(sim)));
    }

    pub fn seed(&self) -> u64 {
        self.scenario.seed
    }

    /// Recomputes the derived views (see `Derived::refresh`).
    pub fn refresh(&mut self, pace: Pace, force: bool) {
        let sim = self.sim.borrow();
        self.derived.refresh(&sim, pace, force);
    }

    /// The user's actions up to simulated time `t`.
    pub fn log_until(&self, t: Micros) -> Vec<(Micros, UserAction)> {
        self.user_log
            .iter()
            .filter(|(at, _)| *at <= t)
            .cloned()
            .collect()
    }

    /// Applies a user action to the live job and logs it. Acting in the past forks time travel:
    /// later snapshots no longer apply.
    pub fn act(&mut self, action: UserAction) -> Result<(), String> {
        let (mut sim, mut travel) = self.sim_mut();
        travel.fork(sim.now);
        let now = sim.now;
        let result = action.apply(&mut sim);
        drop((sim, travel));
        if result.is_ok() {
            let mut log = self.log_until(now);
            log.push((now, action));
            self.user_log = Rc::new(log);
        }
        result
    }

    /// Gives the scenario a name and description of one's own. The name is not part of the
    /// run: the job keeps going, only its label changes.
    pub fn rename(&mut self, name: String, description: String) {
        let mut scenario = (*self.scenario).clone();
        scenario.name = name;
        scenario.description = description;
        {
            let (mut sim, _) = self.sim_mut();
            sim.scenario.name = scenario.name.clone();
            sim.scenario.description = scenario.description.clone();
        }
        self.scenario = Rc::new(scenario);
        self.custom = true;
    }
}

/// A new job as the module that opened it describes it; `State::replace_job` makes it the
/// page's job.
pub struct Opened {
    pub sim: Simulation,
    /// The preset the controls show (see `Job::preset`).
    pub preset: String,
    /// The scenario is not a preset as it is.
    pub custom: bool,
    /// Plays at once, or waits paused.
    pub playing: bool,
    /// Its own speed (a link's); `None` keeps the page's.
    pub speed: Option<Speed>,
    /// Time travel recorded while reaching it (a tutorial step).
    pub travel: Option<TimeTravel>,
    /// Runs to a time first (a link's `until`, a re-run).
    pub catch_up: Option<CatchUp>,
    /// The link it came from, with its options (the embed view among them).
    pub link: Option<LinkOptions>,
    /// The subtask to select (a tutorial step's); its fault menu stays closed.
    pub inspected: Option<u32>,
    pub notice: Option<Notice>,
}

impl Opened {
    /// `sim` filed under `preset`, playing at the page's speed, with nothing else to it.
    pub fn new(sim: Simulation, preset: &str) -> Opened {
        Opened {
            sim,
            preset: preset.to_string(),
            custom: false,
            playing: true,
            speed: None,
            travel: None,
            catch_up: None,
            link: None,
            inspected: None,
            notice: None,
        }
    }
}
