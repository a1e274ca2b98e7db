//! The reducer's rules, natively: what each action does to the page's state.

use std::rc::Rc;

use barrierlab_engine::scenario::fuzz::over_budget_example;
use barrierlab_engine::scenario::{parse_fail_flag, preset, Fault};
use barrierlab_engine::sim::UserRequest;
use yew::Reducible;

use crate::speed::Speed;
use crate::state::{Action, State};

fn fresh() -> Rc<State> {
    Rc::new(State::initial())
}

/// Runs the page's simulation to `seconds` (what ticks do, without a wall clock).
fn at(state: Rc<State>, seconds: u64) -> Rc<State> {
    let mut state = (*state).clone();
    Rc::make_mut(&mut state.job)
        .sim_mut()
        .0
        .run_until(seconds * 1_000_000);
    Rc::new(state)
}

/// The page's simulated time.
fn now(state: &State) -> u64 {
    state.job.sim().borrow().now
}

fn kill() -> Fault {
    parse_fail_flag("count-per-key#1@3s").unwrap()
}

/// Lets a re-run catch up, as ticks would.
fn settle(mut state: Rc<State>) -> Rc<State> {
    for _ in 0..10_000 {
        if state.job.catch_up.is_none() {
            break;
        }
        state = state.reduce(Action::Tick {
            now_ms: 0.0,
            render_ms: 0.0,
        });
    }
    assert!(state.job.catch_up.is_none(), "the re-run never caught up");
    state
}

#[test]
fn the_first_page_runs_the_demo_job_at_1x() {
    let s = fresh();
    assert_eq!(s.job.preset, "seed-demo");
    assert!(s.ui.playing);
    assert_eq!(s.ui.speed, Speed::One);
    assert!(!s.job.custom);
}

#[test]
fn pausing_and_playing_toggle_and_a_finished_job_cannot_play() {
    let s = fresh().reduce(Action::TogglePlay);
    assert!(!s.ui.playing);
    let s = s.reduce(Action::TogglePlay);
    assert!(s.ui.playing);
    let s = at(s, 2).reduce(Action::Request(UserRequest::StopWithSavepoint));
    let s = at(s, 10);
    assert!(!s.status().is_live());
    let s = s.reduce(Action::TogglePlay).reduce(Action::TogglePlay);
    assert!(!s.ui.playing, "a finished job does not play");
}

#[test]
fn a_fault_edit_reruns_to_the_same_time_and_names_the_scenario() {
    let s = at(fresh(), 5);
    let s = s.reduce(Action::AddFault(kill()));
    assert!(s.job.catch_up.is_some(), "the edit re-runs from time 0");
    let s = settle(s);
    assert_eq!(now(&s), 5_000_000);
    assert!(s.job.custom);
    assert_eq!(s.job.scenario.name, "custom: seed-demo + 1 fault");
    // Removing it gives the preset back, name and all.
    let s = settle(s.reduce(Action::RemoveFault(0)));
    assert_eq!(s.job.scenario.name, "seed-demo");
    assert!(!s.job.custom);
}

#[test]
fn while_a_rerun_catches_up_time_only_moves_towards_it() {
    let s = at(fresh(), 5).reduce(Action::AddFault(kill()));
    let t = now(&s);
    for action in [
        Action::Step,
        Action::StepPhase,
        Action::Seek(1_000_000),
        Action::Request(UserRequest::Checkpoint),
        Action::StartCompare,
    ] {
        let next = s.clone().reduce(action);
        assert!(Rc::ptr_eq(&next, &s), "ignored during catch-up");
    }
    // Play/pause only changes whether it resumes afterwards.
    let toggled = s.clone().reduce(Action::TogglePlay);
    assert_ne!(
        toggled.job.catch_up.as_ref().map(|c| c.resume),
        s.job.catch_up.as_ref().map(|c| c.resume)
    );
    assert_eq!(now(&toggled), t, "no time passes");
}

#[test]
fn an_invalid_scenario_keeps_the_running_job_and_says_why() {
    let s = at(fresh(), 2);
    let mut bad = preset("seed-demo").unwrap();
    bad.operators.clear();
    let next = s.clone().reduce(Action::ApplyScenario(Box::new(bad)));
    assert!(next.ui.error.is_some());
    assert!(
        next.job.sim().cell == s.job.sim().cell,
        "the job keeps running"
    );
}

#[test]
fn a_name_of_ones_own_survives_further_edits() {
    let s = settle(at(fresh(), 4).reduce(Action::AddFault(kill())));
    let s = s.reduce(Action::Rename {
        name: "  my lesson ".into(),
        description: "about kills".into(),
    });
    assert_eq!(s.job.scenario.name, "my lesson");
    assert_eq!(
        s.job.sim().borrow().scenario.name,
        "my lesson",
        "the job's label follows"
    );
    let s = settle(s.reduce(Action::RemoveFault(0)));
    assert_eq!(
        (
            s.job.scenario.name.as_str(),
            s.job.scenario.description.as_str()
        ),
        ("my lesson", "about kills")
    );
    // An empty name is refused.
    let same = s.clone().reduce(Action::Rename {
        name: " ".into(),
        description: String::new(),
    });
    assert!(Rc::ptr_eq(&same, &s));
}

