//! What survives when the job is replaced (`State::replace_job`), and how the version moves
//! (`State::reduce`).

use std::rc::Rc;

use barrierlab_engine::scenario::{parse_fail_flag, preset};
use barrierlab_engine::share::{encode, LinkOptions};
use barrierlab_engine::sim::{Simulation, UserRequest};
use barrierlab_engine::storage::{CheckpointStorage, StorageEffect, StoredCheckpoint};
use yew::Reducible;

use super::{Action, State};
use crate::speed::Speed;
use crate::tutorial::{built_in, Highlight, TutorialAction};

/// A page with something of everything: its own speed, a logged user action, a phase stop, a
/// selected subtask with its menu open, a comparison, the help, the tutorial picker, a refused
/// restore and a notice.
fn busy_page() -> Rc<State> {
    let s = [
        Action::SetSpeed(Speed::Five),
        Action::Request(UserRequest::Checkpoint),
        Action::StepPhase,
        Action::Inspect(Some(0)),
        Action::StartCompare,
        Action::ToggleHelp,
        Action::Tutorial(TutorialAction::Picker),
        Action::RestoreFrom(99),
        Action::OpenHash("#v1.not-a-link".into()),
    ]
    .into_iter()
    .fold(Rc::new(State::initial()), |s, a| s.reduce(a));
    let ui = &s.ui;
    assert!(ui.phase_stop.is_some() && ui.fault_menu_open && ui.help_open);
    assert!(ui.tutorial.is_some() && ui.recovery_error.is_some() && ui.notice.is_some());
    assert!(s.job.compare.is_some() && s.job.user_log.len() == 1);
    s
}

fn link(options: LinkOptions) -> String {
    encode(&preset("seed-demo").unwrap(), &options)
}

#[test]
fn a_new_job_keeps_the_pages_settings_and_nothing_of_the_old_job() {
    let before = busy_page();
    let next = before
        .clone()
        .reduce(Action::LoadPreset("seed-unaligned".into()));
    assert_eq!(next.job.preset, "seed-unaligned");
    assert_eq!(next.ui.speed, Speed::Five, "the speed is the page's");
    assert!(next.ui.playing);
    let ui = &next.ui;
    assert_eq!(
        (ui.inspected, ui.fault_menu_open, ui.help_open),
        (None, false, false)
    );
    assert!(ui.phase_stop.is_none() && ui.tutorial.is_none() && ui.link.is_none());
    assert!(ui.recovery_error.is_none() && ui.notice.is_none());
    assert!(next.job.compare.is_none() && next.job.user_log.is_empty());
    assert_eq!(
        next.version(),
        before.version() + 1,
        "one version for the new job"
    );
}

#[test]
fn a_fault_edit_re_runs_the_same_job_and_keeps_the_work_on_it() {
    let before = busy_page();
    let fault = parse_fail_flag("count-per-key#1@3s").unwrap();
    let next = before.clone().reduce(Action::AddFault(fault));
    assert!(
        next.job.sim().cell != before.job.sim().cell,
        "a new simulation"
    );
    assert!(next.job.catch_up.is_some(), "catching up with where it was");
    assert_eq!(
        (next.ui.inspected, next.ui.fault_menu_open),
        (Some(0), true)
    );
    let (a, b) = (next.job.compare.as_ref(), before.job.compare.as_ref());
    assert!(Rc::ptr_eq(a.unwrap(), b.unwrap()), "the same comparison");
    assert_eq!(
        next.job.user_log, before.job.user_log,
        "the request is re-applied"
    );
    assert_eq!(next.ui.speed, Speed::Five);
    // The rest was about the run before the edit.
    assert!(!next.ui.help_open && next.ui.tutorial.is_none() && next.ui.notice.is_none());
    assert!(next.ui.phase_stop.is_none());
    assert_eq!(next.version(), before.version() + 1);
}

