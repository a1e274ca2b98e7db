//! `expect` steps: what a script asserts about the step before it. They let a fixture state what
//! one of Flink's own unit tests states (`tests/fixtures/replay/flink/`), and fail when the
//! machine does otherwise.
//!
//! Matching is by subset: an expected object names only the fields it cares about, so a fixture
//! says "checkpoint 1 was triggered" without spelling out every metric of the trigger.

use serde::Serialize;
use serde_json::{Map, Value};

use super::report::ReplayReport;
use super::step_error;
use crate::types::{parse_duration, parse_memory_size};

/// The keys an `expect` object may have.
pub const EXPECT_KEYS: &[&str] = &[
    "state",
    "effects",
    "effects_include",
    "effects_exclude",
    "time",
    "note",
];

/// One `expect` step and how it went.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Expectation {
    /// Index of the `expect` step in the script's `steps`.
    pub step: usize,
    /// The step it checks (`None`: the start, before any step).
    pub after: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Empty when every expectation held.
    pub failures: Vec<String>,
}

impl Expectation {
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }
}

/// True for a step `{"expect": …}`: the drivers skip it, [`check`] reads it.
pub fn is_expect(raw: &Value) -> bool {
    raw.as_object()
        .is_some_and(|o| o.len() == 1 && o.contains_key("expect"))
}

/// Checks every `expect` step of `steps` against the report the drivers made of the others.
pub(super) fn check(steps: &[Value], report: &ReplayReport) -> Result<Vec<Expectation>, String> {
    let mut out = Vec::new();
    let mut after = None;
    for (index, raw) in steps.iter().enumerate() {
        if !is_expect(raw) {
            after = Some(index);
            continue;
        }
        let spec = raw["expect"]
            .as_object()
            .filter(|o| !o.is_empty())
            .ok_or_else(|| {
                step_error(
                    index,
                    raw,
                    format!(
                        "\"expect\" takes an object with some of {}",
                        EXPECT_KEYS.join(", ")
                    ),
                )
            })?;
        if let Some(key) = spec.keys().find(|k| !EXPECT_KEYS.contains(&k.as_str())) {
            return Err(step_error(
                index,
                raw,
                format!(
                    "unknown \"expect\" key '{key}'; expected one of {}",
                    EXPECT_KEYS.join(", ")
                ),
            ));
        }
        let (time, effects, state) = match after {
            None => (
                report.start.time,
                &report.start.effects,
                &report.start.state,
            ),
            Some(i) => {
                let s = report
                    .steps
                    .iter()
                    .find(|s| s.step == i)
                    .ok_or_else(|| step_error(index, raw, "the step it checks did not run"))?;
                (s.time, &s.effects, &s.state)
            }
        };
        let effects: Vec<Value> = effects.iter().map(to_value).collect::<Result<_, _>>()?;
        let state = inner(to_value(state)?);
        let mut failures = Vec::new();
        if let Some(expected) = spec.get("time") {
            subset("time", expected, &Value::from(time), &mut failures);
        }
        if let Some(expected) = spec.get("state") {
            subset("state", expected, &state, &mut failures);
        }
        if let Some(expected) = spec.get("effects") {
            subset(
                "effects",
                expected,
                &Value::Array(effects.clone()),
                &mut failures,
            );
        }
        for (key, want_some) in [("effects_include", true), ("effects_exclude", false)] {
            let Some(list) = spec.get(key) else { continue };
            let Some(list) = list.as_array() else {
                return Err(step_error(index, raw, format!("\"{key}\" takes a list")));
            };
            for (n, expected) in list.iter().enumerate() {
                let found = effects.iter().position(|e| matches(expected, e));
                match (want_some, found) {
                    (true, None) => failures.push(format!(
                        "{key}[{n}]: no effect matches {expected}; emitted {}",
                        summary(&effects)
                    )),
                    (false, Some(i)) => failures.push(format!(
                        "{key}[{n}]: effect {i} matches {expected}: {}",
                        effects[i]
                    )),
                    _ => {}
                }
            }
        }
        out.push(Expectation {
            step: index,
            after,
            note: spec.get("note").and_then(Value::as_str).map(str::to_owned),
            failures,
        });
    }
    Ok(out)
}

fn to_value<T: Serialize>(v: &T) -> Result<Value, String> {
    serde_json::to_value(v).map_err(|e| format!("cannot encode the report: {e}"))
}

/// `{"handler": {…}}` → `{…}`: scripts drive one machine, so the wrapper says nothing.
fn inner(state: Value) -> Value {
    match state {
        Value::Object(mut o) if o.len() == 1 => {
            let key = o.keys().next().cloned().unwrap_or_default();
            o.remove(&key).unwrap_or(Value::Null)
        }
        other => other,
    }
}

fn matches(expected: &Value, actual: &Value) -> bool {
    let mut failures = Vec::new();
    subset("", expected, actual, &mut failures);
    failures.is_empty()
}

/// Appends one line per mismatch, named by its path (`state.blocked_channels[1]`).
fn subset(path: &str, expected: &Value, actual: &Value, failures: &mut Vec<String>) {
    match (expected, actual) {
        (Value::Object(want), Value::Object(have)) => object(path, want, have, failures),
        (Value::Array(want), Value::Array(have)) => {
            if want.len() != have.len() {
                failures.push(format!(
                    "{path}: expected {} item(s), got {}: {}",
                    want.len(),
                    have.len(),
                    summary(have)
                ));
                return;
            }
            for (i, (w, h)) in want.iter().zip(have).enumerate() {
                subset(&format!("{path}[{i}]"), w, h, failures);
            }
        }
        (Value::String(text), Value::Number(n)) if unit_value(text) == n.as_u64() => {}
        (Value::Number(w), Value::Number(h)) if w.as_f64() == h.as_f64() => {}
        _ if expected == actual => {}
        _ => failures.push(format!("{path}: expected {expected}, got {actual}")),
    }
}

fn object(
    path: &str,
    want: &Map<String, Value>,
    have: &Map<String, Value>,
    failures: &mut Vec<String>,
) {
    for (key, w) in want {
        let at = if path.is_empty() {
            key.clone()
        } else {
            format!("{path}.{key}")
        };
        match have.get(key) {
            Some(h) => subset(&at, w, h, failures),
            None => failures.push(format!(
                "{at}: expected {w}, but there is no '{key}' (fields: {})",
                have.keys().cloned().collect::<Vec<_>>().join(", ")
            )),
        }
    }
}

/// `"5ms"` as microseconds, `"4kb"` as bytes: the forms steps accept.
fn unit_value(text: &str) -> Option<u64> {
    parse_duration(text)
        .ok()
        .or_else(|| parse_memory_size(text).ok())
}

/// A short list of what was emitted, for messages: each item's kind and fields, `at`/`via` dropped.
fn summary(items: &[Value]) -> String {
    if items.is_empty() {
        return "nothing".into();
    }
    let shown: Vec<String> = items
        .iter()
        .map(|v| match v {
            Value::Object(o) => {
                let mut o = o.clone();
                o.remove("at");
                o.remove("via");
                Value::Object(o).to_string()
            }
            other => other.to_string(),
        })
        .collect();
    format!("[{}]", shown.join(", "))
}
