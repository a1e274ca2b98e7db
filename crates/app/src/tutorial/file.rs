//! The tutorial file format (docs/tutorials.md): one tutorial per JSON file. The built-in
//! tutorials are such files (`crates/app/tutorials/*.json`); a page can also load one from a URL
//! (`#tutorial-url=…`) or from a file. Parsing never panics: a bad file is a message naming the
//! step and the field that is wrong.

use barrierlab_engine::scenario::{preset, Fault, PRESETS};
use barrierlab_engine::types::parse_duration;
use serde::{Deserialize, Serialize};

use super::run::scenario;
use super::{Ev, Highlight, Setup, Step, Tutorial, Until, ViewHint};

/// The `format` a file may declare; anything else is refused.
pub const FORMAT: &str = "barrierlab-tutorial/1";

/// The panel ids a step may bring into view.
pub const PANELS: &[&str] = &[
    "job-graph",
    "checkpoints",
    "faults-panel",
    "verdict-panel",
    "recovery-panel",
    "storage-panel",
    "travel",
    "timeline",
    "inspector-panel",
    "backpressure-panel",
    "taskmanagers-panel",
    "why-panel",
    "editor-panel",
    "config-panel",
    "compare-panel",
    "event-log",
];

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct TutorialDoc {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    format: Option<String>,
    id: String,
    title: String,
    summary: String,
    /// Kept as JSON values so that a bad step is reported with its number.
    steps: Vec<serde_json::Value>,
}

