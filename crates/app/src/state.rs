//! The page's state, as a Yew reducer (after Yew's `function_todomvc` example): the running job
//! (`job.rs`) and the page around it (`Ui`). The job is replaced in one place,
//! `State::replace_job`, which decides what of the page survives; and a state whose job changed
//! gets the next version in one place, `reduce`. Components compare that version (`SimRef`).

mod edit;
mod open;
mod playback;

pub(crate) use playback::advance_owing;

use std::rc::Rc;

use barrierlab_engine::scenario::{preset, Fault, Scenario};
use barrierlab_engine::share::LinkOptions;
use barrierlab_engine::sim::{JobStatus, Simulation, UserRequest};
use barrierlab_engine::storage::StoredCheckpoint;
use barrierlab_engine::types::Micros;
use yew::prelude::*;

use crate::consent::PendingConsent;
use crate::derived::Pace;
use crate::faults::{CatchUp, UserAction};
use crate::job::{Job, Notice, Opened, DEFAULT_PRESET};
use crate::phase::PhaseStop;
use crate::speed::Speed;
use crate::tutorial::{TutorialAction, TutorialView};

/// Everything the reducer can be asked to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// The timer fired at wall-clock time `now_ms`; the last tick's render took `render_ms`.
    Tick {
        now_ms: f64,
        render_ms: f64,
    },
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
    RestoreStored(Rc<StoredCheckpoint>),
    /// Open, move through or close a tutorial (`tutorial/`).
    Tutorial(TutorialAction),
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

#[derive(Clone)]
pub struct State {
    /// Shared with the states before it until it changes (`Rc::make_mut`).
    pub job: Rc<Job>,
    pub ui: Ui,
}

/// Equal only to itself: a reducer that returns the very state it was given changed nothing (a
/// tick while the worker has no update, a paused tick), and `use_reducer_eq` then skips the
/// render. Any other state is a new `Rc`, rendered as before.
impl PartialEq for State {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}

/// The page around the job: how it plays, what is selected and open, what the user is told.
#[derive(Clone, Default)]
pub struct Ui {
    pub playing: bool,
    pub speed: Speed,
    /// When the last tick while playing was (wall clock, ms).
    last_tick_ms: Option<f64>,
    /// Simulated time the last tick aimed at (at 1x and the other fixed speeds): what it did not
    /// reach is made up by the next ticks and the frames between them, while playing on from
    /// `last_tick_ms`.
    aim: Option<Micros>,
    /// How the worker spent its time before its last update, while it plays the job.
    pub worker_load: Option<crate::worker::play::Load>,
    pub help_open: bool,
    /// The task index the inspector shows.
    pub inspected: Option<u32>,
    /// Whether the inspected subtask's fault menu is open: a click on a subtask in the graph
    /// opens it; a tutorial step that only points at a subtask does not.
    pub fault_menu_open: bool,
    /// The chrome-less view for iframes (`embed=1`).
    pub embed: bool,
    /// The options of the link the page opened, if it opened one.
    pub link: Option<Rc<LinkOptions>>,
    /// The tutorial band: the picker or a step reached (`tutorial/`).
    pub tutorial: Option<Rc<TutorialView>>,
    /// Where the last "step to the next checkpoint phase" stopped.
    pub phase_stop: Option<Rc<PhaseStop>>,
    /// A scenario over the cost budget, waiting for the user's "Run anyway" (`consent.rs`).
    pub consent: Option<Rc<PendingConsent>>,
    /// Why the scenario could not be loaded, if it could not.
    pub error: Option<String>,
    /// Why the last restore or rescale was refused.
    pub recovery_error: Option<String>,
    /// Why the last fault edit was refused (the scenario would not validate).
    pub fault_error: Option<String>,
    /// Why the link in the URL did not load, and what runs instead (dismissible).
    pub notice: Option<Notice>,
}

/// What a new job keeps of the old one besides the page's settings (see `State::replace_job`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Keep {
    /// Another job: nothing.
    Nothing,
    /// The same job re-run from time 0 with an edit (a fault edit): the user's actions up to
    /// now (the catch-up re-applies them), the selected subtask and its menu, the comparison.
    Work,
}

/// The default preset's simulation (also what runs when a scenario does not load).
fn default_sim() -> Simulation {
    let scenario = preset(DEFAULT_PRESET).expect("the default preset exists");
    Simulation::new(scenario).expect("the default preset is valid")
}

