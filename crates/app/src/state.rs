//! The playground's state: one running simulation plus the controls around it, as a Yew reducer
//! (after Yew's `function_todomvc` example). The simulation lives behind `Rc<RefCell<…>>` so a
//! tick mutates it in place; `version` changes whenever it did, which is what components compare.

use std::cell::RefCell;
use std::rc::Rc;

use barrierlab_engine::scenario::{preset, Scenario};
use barrierlab_engine::sim::{CheckpointRow, JobStatus, Simulation, UserRequest};
use barrierlab_engine::types::Micros;
use serde_json::Value;
use yew::prelude::*;

use crate::clock;
use crate::compare::{Compare, CompareCell};
use crate::model::timeline::{timeline_model, TimelineCheckpoint};
use crate::model::why::{observe_barriers, QueueLog};
use crate::travel::TimeTravel;

/// The preset the page opens with.
pub const DEFAULT_PRESET: &str = "seed-demo";

/// Longest a tick may spend simulating, in wall-clock milliseconds.
pub const TICK_BUDGET_MS: f64 = 8.0;
/// Longest wall-clock gap a tick accounts for (a hidden tab must not cause a jump).
const MAX_TICK_GAP_MS: f64 = 200.0;
/// Events simulated between two looks at the wall clock.
const EVENTS_PER_CLOCK_CHECK: u32 = 32;

/// Simulated speed relative to wall-clock time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Speed {
    Tenth,
    Half,
    One,
    Two,
    Five,
    Ten,
    Max,
}

impl Speed {
    pub const ALL: [Speed; 7] = [
        Speed::Tenth,
        Speed::Half,
        Speed::One,
        Speed::Two,
        Speed::Five,
        Speed::Ten,
        Speed::Max,
    ];

    /// Simulated microseconds per wall-clock millisecond; `None` for "as fast as possible".
    pub fn micros_per_ms(self) -> Option<f64> {
        Some(match self {
            Speed::Tenth => 100.0,
            Speed::Half => 500.0,
            Speed::One => 1_000.0,
            Speed::Two => 2_000.0,
            Speed::Five => 5_000.0,
            Speed::Ten => 10_000.0,
            Speed::Max => return None,
        })
    }

    pub fn label(self) -> &'static str {
        match self {
            Speed::Tenth => "0.1×",
            Speed::Half => "0.5×",
            Speed::One => "1×",
            Speed::Two => "2×",
            Speed::Five => "5×",
            Speed::Ten => "10×",
            Speed::Max => "max",
        }
    }

    /// A stable token for `<select>` values and tests.
    pub fn key(self) -> &'static str {
        match self {
            Speed::Tenth => "0.1",
            Speed::Half => "0.5",
            Speed::One => "1",
            Speed::Two => "2",
            Speed::Five => "5",
            Speed::Ten => "10",
            Speed::Max => "max",
        }
    }

    pub fn from_key(key: &str) -> Option<Speed> {
        Speed::ALL.into_iter().find(|s| s.key() == key)
    }
}

/// Everything the reducer can be asked to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// The timer fired at this wall-clock time (ms).
    Tick(f64),
    TogglePlay,
    SetSpeed(Speed),
    /// Process exactly the next event (pauses first).
    Step,
    Request(UserRequest),
    Reset,
    LoadPreset(String),
    SetSeed(u64),
    ToggleHelp,
    CloseHelp,
    /// Restart with an edited scenario (topology or configuration); an invalid one keeps the
    /// running job and reports why.
    ApplyScenario(Box<Scenario>),
    /// Open (or close) the inspector on a task index.
    Inspect(Option<u32>),
    /// Time travel to this simulated time (µs).
    Seek(Micros),
    /// Start comparing the current scenario under these modes.
    StartCompare,
    StopCompare,
}

/// The simulation, shared and mutable in place.
pub type SimCell = Rc<RefCell<Simulation>>;

#[derive(Clone)]
pub struct State {
    pub sim: SimCell,
    /// Bumped on every change to the simulation.
    pub version: u64,
    pub preset: String,
    pub seed: u64,
    pub playing: bool,
    pub speed: Speed,
    /// Why the scenario could not be loaded, if it could not.
    pub error: Option<String>,
    /// The last tick ran out of budget before catching up with the wall clock.
    pub lagging: bool,
    pub help_open: bool,
    /// The scenario differs from the preset (edited in the editor or configuration panel).
    pub custom: bool,
    /// The task index the inspector shows.
    pub inspected: Option<u32>,
    /// Snapshots for time travel.
    pub travel: Rc<RefCell<TimeTravel>>,
    /// Buffers seen queued ahead of each barrier, for "why was checkpoint N slow?".
    pub queue_log: Rc<RefCell<QueueLog>>,
    pub compare: Option<CompareCell>,
    /// The scenario the running job was built from (for the editor and configuration panel).
    pub scenario: Rc<Scenario>,
    last_tick_ms: Option<f64>,
    /// Derived from the simulation, recomputed only when the checkpoint history changed.
    pub rows: Rc<Vec<CheckpointRow>>,
    pub report: Rc<Value>,
    pub timeline: Rc<Vec<TimelineCheckpoint>>,
}

