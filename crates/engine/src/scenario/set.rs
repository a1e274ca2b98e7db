//! `--set KEY=VALUE`: one change to a scenario, checked on the spot.

use super::config_keys::{check_value, resolve_key};
use super::model::Scenario;

/// Applies `KEY=VALUE`. Flink keys (current or deprecated) are validated and stored under their
/// current name, replacing any deprecated spelling; `taskmanager.numberOfTaskSlots` and
/// `minicluster.number-of-taskmanagers` set the cluster; `operator.<name>.<knob>=<value>` sets an
/// operator knob as the editor does ([`OperatorSpec::set_knob`](super::OperatorSpec::set_knob)).
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
    if !op.knob_names().contains(&knob) {
        return Err(format!(
            "operator '{name}' ({}) has no knob '{knob}'; its knobs are: {}",
            op.kind.type_name(),
            op.knob_names().join(", ")
        ));
    }
    op.set_knob(knob, value)
        .map_err(|e| format!("operator.{name}.{e}"))
}