impl State {
    /// A page of its own running `opened` (at 1× unless it brings a speed).
    fn new(opened: Opened) -> State {
        let Opened {
            sim,
            preset,
            custom,
            playing,
            speed,
            travel,
            catch_up,
            link,
            inspected,
            notice,
        } = opened;
        State {
            job: Rc::new(Job::new(sim, preset, custom, travel, catch_up)),
            ui: Ui {
                playing,
                speed: speed.unwrap_or_default(),
                inspected,
                embed: link.as_ref().is_some_and(|l| l.embed),
                link: link.map(Rc::new),
                notice,
                ..Ui::default()
            },
        }
    }

    /// The page's first state: the seed's demo job, running at 1×.
    pub fn initial() -> State {
        State::new(Opened::new(default_sim(), DEFAULT_PRESET))
    }

    /// This page with `opened` instead of its job. What survives is decided here and only here:
    /// - the page's settings: the speed (unless the new job brings its own) and the embed view
    ///   (unless the new job's link says otherwise);
    /// - with `Keep::Work`, the work on the old job (see `Keep`).
    ///
    /// Everything else belonged to the old job and goes: the selection, time travel, the link
    /// or tutorial it was opened from, the help, the phase stop, a consent question and every
    /// message. `reduce` gives the new job the next version.
    fn replace_job(&self, opened: Opened, keep: Keep) -> State {
        let speed = opened.speed.unwrap_or(self.ui.speed);
        let embed = opened.link.as_ref().map_or(self.ui.embed, |l| l.embed);
        let mut next = State::new(opened);
        next.ui.speed = speed;
        next.ui.embed = embed;
        if keep == Keep::Work {
            let job = Rc::make_mut(&mut next.job);
            job.user_log = Rc::new(self.job.log_until(self.job.sim().borrow().now));
            job.compare = self.job.compare.clone();
            next.ui.inspected = self.ui.inspected;
            next.ui.fault_menu_open = self.ui.fault_menu_open;
        }
        next
    }

    /// The job is behind the wall clock: the last tick ran out of budget before its aim.
    pub fn lagging(&self) -> bool {
        self.ui.speed != Speed::Max
            && self
                .ui
                .aim
                .is_some_and(|aim| aim > self.job.sim().borrow().now)
    }

    /// The job's version: it moves whenever the job changed.
    pub fn version(&self) -> u64 {
        self.job.version()
    }

    pub fn status(&self) -> JobStatus {
        self.job.sim().borrow().status
    }

    /// The running job is over the cost budget by the user's choice: its re-runs (reset, new
    /// seed, fault edits) need not ask again.
    pub fn over_budget_ok(&self) -> bool {
        self.job.sim().borrow().over_budget_consented
    }

    /// How the job moves: what decides how often views are rebuilt.
    pub fn pace(&self) -> Pace {
        Pace {
            playing: self.ui.playing,
            speed: self.ui.speed,
            catching_up: self.job.catch_up.is_some(),
        }
    }

    /// After the job moved on: its views are refreshed as the pace allows.
    fn changed(mut self) -> Rc<State> {
        let pace = self.pace();
        Rc::make_mut(&mut self.job).refresh(pace, false);
        Rc::new(self)
    }

    /// Like `changed`, rebuilding every view (after a jump: seek, restore, pause).
    fn jumped(mut self) -> Rc<State> {
        let pace = self.pace();
        Rc::make_mut(&mut self.job).refresh(pace, true);
        Rc::new(self)
    }

    /// Applies a user action to the live job, logs it, and forks time travel.
    fn act(self: Rc<Self>, action: UserAction) -> Rc<State> {
        if self.job.catch_up.is_some() {
            return self;
        }
        let mut next = (*self).clone();
        let result = Rc::make_mut(&mut next.job).act(action);
        next.ui.recovery_error = result.err();
        next.jumped()
    }