#[test]
fn stored_work_reopens_only_on_an_untouched_first_page() {
    let mut work = preset("seed-backpressure").unwrap();
    work.name = "mine".into();
    let reopened = fresh().reduce(Action::RestoreWork(Box::new(work.clone())));
    assert_eq!(reopened.job.scenario.name, "mine");
    assert!(reopened.job.custom);
    assert!(reopened.ui.notice.is_some());
    // After the user chose something, the stored work does not take over.
    let chosen = fresh().reduce(Action::LoadPreset("seed-unaligned".into()));
    let kept = chosen
        .clone()
        .reduce(Action::RestoreWork(Box::new(work.clone())));
    assert!(Rc::ptr_eq(&kept, &chosen));
    let reseeded = fresh().reduce(Action::SetSeed(42));
    let kept = reseeded.clone().reduce(Action::RestoreWork(Box::new(work)));
    assert!(Rc::ptr_eq(&kept, &reseeded));
}

#[test]
fn a_new_seed_reloads_from_time_zero_and_keeps_playing() {
    let s = at(fresh(), 3).reduce(Action::SetSeed(7));
    assert_eq!(s.job.seed(), 7);
    assert_eq!(s.job.sim().borrow().now, 0);
    assert!(s.ui.playing);
    assert_eq!(s.job.sim().borrow().scenario.seed, 7);
}

#[test]
fn an_over_budget_scenario_waits_for_consent_and_the_job_goes_on() {
    let s = at(fresh(), 2);
    let sim = s.job.sim().cell.clone();
    let s = s.reduce(Action::ApplyScenario(Box::new(over_budget_example())));
    let pending = s.ui.consent.clone().expect("asks first");
    assert!(
        pending.message.contains("above the budget"),
        "{}",
        pending.message
    );
    assert!(s.job.sim().cell == sim, "the running job is kept");
    // "Keep the running job": the question closes, nothing else changes.
    let kept = s.clone().reduce(Action::DeclineConsent);
    assert!(kept.ui.consent.is_none());
    assert!(kept.job.sim().cell == sim);
    // "Run anyway": the heavy job runs, and its re-runs do not ask again.
    let ran = s.reduce(Action::RunAnyway);
    assert!(ran.ui.consent.is_none());
    assert!(ran.over_budget_ok());
    assert_eq!(ran.job.sim().borrow().tasks.len(), 2 * 256);
    let reset = ran.reduce(Action::SetSeed(9));
    assert_eq!(
        reset.job.sim().borrow().tasks.len(),
        2 * 256,
        "a new seed keeps the heavy job"
    );
    assert!(reset.ui.consent.is_none());
}

#[test]
fn an_over_budget_link_asks_before_it_replaces_the_job() {
    use barrierlab_engine::share::{encode, LinkOptions};
    let s = fresh();
    let hash = encode(&over_budget_example(), &LinkOptions::default());
    let s2 = s.clone().reduce(Action::OpenHash(hash));
    assert!(s2.ui.consent.as_ref().is_some_and(|c| c.link.is_some()));
    assert!(s2.job.sim().cell == s.job.sim().cell);
    let ran = s2.reduce(Action::RunAnyway);
    assert_eq!(ran.job.sim().borrow().tasks.len(), 2 * 256);
    assert!(
        ran.ui.link.is_some(),
        "opened as the link, with its options"
    );
}

#[test]
fn restoring_a_stored_checkpoint_of_an_over_budget_job_asks_first() {
    use barrierlab_engine::sim::Simulation;
    use barrierlab_engine::storage::{CheckpointStorage, StorageEffect};
    let mut sim = Simulation::new_over_budget(over_budget_example()).unwrap();
    let mut storage = CheckpointStorage::attach(&sim);
    let mut stored = None;
    while stored.is_none() && sim.now < 3_000_000 {
        sim.run_until(sim.now + 100_000);
        stored = storage.poll(&sim).into_iter().find_map(|e| match e {
            StorageEffect::Store(s) => Some(s),
            _ => None,
        });
    }
    let stored = Rc::new(*stored.expect("a checkpoint completed"));
    let s = fresh();
    let asked = s.clone().reduce(Action::RestoreStored(stored));
    assert!(asked
        .ui
        .consent
        .as_ref()
        .is_some_and(|c| c.stored.is_some()));
    assert!(
        asked.job.sim().cell == s.job.sim().cell,
        "the running job is kept"
    );
    let restored = asked.reduce(Action::RunAnyway);
    assert!(restored.ui.consent.is_none());
    assert_eq!(restored.job.sim().borrow().tasks.len(), 2 * 256);
    assert_eq!(
        restored
            .job
            .sim()
            .borrow()
            .coordinator
            .stats()
            .counts
            .restored,
        1
    );
}
