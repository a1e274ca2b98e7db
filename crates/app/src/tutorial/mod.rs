//! Tutorials (docs/tutorials.md): narrated steps over a deterministic run. A step names its
//! scenario, a stop condition on engine events and what to look at; opening step k re-runs the
//! scenario from scratch through the conditions of the steps before it, so Back, Next and a
//! shared `#tutorial=<id>&step=<k>` link all land on the same trace fingerprint.

mod condition;
mod content;
mod content_experiment;
mod content_questions;
pub mod link;
mod run;
mod session;
mod text;

pub use condition::{on, run_until, Ev, Hit, Until, STEP_BOUND};
pub use content::TUTORIALS;
pub use run::{reach, Reached};
pub use session::{
    checkpoint_hint, panel_key, reduce, Session, TutorialAction, View as TutorialView,
};
pub use text::{spans, Span};

/// A tutorial: one of seed 000's questions, or its experiment, told in steps.
#[derive(Debug, PartialEq)]
pub struct Tutorial {
    /// The `#tutorial=` id.
    pub id: &'static str,
    pub title: &'static str,
    /// One line for the picker.
    pub summary: &'static str,
    pub steps: &'static [Step],
}

/// One stop along a tutorial.
#[derive(Debug, PartialEq)]
pub struct Step {
    pub title: &'static str,
    /// Narration: plain text with `*emphasis*` and `` `code` `` (see `text.rs`).
    pub text: &'static str,
    pub setup: Setup,
    pub until: Until,
    pub view: ViewHint,
}

/// The scenario a step runs: a preset plus `--set`-style overrides. A step whose setup equals the
/// previous step's continues from where that one stopped; a different setup starts over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Setup {
    pub preset: &'static str,
    /// `key=value` pairs as `barrierlab run --set` takes them.
    pub set: &'static [&'static str],
    /// Faults as JSON objects (docs/faults.md), e.g. `{"lose-notification": {…}}`.
    pub faults: &'static [&'static str],
}

impl Setup {
    pub const fn preset(preset: &'static str) -> Setup {
        Setup {
            preset,
            set: &[],
            faults: &[],
        }
    }
}

/// What the playground shows when a step stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ViewHint {
    /// The panel to bring into view (a panel id: `checkpoints`, `timeline`, `event-log`, …).
    pub panel: Option<&'static str>,
    /// The checkpoint to select in the History tab.
    pub checkpoint: Option<u64>,
    /// The subtask to select in the graph and the inspector.
    pub highlight: Highlight,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Highlight {
    /// The subtask the stop event happened in (none for a JobManager event).
    Stop,
    /// Subtask `1`-based index of the vertex chaining operator `0`.
    Task(&'static str, u32),
    None,
}

impl ViewHint {
    pub const fn panel(panel: &'static str) -> ViewHint {
        ViewHint {
            panel: Some(panel),
            checkpoint: None,
            highlight: Highlight::Stop,
        }
    }
    pub const fn checkpoint(self, id: u64) -> ViewHint {
        ViewHint {
            checkpoint: Some(id),
            ..self
        }
    }
    pub const fn highlight(self, highlight: Highlight) -> ViewHint {
        ViewHint { highlight, ..self }
    }
}

/// The tutorial with this id.
pub fn find(id: &str) -> Option<&'static Tutorial> {
    TUTORIALS.iter().find(|t| t.id == id)
}

#[cfg(test)]
mod tests;