    fn apply(self: Rc<Self>, action: Action) -> Rc<State> {
        if let Some(c) = &self.job.catch_up {
            // A re-run is catching up: time moves only towards its target.
            match action {
                Action::TogglePlay => {
                    let mut next = (*self).clone();
                    Rc::make_mut(&mut next.job).catch_up = Some(CatchUp {
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
            Action::Tick { now_ms, render_ms } => self.tick(now_ms, render_ms),
            Action::TogglePlay => self.toggle_play(),
            Action::SetSpeed(speed) => {
                let mut next = (*self).clone();
                next.ui.speed = speed;
                Rc::new(next)
            }
            Action::Step => self.step(),
            Action::StepPhase => self.step_phase(),
            Action::Seek(t) => self.seek(t),
            Action::Request(request) => self.act(UserAction::Request(request)),
            Action::RestoreFrom(id) => self.act(UserAction::RestoreFrom(id)),
            Action::CancelJob => self.act(UserAction::Cancel),
            Action::Rescale(operator, parallelism) => {
                // A forward chain changes together (FORWARD needs equal parallelism).
                let group =
                    crate::faults::forward_group(&self.job.sim().borrow().scenario, &operator);
                let changes = group.into_iter().map(|o| (o, parallelism)).collect();
                self.act(UserAction::Rescale(changes))
            }
            Action::AddFault(fault) => {
                if self.job.catch_up.is_some() {
                    return self;
                }
                let mut scenario = (*self.job.scenario).clone();
                scenario.faults.push(fault);
                self.rerun(scenario)
            }
            Action::ReplaceFault(i, fault) => {
                if self.job.catch_up.is_some() || i >= self.job.scenario.faults.len() {
                    return self;
                }
                let mut scenario = (*self.job.scenario).clone();
                scenario.faults[i] = fault;
                self.rerun(scenario)
            }
            Action::RemoveFault(i) => {
                if self.job.catch_up.is_some() || i >= self.job.scenario.faults.len() {
                    return self;
                }
                let mut scenario = (*self.job.scenario).clone();
                scenario.faults.remove(i);
                self.rerun(scenario)
            }
            Action::ApplyScenario(scenario) => self.apply_scenario(*scenario),
            Action::Rename { name, description } => self.rename(name, description),
            Action::StartCompare => self.start_compare(),
            Action::StopCompare => {
                let mut next = (*self).clone();
                Rc::make_mut(&mut next.job).compare = None;
                Rc::new(next)
            }
            // Reset and a new seed keep playing or stay paused (at time 0, ready to step).
            Action::Reset => {
                let playing = self.ui.playing || !self.status().is_live();
                Rc::new(self.reload(self.job.seed(), playing))
            }
            Action::SetSeed(seed) => {
                let playing = self.ui.playing || !self.status().is_live();
                Rc::new(self.reload(seed, playing))
            }
            Action::LoadPreset(name) => Rc::new(self.load(&name, None, true)),
            Action::OpenHash(hash) => self.open_hash(&hash),
            Action::Tutorial(action) => Rc::new(self.tutorial(action)),
            Action::RestoreStored(stored) => self.restore_stored(&stored),
            Action::RestoreWork(scenario) => self.restore_work(*scenario),
            Action::RunAnyway => self.run_anyway(),
            Action::DeclineConsent => {
                let mut next = (*self).clone();
                next.ui.consent = None;
                Rc::new(next)
            }
            Action::DismissNotice => {
                let mut next = (*self).clone();
                next.ui.notice = None;
                Rc::new(next)
            }
            Action::Inspect(task) => {
                let mut next = (*self).clone();
                let ui = &mut next.ui;
                if task.is_some() && task == self.ui.inspected && !self.ui.fault_menu_open {
                    // Selected by a tutorial step: a click opens its menu rather than closing.
                    ui.fault_menu_open = true;
                } else {
                    ui.inspected = if self.ui.inspected == task {
                        None
                    } else {
                        task
                    };
                    ui.fault_menu_open = ui.inspected.is_some();
                }
                Rc::new(next)
            }
            Action::ToggleHelp => {
                let mut next = (*self).clone();
                next.ui.help_open = !self.ui.help_open;
                Rc::new(next)
            }
            Action::CloseHelp => {
                if !self.ui.help_open {
                    return self;
                }
                let mut next = (*self).clone();
                next.ui.help_open = false;
                Rc::new(next)
            }
        }
    }
}

impl Reducible for State {
    type Action = Action;

    /// Applies `action`; a state whose job changed (replaced, or changed through
    /// `Rc::make_mut`) gets the job's next version here, the one place versions move.
    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        // Holding the old job also makes every `Rc::make_mut` of it in `apply` a copy.
        let before = self.job.clone();
        let mut next = self.apply(action);
        if !Rc::ptr_eq(&before, &next.job) {
            Rc::make_mut(&mut Rc::make_mut(&mut next).job).set_version(before.version() + 1);
        }
        next
    }
}

#[cfg(test)]
mod tests;
