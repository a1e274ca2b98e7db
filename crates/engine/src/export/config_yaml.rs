//! `config.yaml`: the scenario's Flink keys as Flink 2.3 spells them, its `barrierlab.*` model
//! knobs as comments, and what the scenario implies (cluster size, state backend, checkpoint
//! directory).

use std::fmt::Write;

use crate::scenario::{resolve_key, JobGraph, Scenario, ValueKind};
use crate::types::parse_duration;

/// Time unit labels Flink 2.3's `TimeUtils.parseDuration` accepts (case-insensitive). The engine
/// also takes `us` and `mins`, which Flink rejects.
const FLINK_TIME_UNITS: &[&str] = &[
    "",
    "d",
    "day",
    "days",
    "h",
    "hour",
    "hours",
    "min",
    "m",
    "minute",
    "minutes",
    "s",
    "sec",
    "secs",
    "second",
    "seconds",
    "ms",
    "milli",
    "millis",
    "millisecond",
    "milliseconds",
    "µs",
    "micro",
    "micros",
    "microsecond",
    "microseconds",
    "ns",
    "nano",
    "nanos",
    "nanosecond",
    "nanoseconds",
];

/// A duration as Flink reads it: the scenario's text when Flink knows its unit, else the same
/// time in the largest whole unit Flink knows.
fn flink_duration(text: &str) -> String {
    let t = text.trim();
    let unit = t.trim_start_matches(|c: char| c.is_ascii_digit()).trim();
    if FLINK_TIME_UNITS.contains(&unit.to_lowercase().as_str()) {
        return t.to_string();
    }
    let us = parse_duration(t).unwrap_or(0);
    for (per, label) in [
        (86_400_000_000, "d"),
        (3_600_000_000, "h"),
        (60_000_000, "min"),
        (1_000_000, "s"),
        (1_000, "ms"),
    ] {
        if us > 0 && us.is_multiple_of(per) {
            return format!("{} {label}", us / per);
        }
    }
    format!("{us} micros")
}

/// The value Flink 2.3 understands for a key the engine accepted.
fn flink_value(key: &str, kind: ValueKind, value: &str) -> String {
    let v = value.trim();
    match kind {
        ValueKind::Duration { .. } => flink_duration(v),
        // Flink 2.3's RestartStrategyType knows disable / none / off, not no-restart.
        ValueKind::Enum(_)
            if key == "restart-strategy.type" && v.eq_ignore_ascii_case("no-restart") =>
        {
            "disable".to_string()
        }
        _ => v.to_string(),
    }
}

/// A YAML scalar: bare when it is plainly a word, a number or a duration, else single-quoted.
pub(super) fn yaml_scalar(value: &str) -> String {
    let plain = !value.is_empty()
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-' | ' ' | 'µ'))
        && !value.starts_with([' ', '-'])
        && !value.ends_with(' ');
    if plain {
        value.to_string()
    } else {
        format!("'{}'", value.replace('\'', "''"))
    }
}

/// The whole file. `checkpoint_dir` is a `file://` URI.
pub(super) fn config_yaml(scenario: &Scenario, graph: &JobGraph, checkpoint_dir: &str) -> String {
    let mut flink: Vec<(String, String, Option<String>)> = Vec::new();
    let mut model: Vec<(String, String, &'static str)> = Vec::new();
    let mut scenario_dir: Option<&str> = None;
    for (key, value) in &scenario.config {
        // Validation accepted every key, so it resolves.
        let Ok(info) = resolve_key(key) else { continue };
        if info.key == "execution.checkpointing.dir" {
            // Written once, below, with the export's directory.
            scenario_dir = Some(value.trim());
            continue;
        }
        if info.key.starts_with("barrierlab.") {
            model.push((
                info.key.to_string(),
                value.trim().to_string(),
                info.description,
            ));
            continue;
        }
        // A deprecated name and the canonical one may both be set (to the same value).
        if flink.iter().any(|(k, _, _)| k == info.key) {
            continue;
        }
        let written = flink_value(info.key, info.kind, value);
        let note = (info.key != key.as_str() || written != value.trim())
            .then(|| format!("scenario: {key}: {}", value.trim()));
        flink.push((info.key.to_string(), written, note));
    }
    flink.sort();

    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Flink 2.3 configuration of the Barrier Lab scenario '{}', written by `barrierlab export`.",
        scenario.name.replace('\n', " ")
    );
    out.push_str(
        "# BarrierLabJob loads it with GlobalConfiguration.loadConfiguration(<this directory>).\n",
    );
    out.push_str(
        "\n# The scenario's Flink keys (a deprecated name is written as Flink 2.3 spells it).\n",
    );
    if flink.is_empty() {
        out.push_str("# (none: Flink's defaults; checkpointing is off)\n");
    }
    for (key, value, note) in &flink {
        let _ = write!(out, "{key}: {}", yaml_scalar(value));
        if let Some(note) = note {
            let _ = write!(out, "  # {note}");
        }
        out.push('\n');
    }
    if !model.is_empty() {
        out.push_str(
            "\n# Barrier Lab model knobs: how the simulator models the network, RPCs and storage.\n\
             # Simulator-only: a real cluster has its own, so they are not set.\n",
        );
        for (key, value, description) in &model {
            let _ = writeln!(out, "# {key}: {value}  ({description})");
        }
    }
    out.push_str("\n# What the scenario implies.\n");
    let _ = writeln!(
        out,
        "minicluster.number-of-taskmanagers: {}  # cluster.taskmanagers (Flink 2.3's name for local.number-taskmanager)",
        graph.taskmanagers
    );
    let _ = writeln!(
        out,
        "taskmanager.numberOfTaskSlots: {}  # the engine's slots per TaskManager",
        graph.slots_per_taskmanager
    );
    if !flink.iter().any(|(k, _, _)| k == "state.backend.type") {
        out.push_str("state.backend.type: hashmap  # Flink's default, stated\n");
    }
    out.push_str("execution.checkpointing.storage: filesystem\n");
    let _ = write!(
        out,
        "execution.checkpointing.dir: {}",
        yaml_scalar(checkpoint_dir)
    );
    if let Some(dir) = scenario_dir.filter(|d| {
        crate::scenario::flink_path(d).ok() != crate::scenario::flink_path(checkpoint_dir).ok()
    }) {
        let _ = write!(out, "  # scenario: execution.checkpointing.dir: {dir}");
    }
    out.push('\n');
    out
}