#[test]
fn a_change_to_the_job_is_one_version_and_a_change_to_the_page_none() {
    let s = Rc::new(State::initial());
    let v = s.version();
    for action in [
        Action::SetSpeed(Speed::Two),
        Action::ToggleHelp,
        Action::Inspect(Some(1)),
        Action::Tutorial(TutorialAction::Picker),
        Action::OpenHash("#v1.not-a-link".into()),
    ] {
        let next = s.clone().reduce(action.clone());
        assert!(Rc::ptr_eq(&next.job, &s.job), "{action:?} leaves the job");
        assert!(next.job.sim() == s.job.sim(), "{action:?}");
    }
    // `Step` changes the job twice (the step, then its views): still one version.
    for action in [
        Action::Step,
        Action::Request(UserRequest::Checkpoint),
        Action::StartCompare,
        Action::Reset,
        Action::LoadPreset("seed-unaligned".into()),
        Action::OpenHash(link(LinkOptions::default())),
    ] {
        let next = s.clone().reduce(action.clone());
        assert_eq!(next.version(), v + 1, "{action:?}");
        assert!(
            next.job.sim() != s.job.sim(),
            "{action:?} is seen by components"
        );
    }
}

#[test]
fn an_embed_stays_an_embed_until_a_link_says_otherwise() {
    let embedded = link(LinkOptions {
        embed: true,
        ..LinkOptions::default()
    });
    let s = Rc::new(State::open(&embedded));
    assert!(s.ui.embed);
    // `r` in an embed resets the job, not the view (it used to open the full playground).
    let reset = s.reduce(Action::Reset);
    assert!(reset.ui.embed);
    let full = reset.reduce(Action::OpenHash(link(LinkOptions::default())));
    assert!(
        !full.ui.embed,
        "a link without embed=1 is the full playground"
    );
}

#[test]
fn a_link_brings_its_own_speed_and_a_tutorial_step_keeps_the_pages() {
    let s = Rc::new(State::initial()).reduce(Action::SetSpeed(Speed::Five));
    let linked = s
        .clone()
        .reduce(Action::OpenHash(link(LinkOptions::default())));
    assert_eq!(linked.ui.speed, Speed::One, "a link without speed= is 1×");
    assert!(linked.ui.link.is_some());
    let step = s.reduce(Action::Tutorial(TutorialAction::Go("alignment".into(), 0)));
    assert_eq!(step.ui.speed, Speed::Five);
    assert!(step.ui.tutorial.is_some() && !step.ui.playing);
}

/// A checkpoint of the seed demo, as the storage panel keeps it.
fn stored_checkpoint() -> Rc<StoredCheckpoint> {
    let mut sim = Simulation::new(preset("seed-demo").unwrap()).unwrap();
    let mut storage = CheckpointStorage::attach(&sim);
    loop {
        assert!(sim.now < 30_000_000, "no checkpoint completed");
        sim.run_until(sim.now + 100_000);
        let stored = storage.poll(&sim).into_iter().find_map(|e| match e {
            StorageEffect::Store(s) => Some(s),
            _ => None,
        });
        if let Some(stored) = stored {
            return Rc::new(*stored);
        }
    }
}

#[test]
fn a_restored_job_plays_or_waits_as_the_running_one_did() {
    let stored = stored_checkpoint();
    let paused = Rc::new(State::initial())
        .reduce(Action::TogglePlay)
        .reduce(Action::Inspect(Some(0)));
    let restored = paused.clone().reduce(Action::RestoreStored(stored.clone()));
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
    assert!(!restored.ui.playing);
    assert_eq!(
        restored.ui.inspected, None,
        "the selection was the old job's"
    );
    let playing = Rc::new(State::initial()).reduce(Action::RestoreStored(stored));
    assert!(playing.ui.playing);
}

#[test]
fn a_step_that_points_at_a_subtask_selects_it_without_opening_its_fault_menu() {
    let (id, step) = built_in()
        .iter()
        .flat_map(|t| {
            t.steps
                .iter()
                .enumerate()
                .map(move |(i, s)| (t.id.clone(), i, s))
        })
        .find(|(_, _, s)| matches!(s.view.highlight, Highlight::Task(..)))
        .map(|(id, i, _)| (id, i))
        .expect("some step points at a subtask");
    let state = Rc::new(State::initial()).reduce(Action::Tutorial(TutorialAction::Go(id, step)));
    let task = state.ui.inspected.expect("the step selects its subtask");
    assert!(
        !state.ui.fault_menu_open,
        "pointing at a subtask opens no menu"
    );
    // A click on that subtask in the graph opens its menu, a second one closes it.
    let clicked = state.reduce(Action::Inspect(Some(task)));
    assert_eq!(clicked.ui.inspected, Some(task));
    assert!(clicked.ui.fault_menu_open);
    let again = clicked.reduce(Action::Inspect(Some(task)));
    assert_eq!(again.ui.inspected, None);
    assert!(!again.ui.fault_menu_open);
}
