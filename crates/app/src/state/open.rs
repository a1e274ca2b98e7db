//! New jobs from outside the page: the link or tutorial in the page's fragment, a tutorial step,
//! a stored checkpoint, the work of the last visit, each asking first when it is over the cost
//! budget (`consent.rs`). The modules that read them (`share`, `tutorial`, `storage`) return an
//! `Opened`; here it replaces the running job.

use std::rc::Rc;

use barrierlab_engine::scenario::{preset, Scenario};
use barrierlab_engine::share::{Link, LATEST_VERSION};
use barrierlab_engine::storage::StoredCheckpoint;

use super::{default_sim, Keep, State};
use crate::consent::PendingConsent;
use crate::job::{Opened, DEFAULT_PRESET};
use crate::tutorial::link::{parse, Parsed, Request};
use crate::tutorial::{TutorialAction, TutorialView};

impl State {
    /// The page's first state, for the fragment it opened with: its tutorial or link, else the
    /// seed demo (saying why, if the link does not load).
    pub fn open(hash: &str) -> State {
        if let Some(Parsed { request, embed }) = parse(hash) {
            let mut state = State::initial().open_tutorial(request);
            state.ui.embed = embed;
            return state;
        }
        if let Some(pending) = crate::share::over_budget_link(hash) {
            // The demo waits, paused, while the question is open.
            let mut state = State::new(Opened {
                playing: false,
                ..Opened::new(default_sim(), DEFAULT_PRESET)
            });
            state.ui.consent = Some(Rc::new(pending));
            return state;
        }
        match crate::share::opened_from_hash(hash) {
            Ok(Some(opened)) => State::new(opened),
            Ok(None) => State::initial(),
            Err(message) => {
                let mut state = State::initial();
                state.ui.notice = Some((message, "Showing the demo job instead."));
                state
            }
        }
    }

    /// A fragment pasted into the open page.
    pub(super) fn open_hash(self: Rc<Self>, hash: &str) -> Rc<State> {
        if let Some(Parsed { request, .. }) = parse(hash) {
            return Rc::new(self.open_tutorial(request));
        }
        if let Some(pending) = crate::share::over_budget_link(hash) {
            return self.ask(pending);
        }
        match crate::share::opened_from_hash(hash) {
            Ok(Some(opened)) => Rc::new(self.replace_job(opened, Keep::Nothing)),
            Ok(None) => self,
            Err(message) => {
                // A bad link keeps the running job and says why.
                let mut next = (*self).clone();
                next.ui.notice = Some((message, "The running job continues."));
                Rc::new(next)
            }
        }
    }

    /// A tutorial fragment's request: the step, the picker (saying why a step does not open),
    /// or, for a tutorial file's URL, the picker loading it (the tutorial panel fetches it).
    fn open_tutorial(&self, request: Request) -> State {
        match request {
            Request::Picker => self.picker(None),
            Request::Step(id, step) => step
                .and_then(|n| self.tutorial_step(&id, n))
                .unwrap_or_else(|e| self.picker(Some(e))),
            Request::Url(url, Ok(step)) => self.with_tutorial(TutorialView::Loading { url, step }),
            Request::Url(_, Err(e)) => self.picker(Some(e)),
        }
    }

    pub(super) fn tutorial(&self, action: TutorialAction) -> State {
        match action {
            TutorialAction::Picker => self.picker(None),
            TutorialAction::Close => {
                let mut next = self.clone();
                next.ui.tutorial = None;
                next
            }
            TutorialAction::Go(id, step) => self
                .tutorial_step(&id, step)
                .unwrap_or_else(|e| self.picker(Some(e))),
            TutorialAction::Loaded { source, text, step } => {
                match text.and_then(|text| crate::tutorial::load(&text, source)) {
                    Ok(t) => self.tutorial(TutorialAction::Go(t.id.clone(), step)),
                    Err(e) => self.picker(Some(e)),
                }
            }
        }
    }

