//! Helpers to pick effects out of a report.

use crate::barrier::HandlerEffect;
use crate::coordinator::CoordinatorEffect;
use crate::replay::{
    replay, CoordinatorSnapshot, DriverNote, Effect, HandlerSnapshot, MachineState, ReplayReport,
    ReplayStep, Via,
};

/// The fixtures live at the repository root so the CLI tests and docs share them.
macro_rules! fixture {
    ($name:literal) => {
        include_str!(concat!("../../../../../tests/fixtures/replay/", $name))
    };
}
pub(crate) use fixture;

pub fn run(script: &str) -> ReplayReport {
    match replay(script) {
        Ok(report) => report,
        Err(e) => panic!("replay failed: {e}"),
    }
}

pub fn error(script: &str) -> String {
    match replay(script) {
        Ok(_) => panic!("expected the script to be refused"),
        Err(e) => e,
    }
}

pub fn handler_fx(step: &ReplayStep) -> Vec<HandlerEffect> {
    step.effects
        .iter()
        .filter_map(|e| match &e.effect {
            Effect::Handler(h) => Some(h.clone()),
            _ => None,
        })
        .collect()
}

pub fn coordinator_fx(step: &ReplayStep) -> Vec<CoordinatorEffect> {
    step.effects
        .iter()
        .filter_map(|e| match &e.effect {
            Effect::Coordinator(c) => Some(c.clone()),
            _ => None,
        })
        .collect()
}

pub fn notes(step: &ReplayStep) -> Vec<(Via, DriverNote)> {
    step.effects
        .iter()
        .filter_map(|e| match &e.effect {
            Effect::Driver(d) => Some((e.via, d.clone())),
            _ => None,
        })
        .collect()
}

pub fn handler_state(step: &ReplayStep) -> &HandlerSnapshot {
    match &step.state {
        MachineState::Handler(h) => h,
        _ => panic!("step {} has no handler state", step.step),
    }
}

pub fn coordinator_state(step: &ReplayStep) -> &CoordinatorSnapshot {
    match &step.state {
        MachineState::Coordinator(c) => c,
        _ => panic!("step {} has no coordinator state", step.step),
    }
}

/// The short names of a step's effects, in order (`Process`, `Driver:Held`, …), for order checks.
pub fn names(step: &ReplayStep) -> Vec<String> {
    step.effects
        .iter()
        .map(|e| {
            let json = serde_json::to_value(&e.effect).unwrap_or_default();
            let (family, inner) = json
                .as_object()
                .and_then(|o| o.iter().next())
                .map(|(k, v)| (k.clone(), v.clone()))
                .unwrap_or_default();
            let name = match &inner {
                serde_json::Value::Object(o) => o.keys().next().cloned().unwrap_or_default(),
                serde_json::Value::String(s) => s.clone(),
                _ => String::new(),
            };
            format!("{family}:{name}")
        })
        .collect()
}
