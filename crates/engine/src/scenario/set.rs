//! `--set KEY=VALUE`: one change to a scenario, checked on the spot.

use super::config_keys::{check_value, resolve_key};
use super::model::{OperatorKind, Scenario};
use crate::types::parse_duration;

/// Knobs every operator has.
const COMMON_KNOBS: &[&str] = &["parallelism", "max-parallelism", "cost-per-record"];

/// Applies `KEY=VALUE`. Flink keys (current or deprecated) are validated and stored under their
/// current name, replacing any deprecated spelling; `taskmanager.numberOfTaskSlots` and
/// `minicluster.number-of-taskmanagers` set the cluster; `operator.<name>.<knob>=<value>` sets an
/// operator knob (`parallelism`, `max-parallelism`, `cost-per-record`, and per kind: datagen's
/// `rate`, `record-size`, `keys`, `bounded`; filter's `keep-percent`; keyed-window-sum's `window`).
/// On error the scenario is unchanged.
pub fn apply_set(scenario: &mut Scenario, assignment: &str) -> Result<(), String> {
    let (key, value) = assignment
        .split_once('=')
        .ok_or_else(|| format!("'{assignment}' is not KEY=VALUE"))?;
    let (key, value) = (key.trim(), value.trim());
    if key.is_empty() {
        return Err(format!("'{assignment}' has an empty key"));
    }
    if let Some(rest) = key.strip_prefix("operator.") {
        return set_operator_knob(scenario, rest, value);
    }
    if let Some(info) = super::flink_conf::cluster_key(key) {
        return super::flink_conf::set_cluster_key(scenario, info, value);
    }
    let info = resolve_key(key)?;
    check_value(info, value)?;
    for old in info.deprecated_keys {
        scenario.config.remove(*old);
    }
    scenario
        .config
        .insert(info.key.to_string(), value.to_string());
    Ok(())
}

fn set_operator_knob(scenario: &mut Scenario, rest: &str, value: &str) -> Result<(), String> {
    // Knob names have no dots, operator names might: split at the last dot.
    let (name, knob) = rest
        .rsplit_once('.')
        .ok_or_else(|| format!("'operator.{rest}': expected operator.<operator-name>.<knob>"))?;
    let known = scenario
        .operators
        .iter()
        .map(|o| o.name.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    let op = scenario
        .operators
        .iter_mut()
        .find(|o| o.name == name)
        .ok_or_else(|| format!("unknown operator '{name}' (operators: {known})"))?;
    let bad = |expected: &str| {
        format!("operator.{name}.{knob}: bad value '{value}', expected {expected}")
    };
    let number = |v: &str| v.parse::<u64>().map_err(|_| bad("a non-negative integer"));
    let small = |v: &str| v.parse::<u32>().map_err(|_| bad("a non-negative integer"));
    match (knob, &mut op.kind) {
        ("parallelism", _) => {
            // Empty (or Flink's -1, PARALLELISM_DEFAULT): the job's `parallelism.default`.
            op.parallelism = match value {
                "" | "-1" | "default" => None,
                v => Some(small(v)?),
            }
        }
        ("max-parallelism", _) => {
            op.max_parallelism = match value {
                "" | "-1" | "none" => None,
                v => Some(small(v)?),
            }
        }
        ("cost-per-record", _) => {
            parse_duration(value).map_err(|_| bad("a duration such as 5ms or 20us"))?;
            op.cost_per_record = Some(value.to_string());
        }
        ("rate", OperatorKind::Datagen { rate, .. }) => *rate = number(value)?,
        ("record-size", OperatorKind::Datagen { record_size, .. }) => {
            *record_size = crate::types::parse_memory_size(value)
                .map_err(|_| bad("a size in bytes such as 1024 or 1kb"))?
        }
        ("keys", OperatorKind::Datagen { keys, .. }) => *keys = small(value)?,
        ("bounded", OperatorKind::Datagen { bounded, .. }) => {
            *bounded = match value {
                "" | "none" | "false" => None,
                v => Some(number(v)?),
            }
        }
        ("keep-percent", OperatorKind::Filter { keep_percent }) => *keep_percent = small(value)?,
        ("window", OperatorKind::KeyedWindowSum { window }) => {
            parse_duration(value).map_err(|_| bad("a duration such as 10s"))?;
            *window = value.to_string();
        }
        _ => {
            let mut knobs: Vec<&str> = COMMON_KNOBS.to_vec();
            knobs.extend(op.kind.knobs());
            return Err(format!(
                "operator '{name}' ({}) has no knob '{knob}'; its knobs are: {}",
                op.kind.type_name(),
                knobs.join(", ")
            ));
        }
    }
    Ok(())
}