impl PartialEq for State {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.sim, &other.sim)
            && self.version == other.version
            && self.playing == other.playing
            && self.speed == other.speed
            && self.help_open == other.help_open
            && self.preset == other.preset
            && self.seed == other.seed
            && self.custom == other.custom
            && self.inspected == other.inspected
            && self.error == other.error
    }
}

/// The scenario for a preset name and seed; an unknown name is an error message.
pub fn scenario_for(name: &str, seed: Option<u64>) -> Result<Scenario, String> {
    let mut scenario = preset(name).ok_or_else(|| format!("unknown preset '{name}'"))?;
    if let Some(seed) = seed {
        scenario.seed = seed;
    }
    Ok(scenario)
}

/// A simulation for a scenario that is known to be valid (used when loading fails).
fn fallback_sim() -> Simulation {
    let scenario = preset(DEFAULT_PRESET).expect("the default preset exists");
    Simulation::new(scenario).expect("the default preset is valid")
}

impl State {
    /// The page's first state: the seed's demo job, running at 1×.
    pub fn initial() -> State {
        State::load(DEFAULT_PRESET, None, true, Speed::One)
    }

    /// A fresh simulation of `name` (with `seed`, or the preset's own).
    pub fn load(name: &str, seed: Option<u64>, playing: bool, speed: Speed) -> State {
        let (sim, error) = match scenario_for(name, seed).and_then(Simulation::new) {
            Ok(sim) => (sim, None),
            Err(e) => (fallback_sim(), Some(e)),
        };
        State::with_sim(sim, error, name, playing, speed)
    }

    fn with_sim(
        sim: Simulation,
        error: Option<String>,
        name: &str,
        playing: bool,
        speed: Speed,
    ) -> State {
        let travel = Rc::new(RefCell::new(TimeTravel::new(&sim)));
        let scenario = Rc::new(sim.scenario.clone());
        let mut state = State {
            seed: sim.scenario.seed,
            preset: if error.is_none() {
                name.to_string()
            } else {
                DEFAULT_PRESET.to_string()
            },
            sim: Rc::new(RefCell::new(sim)),
            version: 0,
            playing: playing && error.is_none(),
            speed,
            error,
            lagging: false,
            help_open: false,
            custom: false,
            inspected: None,
            travel,
            queue_log: Rc::new(RefCell::new(QueueLog::default())),
            compare: None,
            scenario,
            last_tick_ms: None,
            rows: Rc::new(Vec::new()),
            report: Rc::new(Value::Null),
            timeline: Rc::new(Vec::new()),
        };
        state.refresh_derived();
        state
    }

    /// Recomputes the checkpoint history, the REST report and the timeline if the history moved.
    fn refresh_derived(&mut self) {
        let sim = self.sim.borrow();
        let rows = sim.checkpoint_rows();
        if *self.rows != rows || self.report.is_null() {
            self.report = Rc::new(sim.json_report());
            self.timeline = Rc::new(timeline_model(&sim));
            self.rows = Rc::new(rows);
        }
    }

    fn changed(mut self) -> Rc<State> {
        self.version += 1;
        self.refresh_derived();
        Rc::new(self)
    }

    /// The current scenario (preset or edited) from time 0 with `seed`.
    fn reload(&self, seed: u64, playing: bool) -> State {
        let mut scenario = self.sim.borrow().scenario.clone();
        scenario.seed = seed;
        match Simulation::new(scenario) {
            Ok(sim) => {
                let mut next = State::with_sim(sim, None, &self.preset, playing, self.speed);
                next.custom = self.custom;
                next
            }
            Err(_) => State::load(&self.preset, Some(seed), playing, self.speed),
        }
    }

    pub fn status(&self) -> JobStatus {
        self.sim.borrow().status
    }

    fn tick(self: Rc<Self>, now_ms: f64) -> Rc<State> {
        let comparing = self.compare.as_ref().is_some_and(|c| !c.borrow().done());
        if comparing {
            let budget = if self.playing {
                TICK_BUDGET_MS / 2.0
            } else {
                TICK_BUDGET_MS
            };
            if let Some(c) = &self.compare {
                c.borrow_mut().advance(budget);
            }
            if !self.playing {
                let mut next = (*self).clone();
                next.last_tick_ms = None;
                next.version += 1;
                return Rc::new(next);
            }
        }
        if !self.playing {
            if self.last_tick_ms.is_none() {
                return self;
            }
            let mut next = (*self).clone();
            next.last_tick_ms = None;
            return Rc::new(next);
        }
        let gap = match self.last_tick_ms {
            Some(last) => (now_ms - last).clamp(0.0, MAX_TICK_GAP_MS),
            None => 0.0,
        };
        let mut next = (*self).clone();
        next.last_tick_ms = Some(now_ms);
        {
            let mut sim = next.sim.borrow_mut();
            let budget = if comparing {
                TICK_BUDGET_MS / 2.0
            } else {
                TICK_BUDGET_MS
            };
            next.lagging = advance(&mut sim, self.speed, gap, budget);
            if !sim.status.is_live() {
                next.playing = false;
            }
            next.travel.borrow_mut().record(&sim);
            observe_barriers(&sim, &mut next.queue_log.borrow_mut());
        }
        next.changed()
    }
}