    /// Step `step` (0-based) of tutorial `id` as the page's job, paused, or why not.
    fn tutorial_step(&self, id: &str, step: usize) -> Result<State, String> {
        let (opened, view) = crate::tutorial::open(id, step)?;
        let mut next = self.replace_job(opened, Keep::Nothing);
        next.ui.tutorial = Some(Rc::new(view));
        Ok(next)
    }

    /// The same job under another tutorial band.
    fn with_tutorial(&self, view: TutorialView) -> State {
        let mut next = self.clone();
        next.ui.tutorial = Some(Rc::new(view));
        next
    }

    /// The same job with the tutorial picker, saying why a tutorial did not open.
    fn picker(&self, message: Option<String>) -> State {
        self.with_tutorial(TutorialView::Picker { message })
    }

    /// `flink run -s`: the stored checkpoint's job, restored from it, replaces the running one
    /// (asking first if it is over the cost budget, as a link to it would).
    pub(super) fn restore_stored(self: Rc<Self>, stored: &Rc<StoredCheckpoint>) -> Rc<State> {
        if let Some(mut pending) = crate::consent::for_scenario(&stored.scenario) {
            pending.stored = Some(stored.clone());
            return self.ask(pending);
        }
        Rc::new(self.restore(stored, false))
    }

    /// [`State::restore_stored`]; `consented`: the user chose to run it over the cost budget. A
    /// checkpoint that does not restore leaves the running job and says why.
    fn restore(&self, stored: &StoredCheckpoint, consented: bool) -> State {
        match crate::storage::open_stored(stored, consented) {
            Ok(opened) => {
                // The restored job goes on as the running one did: playing or paused.
                let opened = Opened {
                    playing: self.ui.playing,
                    ..opened
                };
                self.replace_job(opened, Keep::Nothing)
            }
            Err(e) => {
                let mut next = self.clone();
                next.ui.recovery_error = Some(e);
                next
            }
        }
    }

    /// Reopens the scenario of the last visit, only onto the untouched first page: a link or a
    /// choice made since wins.
    pub(super) fn restore_work(self: Rc<Self>, scenario: Scenario) -> Rc<State> {
        let default_seed = preset(DEFAULT_PRESET).map(|p| p.seed);
        let untouched = self.job.preset == DEFAULT_PRESET && Some(self.job.seed()) == default_seed;
        if self.job.custom || self.ui.link.is_some() || self.ui.tutorial.is_some() || !untouched {
            return self;
        }
        if let Some(pending) = crate::consent::for_scenario(&scenario) {
            return self.ask(pending);
        }
        match crate::share::open_scenario(scenario, false) {
            Ok(opened) => {
                let notice = Some((
                    "Reopened the scenario you were working on.".to_string(),
                    "Choose a preset to start fresh.",
                ));
                Rc::new(self.replace_job(Opened { notice, ..opened }, Keep::Nothing))
            }
            Err(_) => self,
        }
    }

    /// The question for a scenario over the cost budget; the running job goes on meanwhile.
    pub(super) fn ask(&self, pending: PendingConsent) -> Rc<State> {
        let mut next = self.clone();
        next.ui.consent = Some(Rc::new(pending));
        Rc::new(next)
    }

    /// "Run anyway": the pending scenario starts as the edit, link or stored checkpoint it came
    /// from would have.
    pub(super) fn run_anyway(self: Rc<Self>) -> Rc<State> {
        let Some(pending) = self.ui.consent.clone() else {
            return self;
        };
        let pending = (*pending).clone();
        let mut base = (*self).clone();
        base.ui.consent = None;
        if let Some(stored) = pending.stored {
            return Rc::new(base.restore(&stored, true));
        }
        let opened = match pending.link {
            Some(options) => crate::share::open_link(
                Link {
                    version: LATEST_VERSION,
                    scenario: pending.scenario,
                    options,
                },
                true,
            ),
            None => crate::share::open_scenario(pending.scenario, true),
        };
        match opened {
            Ok(opened) => Rc::new(self.replace_job(opened, Keep::Nothing)),
            Err(e) => {
                base.ui.error = Some(e);
                Rc::new(base)
            }
        }
    }
}
