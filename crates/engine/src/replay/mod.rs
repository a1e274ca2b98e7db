//! Replay: drive ONE pure state machine (a barrier handler or the `CheckpointCoordinator`) from a
//! JSON script and record, per step, what went in, what came out and the state afterwards.
//!
//! The machines only react; this driver plays the parts of Flink around them that a script
//! cannot: it owns the clock and the timers (fires them on `advance`), and for barrier handlers it
//! holds back events on blocked channels the way the upstream subpartition would, releasing them
//! in order once the channel is resumed. The script format is documented in `docs/replay.md`.
//!
//! Bad scripts never panic: every problem is an `Err` naming the step (by its index in `steps`).
//! Impossible-but-well-formed inputs (a barrier on a channel the gate does not have, …) are the
//! machine's business and show up as its `Error` effect instead.

mod barrier_driver;
mod barrier_script;
mod coordinator_driver;
mod coordinator_script;
mod decider_driver;
mod expect;
mod failure_driver;
mod gate;
mod report;
mod values;

#[cfg(test)]
mod tests;

pub use expect::{is_expect, Expectation, EXPECT_KEYS};
pub use report::{
    AlignmentTimer, CoordinatorSnapshot, DeciderEffect, DeciderSnapshot, DriverNote, Effect,
    Emitted, FailingCallView, FailureManagerEffect, FailureManagerSnapshot, HandlerSnapshot,
    HeldEvents, Machine, MachineState, PendingSnapshot, PersistedBytes, ReplayReport, ReplayStart,
    ReplayStep, ScheduledTimer, Via,
};
pub use values::{parse_task, task_name};

use serde::de::DeserializeOwned;
use serde_json::Value;

/// The script version this engine reads.
pub const SCRIPT_VERSION: u32 = 1;

/// An `advance` that would fire more timers than this is refused instead of running for ages
/// (a 10 ms checkpoint interval over a simulated day is 8.6 million triggers).
pub const MAX_TIMERS_PER_ADVANCE: usize = 10_000;

/// Runs a replay script. `Err` carries a message for a person: JSON syntax errors with line and
/// column, structural errors with the step index and the step's text.
pub fn replay(script_json: &str) -> Result<ReplayReport, String> {
    let value: Value = serde_json::from_str(script_json)
        .map_err(|e| format!("the script is not valid JSON: {e}"))?;
    let Some(object) = value.as_object() else {
        return Err(
            "the script must be a JSON object with \"version\", \"machine\" and \"steps\"".into(),
        );
    };
    match object.get("version") {
        Some(v) if v.as_u64() == Some(u64::from(SCRIPT_VERSION)) => {}
        Some(v) => {
            return Err(format!(
            "unsupported script \"version\": {v} (this barrierlab reads version {SCRIPT_VERSION})"
        ))
        }
        None => return Err(format!("the script needs \"version\": {SCRIPT_VERSION}")),
    }
    let machine = match object.get("machine") {
        Some(Value::String(name)) => Machine::from_name(name).ok_or_else(|| {
            format!(
                "unknown \"machine\" '{name}'; expected one of {}",
                machine_list()
            )
        })?,
        Some(other) => {
            return Err(format!(
                "\"machine\" must be a string, one of {}; got {other}",
                machine_list()
            ))
        }
        None => {
            return Err(format!(
                "the script needs a \"machine\": one of {}",
                machine_list()
            ))
        }
    };
    let mut value = value;
    let about = About::take(&mut value)?;
    let steps = match value.get("steps") {
        Some(Value::Array(steps)) => steps.clone(),
        _ => Vec::new(),
    };
    let mut report = match machine {
        Machine::Coordinator => coordinator_driver::run(value),
        Machine::RequestDecider => decider_driver::run(value),
        Machine::FailureManager => failure_driver::run(value),
        handler => barrier_driver::run(handler, value),
    }?;
    report.expectations = expect::check(&steps, &report)?;
    report.from = about.from;
    report.differs = about.differs;
    Ok(report)
}

/// The script's description of itself: where it comes from (`"from"`: the Flink test it ports),
/// what the machine does differently (`"differs"`) and a free `"note"`. None of it drives anything.
struct About {
    from: Option<String>,
    differs: Option<String>,
}

impl About {
    fn take(value: &mut Value) -> Result<About, String> {
        let mut text = |key: &str| -> Result<Option<String>, String> {
            match value.as_object_mut().and_then(|o| o.remove(key)) {
                None => Ok(None),
                Some(Value::String(s)) => Ok(Some(s)),
                Some(other) => Err(format!("\"{key}\" must be a string, got {other}")),
            }
        };
        let about = About {
            from: text("from")?,
            differs: text("differs")?,
        };
        text("note")?;
        Ok(about)
    }
}

fn machine_list() -> String {
    Machine::ALL
        .iter()
        .map(|m| format!("\"{}\"", m.name()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Reads the script's top level into `T` (whose `steps` stay raw JSON, so each step can be read
/// on its own and its errors can name it).
fn parse_script<T: DeserializeOwned>(value: Value) -> Result<T, String> {
    serde_json::from_value(value).map_err(|e| format!("script: {e}"))
}

/// Reads one step, or says which step is wrong and how. `kinds` are the step names the machine
/// accepts; a step is an object with exactly one of them as its key.
fn parse_step<T: DeserializeOwned>(index: usize, raw: &Value, kinds: &[&str]) -> Result<T, String> {
    let one_key = raw.as_object().is_some_and(|o| o.len() == 1);
    if !one_key {
        return Err(step_error(
            index,
            raw,
            format!(
                "a step is an object with exactly one key, one of {}",
                kinds.join(", ")
            ),
        ));
    }
    serde_json::from_value(raw.clone()).map_err(|e| step_error(index, raw, e))
}

/// `step 3 {"barier":{…}}: unknown variant …`, with the step's text cut short if long.
fn step_error(index: usize, raw: &Value, message: impl std::fmt::Display) -> String {
    const MAX: usize = 80;
    let text = raw.to_string();
    let shown = match text.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    };
    format!("step {index} {shown}: {message}")
}