/// Narration: one string, or a list of strings joined with spaces (easier to write).
#[derive(Debug, Serialize, Deserialize)]
#[serde(untagged)]
enum Text {
    One(String),
    Lines(Vec<String>),
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StepDoc {
    title: String,
    text: Text,
    /// Omitted: the previous step's setup (the run continues).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    setup: Option<SetupDoc>,
    until: UntilDoc,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    view: Option<ViewDoc>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SetupDoc {
    preset: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    set: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    faults: Vec<Fault>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct UntilDoc {
    /// A simulated time: `"300ms"`, `"12s"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    event: Option<Ev>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    checkpoint: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    operator: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    nth: Option<u32>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ViewDoc {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    panel: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    checkpoint: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    highlight: Option<HighlightDoc>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(untagged)]
enum HighlightDoc {
    /// `"stop"` or `"none"`.
    Word(String),
    /// A subtask: `{"operator": "two-phase-commit-sink", "subtask": 1}` (counted from 1).
    Task { operator: String, subtask: u32 },
}

/// Parses and checks a tutorial file. `name` says where it came from (in messages). Every
/// step's scenario is built (not run), so an unknown preset, a bad `set` or an operator the
/// scenario lacks is reported here rather than when the step is opened.
pub fn parse(json: &str, name: &str) -> Result<Tutorial, String> {
    let fail = |what: String| format!("The tutorial file {name} cannot be used: {what}");
    let doc: TutorialDoc = serde_json::from_str(json).map_err(|e| fail(e.to_string()))?;
    if let Some(f) = &doc.format {
        if f != FORMAT {
            return Err(fail(format!(
                "“format” is “{f}”; this version of Barrier Lab reads “{FORMAT}”."
            )));
        }
    }
    if doc.id.is_empty()
        || !doc
            .id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        return Err(fail(format!(
            "“id” is “{}”; use lowercase letters, digits and '-' (it appears in links).",
            doc.id
        )));
    }
    if doc.steps.is_empty() {
        return Err(fail(
            "“steps” is empty; a tutorial needs at least one step.".into(),
        ));
    }
    let mut steps: Vec<Step> = Vec::with_capacity(doc.steps.len());
    for (i, value) in doc.steps.into_iter().enumerate() {
        let n = i + 1;
        let step: StepDoc =
            serde_json::from_value(value).map_err(|e| fail(format!("step {n}: {e}.")))?;
        let at = |what: String| fail(format!("step {n} (“{}”): {what}", step.title));
        let setup = match (&step.setup, steps.last()) {
            (Some(s), _) => Setup {
                preset: s.preset.clone(),
                set: s.set.clone(),
                faults: s.faults.clone(),
            },
            (None, Some(prev)) => prev.setup.clone(),
            (None, None) => return Err(at("the first step needs a “setup”.".into())),
        };
        if preset(&setup.preset).is_none() {
            let names: Vec<&str> = PRESETS.iter().map(|(n, _)| *n).collect();
            return Err(at(format!(
                "setup: there is no preset “{}”; the presets are {}.",
                setup.preset,
                names.join(", ")
            )));
        }
        let built = scenario(&setup).map_err(|e| at(format!("setup: {e}")))?;
        let operators: Vec<&str> = built.operators.iter().map(|o| o.name.as_str()).collect();
        let known = |op: &str, field: &str| {
            if operators.contains(&op) {
                Ok(())
            } else {
                Err(at(format!(
                    "{field}: the scenario has no operator “{op}”; its operators are {}.",
                    operators.join(", ")
                )))
            }
        };
        let until = match (&step.until.at, step.until.event) {
            (Some(t), None) => {
                if step.until.checkpoint.is_some()
                    || step.until.operator.is_some()
                    || step.until.nth.is_some()
                {
                    return Err(at(
                        "until: “at” takes no “checkpoint”, “operator” or “nth”.".into()
                    ));
                }
                Until::At(parse_duration(t).map_err(|e| at(format!("until.at: {e}")))?)
            }
            (None, Some(ev)) => {
                if let Some(op) = &step.until.operator {
                    known(op, "until.operator")?;
                }
                let nth = step.until.nth.unwrap_or(1);
                if nth == 0 {
                    return Err(at("until.nth counts from 1.".into()));
                }
                Until::Event {
                    ev,
                    checkpoint: step.until.checkpoint,
                    operator: step.until.operator.clone(),
                    nth,
                }
            }
            _ => {
                return Err(at(
                    "until needs exactly one of “at” (a time, e.g. \"300ms\") and “event” (e.g. \"completed\")."
                        .into(),
                ))
            }
        };
        let view = step.view.unwrap_or_default();
        if let Some(p) = &view.panel {
            if !PANELS.contains(&p.as_str()) {
                return Err(at(format!(
                    "view.panel: there is no panel “{p}”; the panels are {}.",
                    PANELS.join(", ")
                )));
            }
        }
        let highlight = match view.highlight {
            None => Highlight::Stop,
            Some(HighlightDoc::Word(w)) if w == "stop" => Highlight::Stop,
            Some(HighlightDoc::Word(w)) if w == "none" => Highlight::None,
            Some(HighlightDoc::Word(w)) => {
                return Err(at(format!(
                    "view.highlight is “{w}”; use \"stop\", \"none\" or {{\"operator\": …, \"subtask\": …}}."
                )))
            }
            Some(HighlightDoc::Task { operator, subtask }) => {
                known(&operator, "view.highlight.operator")?;
                if subtask == 0 {
                    return Err(at("view.highlight.subtask counts from 1.".into()));
                }
                Highlight::Task(operator, subtask)
            }
        };
        let text = match step.text {
            Text::One(t) => t,
            Text::Lines(lines) => lines.join(" "),
        };
        steps.push(Step {
            title: step.title,
            text,
            setup,
            until,
            view: ViewHint {
                panel: view.panel,
                checkpoint: view.checkpoint,
                highlight,
            },
        });
    }
    Ok(Tutorial {
        id: doc.id,
        title: doc.title,
        summary: doc.summary,
        steps,
        source: None,
    })
}

/// The file form of a tutorial (what `parse` reads back to an equal tutorial).
pub fn to_json(t: &Tutorial) -> String {
    let mut prev: Option<&Setup> = None;
    let steps = t
        .steps
        .iter()
        .map(|s| {
            let setup = (prev != Some(&s.setup)).then(|| SetupDoc {
                preset: s.setup.preset.clone(),
                set: s.setup.set.clone(),
                faults: s.setup.faults.clone(),
            });
            prev = Some(&s.setup);
            let until = match &s.until {
                Until::At(t) => UntilDoc {
                    at: Some(format!("{}ms", t / 1000)),
                    ..UntilDoc::default()
                },
                Until::Event {
                    ev,
                    checkpoint,
                    operator,
                    nth,
                } => UntilDoc {
                    event: Some(*ev),
                    checkpoint: *checkpoint,
                    operator: operator.clone(),
                    nth: (*nth != 1).then_some(*nth),
                    ..UntilDoc::default()
                },
            };
            let highlight = match &s.view.highlight {
                Highlight::Stop => None,
                Highlight::None => Some(HighlightDoc::Word("none".into())),
                Highlight::Task(operator, subtask) => Some(HighlightDoc::Task {
                    operator: operator.clone(),
                    subtask: *subtask,
                }),
            };
            let doc = StepDoc {
                title: s.title.clone(),
                text: Text::One(s.text.clone()),
                setup,
                until,
                view: Some(ViewDoc {
                    panel: s.view.panel.clone(),
                    checkpoint: s.view.checkpoint,
                    highlight,
                }),
            };
            serde_json::to_value(doc).expect("a step serializes")
        })
        .collect();
    let doc = TutorialDoc {
        format: Some(FORMAT.into()),
        id: t.id.clone(),
        title: t.title.clone(),
        summary: t.summary.clone(),
        steps,
    };
    serde_json::to_string_pretty(&doc).expect("a tutorial serializes")
}