/// Advances `sim` by `gap_ms` of wall-clock time at `speed`, spending at most `budget_ms`.
/// Returns whether the budget ran out first (the simulation is then behind the wall clock).
pub fn advance(sim: &mut Simulation, speed: Speed, gap_ms: f64, budget_ms: f64) -> bool {
    let start = clock::now_ms();
    let target = speed
        .micros_per_ms()
        .map(|per_ms| sim.now + (gap_ms * per_ms) as u64);
    let mut since_check = 0;
    while sim.status.is_live() {
        match (sim.next_event_time(), target) {
            (Some(t), Some(target)) if t > target => break,
            (None, _) => break,
            _ => {
                sim.step();
            }
        }
        since_check += 1;
        if since_check == EVENTS_PER_CLOCK_CHECK {
            since_check = 0;
            if clock::now_ms() - start > budget_ms {
                // Book the time the tasks spent so far; the clock stays where the events are.
                let now = sim.now;
                sim.run_until(now);
                return target.is_some();
            }
        }
    }
    let until = target.unwrap_or(sim.now).max(sim.now);
    sim.run_until(until);
    false
}

impl Reducible for State {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        match action {
            Action::Tick(now_ms) => self.tick(now_ms),
            Action::TogglePlay => {
                let mut next = (*self).clone();
                next.playing = !self.playing && self.status().is_live();
                next.last_tick_ms = None;
                Rc::new(next)
            }
            Action::SetSpeed(speed) => {
                let mut next = (*self).clone();
                next.speed = speed;
                Rc::new(next)
            }
            Action::Step => {
                let mut next = (*self).clone();
                next.playing = false;
                next.last_tick_ms = None;
                next.sim.borrow_mut().step();
                next.changed()
            }
            Action::Request(request) => {
                let next = (*self).clone();
                {
                    let mut sim = next.sim.borrow_mut();
                    // Acting in the past forks a new branch: later snapshots no longer apply.
                    next.travel.borrow_mut().fork(sim.now);
                    sim.request(request);
                }
                next.changed()
            }
            Action::ApplyScenario(scenario) => match Simulation::new(*scenario) {
                Ok(sim) => {
                    let name = self.preset.clone();
                    let mut next = State::with_sim(sim, None, &name, true, self.speed);
                    next.custom = true;
                    next.version = self.version + 1;
                    Rc::new(next)
                }
                Err(e) => {
                    let mut next = (*self).clone();
                    next.error = Some(e);
                    next.version += 1;
                    Rc::new(next)
                }
            },
            Action::Inspect(task) => {
                let mut next = (*self).clone();
                next.inspected = if self.inspected == task { None } else { task };
                Rc::new(next)
            }
            Action::Seek(t) => {
                let restored = self.travel.borrow().seek(t);
                let Some(sim) = restored else { return self };
                let mut next = (*self).clone();
                next.playing = false;
                next.last_tick_ms = None;
                next.sim = Rc::new(RefCell::new(sim));
                next.report = Rc::new(Value::Null);
                next.changed()
            }
            Action::StartCompare => {
                let mut next = (*self).clone();
                let sim = self.sim.borrow();
                next.compare = Some(Rc::new(RefCell::new(Compare::new(&sim.scenario, sim.now))));
                drop(sim);
                next.version += 1;
                Rc::new(next)
            }
            Action::StopCompare => {
                let mut next = (*self).clone();
                next.compare = None;
                next.version += 1;
                Rc::new(next)
            }
            // Reset and a new seed keep playing or stay paused (at time 0, ready to step).
            Action::Reset => {
                let playing = self.playing || !self.status().is_live();
                let mut next = self.reload(self.seed, playing);
                next.version = self.version + 1;
                Rc::new(next)
            }
            Action::LoadPreset(name) => {
                let mut next = State::load(&name, None, true, self.speed);
                next.version = self.version + 1;
                Rc::new(next)
            }
            Action::SetSeed(seed) => {
                let playing = self.playing || !self.status().is_live();
                let mut next = self.reload(seed, playing);
                next.version = self.version + 1;
                Rc::new(next)
            }
            Action::ToggleHelp => {
                let mut next = (*self).clone();
                next.help_open = !self.help_open;
                Rc::new(next)
            }
            Action::CloseHelp => {
                if !self.help_open {
                    return self;
                }
                let mut next = (*self).clone();
                next.help_open = false;
                Rc::new(next)
            }
        }
    }
}
