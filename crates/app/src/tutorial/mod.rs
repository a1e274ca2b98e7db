//! Tutorials (docs/tutorials.md): narrated steps over a deterministic run. A step names its
//! scenario, a stop condition on engine events and what to look at; opening step k re-runs the
//! scenario from scratch through the conditions of the steps before it, so Back, Next and a
//! shared `#tutorial=<id>&step=<k>` link all land on the same trace fingerprint. Tutorials are
//! JSON files (`file.rs`); the built-in ones are compiled in, others load from a URL or a file.

mod condition;
pub mod file;
pub mod link;
mod run;
mod session;
mod text;

use std::cell::RefCell;
use std::sync::OnceLock;

pub use condition::{on, run_until, Ev, Hit, Until, STEP_BOUND};
pub use run::{reach, Reached};
pub use session::{
    checkpoint_hint, current, load, open, panel_key, Session, TutorialAction, View as TutorialView,
};
pub use text::{spans, Span};

use barrierlab_engine::scenario::Fault;

/// A tutorial: a question about Flink's checkpointing, told in steps over a deterministic run.
/// Read from a tutorial file (`file.rs`, docs/tutorials.md).
#[derive(Debug, PartialEq)]
pub struct Tutorial {
    /// The `#tutorial=` id.
    pub id: String,
    pub title: String,
    /// One line for the picker.
    pub summary: String,
    pub steps: Vec<Step>,
    /// Where a tutorial that is not built in came from: the URL it was fetched from, or the
    /// file's name (`None` for the built-in ones).
    pub source: Option<Source>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Url(String),
    File(String),
}

/// One stop along a tutorial.
#[derive(Debug, PartialEq)]
pub struct Step {
    pub title: String,
    /// Narration: plain text with `*emphasis*` and `` `code` `` (see `text.rs`).
    pub text: String,
    pub setup: Setup,
    pub until: Until,
    pub view: ViewHint,
}

/// The scenario a step runs: a preset plus `--set`-style overrides. A step whose setup equals the
/// previous step's continues from where that one stopped; a different setup starts over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setup {
    pub preset: String,
    /// `key=value` pairs as `barrierlab run --set` takes them.
    pub set: Vec<String>,
    /// Faults (docs/faults.md).
    pub faults: Vec<Fault>,
}

/// What the playground shows when a step stops.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewHint {
    /// The panel to bring into view (a panel id: `checkpoints`, `timeline`, `event-log`, …).
    pub panel: Option<String>,
    /// The checkpoint to select in the History tab.
    pub checkpoint: Option<u64>,
    /// The subtask to select in the graph and the inspector.
    pub highlight: Highlight,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Highlight {
    /// The subtask the stop event happened in (none for a JobManager event).
    Stop,
    /// Subtask `1`-based index of the vertex chaining operator `0`.
    Task(String, u32),
    None,
}

/// The built-in tutorials' files, in the picker's order.
const BUILT_IN: &[(&str, &str)] = &[
    (
        "who-triggers.json",
        include_str!("../../tutorials/who-triggers.json"),
    ),
    (
        "barriers-no-lock.json",
        include_str!("../../tutorials/barriers-no-lock.json"),
    ),
    (
        "alignment.json",
        include_str!("../../tutorials/alignment.json"),
    ),
    (
        "unaligned.json",
        include_str!("../../tutorials/unaligned.json"),
    ),
    (
        "completion-2pc.json",
        include_str!("../../tutorials/completion-2pc.json"),
    ),
    (
        "experiment.json",
        include_str!("../../tutorials/experiment.json"),
    ),
    (
        "debloating.json",
        include_str!("../../tutorials/debloating.json"),
    ),
    (
        "state-backends.json",
        include_str!("../../tutorials/state-backends.json"),
    ),
];

/// The built-in tutorials, parsed once (a broken built-in file is a bug the native tests catch).
pub fn built_in() -> &'static [Tutorial] {
    static PARSED: OnceLock<Vec<Tutorial>> = OnceLock::new();
    PARSED.get_or_init(|| {
        BUILT_IN
            .iter()
            .filter_map(|(name, json)| match file::parse(json, name) {
                Ok(t) => Some(t),
                Err(e) => {
                    #[cfg(target_arch = "wasm32")]
                    web_sys::console::error_1(&e.into());
                    #[cfg(not(target_arch = "wasm32"))]
                    eprintln!("{e}");
                    None
                }
            })
            .collect()
    })
}

thread_local! {
    /// Tutorials loaded into this page from a URL or a file (kept for the page's lifetime).
    static LOADED: RefCell<Vec<&'static Tutorial>> = const { RefCell::new(Vec::new()) };
}

/// Adds a tutorial loaded from a URL or a file; it replaces one loaded before with the same id.
/// The id of a built-in tutorial is refused.
pub fn register(t: Tutorial) -> Result<&'static Tutorial, String> {
    if built_in().iter().any(|b| b.id == t.id) {
        return Err(format!(
            "The tutorial file's id “{}” is a built-in tutorial's; give it another id.",
            t.id
        ));
    }
    let t: &'static Tutorial = Box::leak(Box::new(t));
    LOADED.with(|l| {
        let mut l = l.borrow_mut();
        l.retain(|o| o.id != t.id);
        l.push(t);
    });
    Ok(t)
}

/// Every tutorial the picker lists: the built-in ones, then the loaded ones.
pub fn all() -> Vec<&'static Tutorial> {
    let mut v: Vec<&'static Tutorial> = built_in().iter().collect();
    LOADED.with(|l| v.extend(l.borrow().iter().copied()));
    v
}

/// The tutorial with this id.
pub fn find(id: &str) -> Option<&'static Tutorial> {
    all().into_iter().find(|t| t.id == id)
}

#[cfg(test)]
mod tests;
