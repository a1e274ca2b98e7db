//! The playground's state: one running simulation plus the controls around it, as a Yew reducer
//! (after Yew's `function_todomvc` example). The simulation lives behind `Rc<RefCell<…>>` so a
//! tick mutates it in place; `version` changes whenever it did, which is what components compare.

use std::cell::RefCell;
use std::rc::Rc;

use barrierlab_engine::scenario::{preset, Fault, Scenario};
use barrierlab_engine::sim::{CheckpointRow, JobStatus, Simulation, UserRequest};
use barrierlab_engine::types::Micros;
use yew::prelude::*;

use crate::budget::{deadline, run_budgeted, RunEnd};
use crate::clock;
use crate::compare::{Compare, CompareCell};
use crate::faults::{catch_up, CatchUp, UserAction};
use crate::model::timeline::{timeline_model, TimelineCheckpoint};
use crate::travel::TimeTravel;

/// The preset the page opens with.
pub const DEFAULT_PRESET: &str = "seed-demo";

/// Longest a tick may spend simulating, in wall-clock milliseconds.
pub const TICK_BUDGET_MS: f64 = 8.0;
/// The same at maximum speed (and when re-running): the rest of the frame is for rendering (Yew,
/// style, layout and paint take 2–8 ms more; `tests/e2e/frames.mjs` measures it).
pub const MAX_SPEED_BUDGET_MS: f64 = 4.0;
/// Least wall-clock time between two rebuilds of the REST report and timeline at high speed.
const REPORT_EVERY_MS: f64 = 500.0;
/// The same at maximum speed.
const REPORT_EVERY_MAX_MS: f64 = 1_000.0;
/// Longest wall-clock gap a tick accounts for (a hidden tab must not cause a jump).
const MAX_TICK_GAP_MS: f64 = 200.0;

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
    /// Run to the next checkpoint phase traced (pauses first); see `phase.rs`.
    StepPhase,
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
    /// Add a fault to the scenario and re-run to the current time.
    AddFault(Fault),
    /// Replace fault `index` (an edit in the Faults panel) and re-run.
    ReplaceFault(usize, Fault),
    RemoveFault(usize),
    /// Stop the job now and restore this retained checkpoint or savepoint.
    RestoreFrom(u64),
    /// Restore the latest checkpoint with new parallelism for an operator.
    Rescale(String, u32),
    /// The page's fragment changed (`hashchange`): open the link it holds, or say why not.
    OpenHash(String),
    /// Close the bad-link message.
    DismissNotice,
    /// Cancel the job (Flink's cancel: CANCELED, checkpoints kept or discarded by retention).
    CancelJob,
    /// Submit the job of a checkpoint read from storage, restored from it (see `storage/`).
    RestoreStored(Rc<barrierlab_engine::storage::StoredCheckpoint>),
    /// Open, move through or close a tutorial (`tutorial/`).
    Tutorial(crate::tutorial::TutorialAction),
    /// Give the scenario a name and description of one's own (kept through further edits).
    Rename {
        name: String,
        description: String,
    },
    /// Reopen the scenario the page was working on before a reload (see `storage::work`).
    RestoreWork(Box<Scenario>),
    /// Start the scenario waiting for consent although it is over the cost budget.
    RunAnyway,
    /// Close the consent question; the running job goes on.
    DeclineConsent,
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
    /// Whether the inspected subtask's fault menu is open: a click on a subtask in the graph
    /// opens it; a tutorial step that only points at a subtask does not.
    pub fault_menu_open: bool,
    /// Snapshots for time travel.
    pub travel: Rc<RefCell<TimeTravel>>,
    pub compare: Option<CompareCell>,
    /// The scenario the running job was built from (for the editor and configuration panel).
    pub scenario: Rc<Scenario>,
    last_tick_ms: Option<f64>,
    /// Derived from the simulation, recomputed only when the checkpoint history changed.
    pub rows: Rc<Vec<CheckpointRow>>,
    pub report: Option<Rc<barrierlab_engine::sim::RestReport>>,
    pub timeline: Rc<Vec<TimelineCheckpoint>>,
    /// What changed the derived views last time: checkpoint counts, restores, status.
    derived_key: (u64, u64, u64, u64, JobStatus),
    /// Wall-clock time the REST report was last rebuilt (ms).
    report_at: f64,
    /// User actions outside the scenario (requests, restores, rescales) with their simulated
    /// times, re-applied when the job is re-run with an edited fault list.
    pub user_log: Rc<Vec<(Micros, UserAction)>>,
    /// A re-run catching up with the time the user was at.
    pub catch_up: Option<CatchUp>,
    /// Why the last restore or rescale was refused.
    pub recovery_error: Option<String>,
    /// Why the last fault edit was refused (the scenario would not validate).
    pub fault_error: Option<String>,
    /// Why the link in the URL did not load, and what runs instead (dismissible).
    pub notice: Option<(String, &'static str)>,
    /// The chrome-less view for iframes (`embed=1`).
    pub embed: bool,
    /// The options of the link the page opened, if it opened one.
    pub link: Option<Rc<barrierlab_engine::share::LinkOptions>>,
    /// The tutorial band: the picker or a step reached (`tutorial/`).
    pub tutorial: Option<Rc<crate::tutorial::TutorialView>>,
    /// Where the last "step to the next checkpoint phase" stopped.
    pub phase_stop: Option<Rc<crate::phase::PhaseStop>>,
    /// A scenario over the cost budget, waiting for the user's "Run anyway" (`consent.rs`).
    pub consent: Option<Rc<crate::consent::PendingConsent>>,
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
            && self.fault_menu_open == other.fault_menu_open
            && self.error == other.error
            && self.catch_up == other.catch_up
            && self.recovery_error == other.recovery_error
            && self.fault_error == other.fault_error
            && self.notice == other.notice
            && self.embed == other.embed
            && self.tutorial == other.tutorial
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

    pub(crate) fn with_sim(
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
            fault_menu_open: false,
            travel,
            compare: None,
            scenario,
            last_tick_ms: None,
            rows: Rc::new(Vec::new()),
            report: None,
            timeline: Rc::new(Vec::new()),
            derived_key: (0, 0, 0, 0, JobStatus::Running),
            report_at: f64::NEG_INFINITY,
            user_log: Rc::new(Vec::new()),
            catch_up: None,
            recovery_error: None,
            fault_error: None,
            notice: None,
            embed: false,
            link: None,
            tutorial: None,
            phase_stop: None,
            consent: None,
        };
        state.refresh_derived(true);
        state
    }

    /// Recomputes the checkpoint history, the REST report and the timeline if the history moved.
    /// While playing fast (or re-running) the report and timeline, the most expensive views,
    /// are rebuilt at most every `REPORT_EVERY_MS` of wall-clock time unless a checkpoint
    /// completed, failed or was restored; `force` rebuilds them regardless.
    fn refresh_derived(&mut self, force: bool) {
        let sim = self.sim.borrow();
        let c = sim.coordinator.stats().counts;
        let key = (c.total, c.completed, c.failed, c.restored, sim.status);
        let milestone = key != self.derived_key;
        let now = clock::now_ms();
        let fast = self.catch_up.is_some()
            || (self.playing && self.speed.micros_per_ms().is_none_or(|m| m > 2_000.0));
        // Playing fast, even milestones wait for the next refresh: at maximum speed several
        // checkpoints a second trigger and complete, and each rebuild re-renders the timeline.
        let every = if self.catch_up.is_some() || self.speed == Speed::Max {
            REPORT_EVERY_MAX_MS
        } else {
            REPORT_EVERY_MS
        };
        if !force && fast && now - self.report_at < every {
            return;
        }
        let rows = sim.checkpoint_rows();
        if force || milestone || *self.rows != rows || self.report.is_none() {
            self.report = Some(Rc::new(sim.rest_report()));
            self.timeline = Rc::new(timeline_model(&sim));
            self.rows = Rc::new(rows);
            self.report_at = now;
            self.derived_key = key;
        }
    }

    fn changed(mut self) -> Rc<State> {
        self.version += 1;
        self.refresh_derived(false);
        Rc::new(self)
    }

    /// Like `changed`, rebuilding every derived view (after a jump: seek, restore, re-run).
    fn jumped(mut self) -> Rc<State> {
        self.version += 1;
        self.refresh_derived(true);
        Rc::new(self)
    }

    /// Re-runs `scenario` from time 0 up to the current time, re-applying the user's actions:
    /// the way a fault edit takes effect (see `faults.rs`). An invalid scenario keeps the job
    /// and says why.
    fn rerun(self: Rc<Self>, mut scenario: Scenario) -> Rc<State> {
        barrierlab_engine::scenario::identify(&self.preset, &mut scenario);
        let custom = scenario != *self.scenario || self.custom;
        let (now, playing) = {
            let sim = self.sim.borrow();
            (sim.now, self.playing)
        };
        let sim = match crate::consent::simulation(scenario, self.over_budget_ok()) {
            Ok(sim) => sim,
            Err(e) => {
                let mut next = (*self).clone();
                next.fault_error = Some(e);
                next.version += 1;
                return Rc::new(next);
            }
        };
        let mut next = State::with_sim(sim, None, &self.preset, false, self.speed);
        next.custom = custom && barrierlab_engine::scenario::preset(&next.scenario.name).is_none();
        next.inspected = self.inspected;
        next.fault_menu_open = self.fault_menu_open;
        next.compare = self.compare.clone();
        let log: Vec<_> = self
            .user_log
            .iter()
            .filter(|(at, _)| *at <= now)
            .cloned()
            .collect();
        next.user_log = Rc::new(log);
        next.catch_up = Some(CatchUp {
            target: now,
            resume: playing,
            next_action: 0,
        });
        next.version = self.version + 1;
        Rc::new(next)
    }

    /// Applies a user action to the live job, logs it, and forks time travel.
    fn act(self: Rc<Self>, action: UserAction) -> Rc<State> {
        if self.catch_up.is_some() {
            return self;
        }
        let mut next = (*self).clone();
        let result = {
            let mut sim = next.sim.borrow_mut();
            // Acting in the past forks a new branch: later snapshots no longer apply.
            next.travel.borrow_mut().fork(sim.now);
            let now = sim.now;
            let result = action.apply(&mut sim);
            if result.is_ok() {
                let mut log: Vec<_> = next
                    .user_log
                    .iter()
                    .filter(|(at, _)| *at <= now)
                    .cloned()
                    .collect();
                log.push((now, action));
                next.user_log = Rc::new(log);
            }
            result
        };
        next.recovery_error = result.err();
        next.jumped()
    }

    /// The current scenario (preset or edited) from time 0 with `seed`.
    fn reload(&self, seed: u64, playing: bool) -> State {
        let mut scenario = (*self.scenario).clone();
        scenario.seed = seed;
        match crate::consent::simulation(scenario, self.over_budget_ok()) {
            Ok(sim) => {
                let mut next = State::with_sim(sim, None, &self.preset, playing, self.speed);
                next.custom = self.custom;
                next
            }
            Err(_) => State::load(&self.preset, Some(seed), playing, self.speed),
        }
    }

    /// The running job is over the cost budget by the user's choice: its re-runs (reset, new
    /// seed, fault edits) need not ask again.
    pub fn over_budget_ok(&self) -> bool {
        self.sim.borrow().over_budget_consented
    }

    pub fn status(&self) -> JobStatus {
        self.sim.borrow().status
    }

    fn tick(self: Rc<Self>, now_ms: f64) -> Rc<State> {
        #[cfg(target_arch = "wasm32")]
        if crate::panic::trap_requested() && self.sim.borrow().now > 1_000_000 {
            // Inside the reducer, with Yew's state borrowed: what an allocation failure does.
            std::process::abort();
        }
        if let Some(c) = &self.catch_up {
            let mut next = (*self).clone();
            let mut c = c.clone();
            let done = {
                let mut sim = next.sim.borrow_mut();
                let done = catch_up(
                    &mut sim,
                    c.target,
                    &next.user_log,
                    &mut c.next_action,
                    MAX_SPEED_BUDGET_MS,
                );
                next.travel.borrow_mut().record(&sim);
                done
            };
            if done {
                next.playing = c.resume && self.status().is_live();
                next.last_tick_ms = None;
                next.catch_up = None;
                return next.jumped();
            }
            next.catch_up = Some(c);
            return next.changed();
        }
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
            } else if self.speed == Speed::Max {
                MAX_SPEED_BUDGET_MS
            } else {
                TICK_BUDGET_MS
            };
            next.lagging = advance(&mut sim, self.speed, gap, budget);
            if !sim.status.is_live() {
                next.playing = false;
            }
            next.travel.borrow_mut().record(&sim);
        }
        next.changed()
    }
}

