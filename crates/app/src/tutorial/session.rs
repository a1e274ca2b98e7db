//! The tutorial a page shows (picker or step), the actions that move through it (the page
//! carries them out, `state/open.rs`), and a step opened as a new job. Every step is reached by
//! `reach` from scratch, so Back is exact: it is the same computation as the first visit, not
//! an undo.

use barrierlab_engine::types::Micros;

use super::{all, find, reach, Highlight, Hit, Tutorial};
use crate::job::Opened;

/// What the tutorial band shows.
#[derive(Debug, Clone, PartialEq)]
pub enum View {
    /// The list of tutorials, with why a link did not open one.
    Picker {
        message: Option<String>,
    },
    Step(Session),
    /// A tutorial file being fetched from `url`, to open at `step` (0-based).
    Loading {
        url: String,
        step: usize,
    },
}

/// A tutorial stopped at one of its steps.
#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    pub tutorial: &'static Tutorial,
    /// 0-based.
    pub step: usize,
    /// The event the step stopped on.
    pub hit: Option<Hit>,
    /// Why the condition never held.
    pub error: Option<String>,
    pub stop_time: Micros,
    pub fingerprint: String,
}

#[derive(Debug, Clone, PartialEq)]
pub enum TutorialAction {
    Picker,
    Close,
    /// Open tutorial `id` at step `n` (0-based).
    Go(String, usize),
    /// A tutorial file arrived (its text, or why it could not be read) from `source`: check
    /// it, add it to the picker and open its step `n`.
    Loaded {
        source: super::Source,
        text: Result<String, String>,
        step: usize,
    },
}

/// Why `id`/`step` does not name a step.
pub fn check(id: &str, step: usize) -> Result<&'static Tutorial, String> {
    let t = find(id).ok_or_else(|| {
        let ids: Vec<&str> = all().into_iter().map(|t| t.id.as_str()).collect();
        format!(
            "There is no tutorial “{id}”. The tutorials are: {}.",
            ids.join(", ")
        )
    })?;
    if step >= t.steps.len() {
        return Err(format!(
            "“{}” has {} steps; there is no step {}.",
            t.title,
            t.steps.len(),
            step + 1
        ));
    }
    Ok(t)
}

/// Step `step` of tutorial `id` as a new job, paused where the step stops, and the band that
/// shows the step; or why not.
pub fn open(id: &str, step: usize) -> Result<(Opened, View), String> {
    let t = check(id, step)?;
    let r = reach(t, step)?;
    let s = &t.steps[step];
    let custom = !s.setup.set.is_empty() || !s.setup.faults.is_empty();
    let session = Session {
        tutorial: t,
        step,
        hit: r.hit.clone(),
        error: r.error.clone(),
        stop_time: r.sim.now,
        fingerprint: r.sim.fingerprint(),
    };
    let inspected = match &s.view.highlight {
        Highlight::Stop => r.hit.as_ref().and_then(|h| h.task),
        Highlight::Task(op, subtask) => task_index(&r.sim, op, *subtask),
        Highlight::None => None,
    };
    let opened = Opened {
        custom,
        playing: false,
        travel: Some(r.travel),
        inspected,
        ..Opened::new(r.sim, &s.setup.preset)
    };
    Ok((opened, View::Step(session)))
}

/// The index in `sim.tasks` of subtask `subtask` (1-based) of the vertex chaining `op`.
fn task_index(sim: &barrierlab_engine::sim::Simulation, op: &str, subtask: u32) -> Option<u32> {
    let o = sim.scenario.operators.iter().position(|s| s.name == op)?;
    let v = sim.graph.vertex_of_operator(o)?.id;
    sim.tasks
        .iter()
        .position(|t| t.id.vertex == v && t.id.subtask + 1 == subtask)
        .map(|i| i as u32)
}

/// Parses a tutorial file from `source` and adds it to the page's tutorials.
pub fn load(text: &str, source: super::Source) -> Result<&'static Tutorial, String> {
    let name = match &source {
        super::Source::Url(u) | super::Source::File(u) => format!("“{u}”"),
    };
    let mut t = super::file::parse(text, &name)?;
    t.source = Some(source);
    super::register(t)
}

/// The step the tutorial band shows, if it shows one.
pub fn current(view: Option<&View>) -> Option<&Session> {
    match view {
        Some(View::Step(s)) => Some(s),
        _ => None,
    }
}

/// The checkpoint the current step selects in the History tab.
pub fn checkpoint_hint(view: Option<&View>) -> Option<u64> {
    current(view).and_then(|s| s.tutorial.steps[s.step].view.checkpoint)
}

/// A key that changes with every step reached, to re-mount panels that take a hint on mount.
pub fn panel_key(view: Option<&View>) -> String {
    current(view).map_or_else(String::new, |s| {
        format!("{}-{}-{}", s.tutorial.id, s.step, s.fingerprint)
    })
}