/// Advances `sim` by `gap_ms` of wall-clock time at `speed`, spending at most `budget_ms`.
/// Returns whether the budget ran out first (the simulation is then behind the wall clock).
pub fn advance(sim: &mut Simulation, speed: Speed, gap_ms: f64, budget_ms: f64) -> bool {
    let target = speed
        .micros_per_ms()
        .map(|per_ms| sim.now + (gap_ms * per_ms) as u64);
    let until = target.unwrap_or(Micros::MAX);
    if run_budgeted(sim, until, deadline(budget_ms), |_| false) == RunEnd::OutOfTime {
        return target.is_some();
    }
    let until = target.unwrap_or(sim.now).max(sim.now);
    sim.run_until(until);
    false
}

impl Reducible for State {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        if let Some(c) = &self.catch_up {
            // A re-run is catching up: time moves only towards its target.
            match action {
                Action::TogglePlay => {
                    let mut next = (*self).clone();
                    next.catch_up = Some(CatchUp {
                        resume: !c.resume,
                        ..c.clone()
                    });
                    return Rc::new(next);
                }
                Action::Step
                | Action::StepPhase
                | Action::Seek(_)
                | Action::Request(_)
                | Action::StartCompare => return self,
                _ => {}
            }
        }
        match action {
            Action::Tick(now_ms) => self.tick(now_ms),
            Action::TogglePlay => {
                let mut next = (*self).clone();
                next.playing = !self.playing && self.status().is_live();
                next.last_tick_ms = None;
                next.phase_stop = None;
                if next.playing {
                    Rc::new(next)
                } else {
                    // Paused: views throttled while playing catch up at once.
                    next.jumped()
                }
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
                next.phase_stop = None;
                next.jumped()
            }
            Action::StepPhase => {
                let mut next = (*self).clone();
                next.playing = false;
                next.last_tick_ms = None;
                {
                    let mut sim = next.sim.borrow_mut();
                    let stop = crate::phase::step_to_phase(
                        &mut sim,
                        self.phase_stop.as_ref().and_then(|s| s.seq),
                        crate::phase::PHASE_STEP_BUDGET_MS,
                    );
                    next.phase_stop = Some(Rc::new(stop));
                    next.travel.borrow_mut().record(&sim);
                }
                next.jumped()
            }
            Action::Request(request) => self.act(UserAction::Request(request)),
            Action::RestoreFrom(id) => self.act(UserAction::RestoreFrom(id)),
            Action::CancelJob => self.act(UserAction::Cancel),
            Action::RestoreStored(stored) => crate::storage::restore_into(self, &stored),
            Action::Rescale(operator, parallelism) => {
                // A forward chain changes together (FORWARD needs equal parallelism).
                let group = crate::faults::forward_group(&self.sim.borrow().scenario, &operator);
                let changes = group.into_iter().map(|o| (o, parallelism)).collect();
                self.act(UserAction::Rescale(changes))
            }
            Action::AddFault(fault) => {
                if self.catch_up.is_some() {
                    return self;
                }
                let mut scenario = (*self.scenario).clone();
                scenario.faults.push(fault);
                self.rerun(scenario)
            }
            Action::ReplaceFault(i, fault) => {
                if self.catch_up.is_some() || i >= self.scenario.faults.len() {
                    return self;
                }
                let mut scenario = (*self.scenario).clone();
                scenario.faults[i] = fault;
                self.rerun(scenario)
            }
            Action::RemoveFault(i) => {
                if self.catch_up.is_some() || i >= self.scenario.faults.len() {
                    return self;
                }
                let mut scenario = (*self.scenario).clone();
                scenario.faults.remove(i);
                self.rerun(scenario)
            }

            Action::ApplyScenario(scenario) => {
                let mut scenario = *scenario;
                barrierlab_engine::scenario::identify(&self.preset, &mut scenario);
                if let Some(pending) = crate::consent::for_scenario(&scenario) {
                    return crate::consent::ask(&self, pending);
                }
                match Simulation::new(scenario) {
                    Ok(sim) => {
                        let name = self.preset.clone();
                        let mut next = State::with_sim(sim, None, &name, true, self.speed);
                        next.custom =
                            barrierlab_engine::scenario::preset(&next.scenario.name).is_none();
                        next.version = self.version + 1;
                        Rc::new(next)
                    }
                    Err(e) => {
                        let mut next = (*self).clone();
                        next.error = Some(e);
                        next.version += 1;
                        Rc::new(next)
                    }
                }
            }
            Action::Inspect(task) => {
                let mut next = (*self).clone();
                if task.is_some() && task == self.inspected && !self.fault_menu_open {
                    // Selected by a tutorial step: a click opens its menu rather than closing.
                    next.fault_menu_open = true;
                } else {
                    next.inspected = if self.inspected == task { None } else { task };
                    next.fault_menu_open = next.inspected.is_some();
                }
                Rc::new(next)
            }
            Action::Seek(t) => {
                let restored = self.travel.borrow().seek(t);
                let Some(sim) = restored else { return self };
                let mut next = (*self).clone();
                next.playing = false;
                next.last_tick_ms = None;
                next.sim = Rc::new(RefCell::new(sim));
                next.report = None;
                next.jumped()
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
            Action::OpenHash(hash) => {
                if let Some(next) = crate::tutorial::link::on_hash(&self, &hash) {
                    return next;
                }
                if let Some(pending) = crate::share::over_budget_link(&hash) {
                    return crate::consent::ask(&self, pending);
                }
                let mut next = match crate::share::state_from_hash(&hash) {
                    Ok(Some(next)) => next,
                    Ok(None) => return self,
                    Err(message) => {
                        // A bad link keeps the running job and says why.
                        let mut next = (*self).clone();
                        next.notice = Some((message, "The running job continues."));
                        next.version += 1;
                        return Rc::new(next);
                    }
                };
                next.version = self.version + 1;
                Rc::new(next)
            }
            Action::Tutorial(action) => crate::tutorial::reduce(self, action),
            Action::Rename { name, description } => {
                let name = name.trim().to_string();
                if name.is_empty() || self.catch_up.is_some() {
                    return self;
                }
                let mut next = (*self).clone();
                let mut scenario = (*self.scenario).clone();
                scenario.name = name;
                scenario.description = description.trim().to_string();
                // The name is not part of the run: the job keeps going, only its label changes.
                {
                    let mut sim = next.sim.borrow_mut();
                    sim.scenario.name = scenario.name.clone();
                    sim.scenario.description = scenario.description.clone();
                }
                next.scenario = Rc::new(scenario);
                next.custom = true;
                next.version += 1;
                Rc::new(next)
            }
            Action::RestoreWork(scenario) => {
                // Only onto the untouched first page: a link or a choice made since wins.
                let default_seed =
                    barrierlab_engine::scenario::preset(DEFAULT_PRESET).map(|p| p.seed);
                let untouched = self.preset == DEFAULT_PRESET && Some(self.seed) == default_seed;
                if self.custom || self.link.is_some() || self.tutorial.is_some() || !untouched {
                    return self;
                }
                if let Some(pending) = crate::consent::for_scenario(&scenario) {
                    return crate::consent::ask(&self, pending);
                }
                match crate::share::state_from_scenario(*scenario, self.speed) {
                    Ok(mut next) => {
                        next.version = self.version + 1;
                        next.notice = Some((
                            "Reopened the scenario you were working on.".to_string(),
                            "Choose a preset to start fresh.",
                        ));
                        Rc::new(next)
                    }
                    Err(_) => self,
                }
            }
            Action::RunAnyway => crate::consent::run_anyway(self),
            Action::DeclineConsent => crate::consent::decline(self),
            Action::DismissNotice => {
                let mut next = (*self).clone();
                next.notice = None;
                next.version += 1;
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
