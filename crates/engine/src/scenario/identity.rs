//! A scenario's name and description once it is edited: "custom: seed-backpressure + unaligned +
//! 1 fault", so a link, a stored checkpoint or a screenshot never calls an edited job by the name
//! of the preset it started from.

use super::{preset, Scenario, PRESETS};

/// What a derived name starts with; the base preset's name follows it.
pub const CUSTOM_PREFIX: &str = "custom: ";

/// The preset a scenario is or was derived from: its own name, or the base a derived name names.
pub fn base_preset(s: &Scenario) -> Option<&'static str> {
    let name = s.name.strip_prefix(CUSTOM_PREFIX).unwrap_or(&s.name);
    let base = name.split(" + ").next().unwrap_or(name).trim();
    PRESETS.iter().map(|(n, _)| *n).find(|n| *n == base)
}

/// Whether the name was chosen by a person (neither a preset's nor a derived one): such a name
/// is kept through further edits.
pub fn is_user_named(s: &Scenario) -> bool {
    !s.name.is_empty()
        && !s.name.starts_with(CUSTOM_PREFIX)
        && !PRESETS.iter().any(|(n, _)| *n == s.name)
}

/// Gives `edited` the name and description that say what it is: the preset's own when it equals
/// preset `base` again (whatever the seed), a derived "custom: …" pair otherwise. A name someone
/// chose is kept, and so is their description.
pub fn identify(base: &str, edited: &mut Scenario) {
    if is_user_named(edited) {
        return;
    }
    let Some(mut original) = preset(base) else {
        return;
    };
    original.seed = edited.seed;
    let changes = changes(&original, edited);
    if changes.is_empty() {
        edited.name = original.name;
        edited.description = original.description;
        return;
    }
    edited.name = format!("{CUSTOM_PREFIX}{base} + {}", changes.join(" + "));
    edited.description = format!(
        "{} Changed here: {}.",
        original.description,
        changes.join(", ")
    );
}

/// The edits from `base` to `edited`, each in a few words.
fn changes(base: &Scenario, edited: &Scenario) -> Vec<String> {
    let mut out = Vec::new();
    for (key, value) in &edited.config {
        if base.config.get(key) == Some(value) {
            continue;
        }
        out.push(match (key.as_str(), value.as_str()) {
            ("execution.checkpointing.unaligned.enabled", "true") => "unaligned".to_string(),
            ("execution.checkpointing.unaligned.enabled", "false") => "aligned".to_string(),
            ("execution.checkpointing.mode", mode) => mode.to_string(),
            ("execution.checkpointing.interval", v) => format!("interval {v}"),
            ("execution.checkpointing.aligned-checkpoint-timeout", v) => {
                format!("aligned timeout {v}")
            }
            (k, v) => format!("{k}={v}"),
        });
    }
    for key in base.config.keys() {
        if !edited.config.contains_key(key) {
            out.push(format!("{key} unset"));
        }
    }
    if base.operators != edited.operators || base.edges != edited.edges {
        out.extend(topology_changes(base, edited));
    }
    if base.cluster != edited.cluster {
        out.push("cluster".to_string());
    }
    let faults = edited.faults.len();
    if edited.faults != base.faults {
        out.push(match faults {
            0 => "no faults".to_string(),
            1 => "1 fault".to_string(),
            n => format!("{n} faults"),
        });
    }
    out
}

fn topology_changes(base: &Scenario, edited: &Scenario) -> Vec<String> {
    let mut out = Vec::new();
    let mut other = false;
    for (i, op) in edited.operators.iter().enumerate() {
        match base.operators.iter().position(|b| b.name == op.name) {
            Some(j) if base.operators[j].kind == op.kind => {
                let b = &base.operators[j];
                let parallelism = edited.parallelism(i);
                if base.parallelism(j) != parallelism {
                    out.push(format!("{} ×{parallelism}", op.name));
                }
                if b.cost_per_record != op.cost_per_record {
                    let cost = op.cost_per_record.as_deref().unwrap_or("default cost");
                    out.push(format!("{} {cost}/record", op.name));
                }
                other |= b.max_parallelism != op.max_parallelism;
            }
            _ => other = true,
        }
    }
    other |= base.operators.len() != edited.operators.len() || base.edges != edited.edges;
    if other {
        out.push("edited topology".to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::parse_fail_flag;

    fn edited() -> Scenario {
        let mut s = preset("seed-backpressure").unwrap();
        s.seed = 7;
        s.config.insert(
            "execution.checkpointing.unaligned.enabled".into(),
            "true".into(),
        );
        s.faults
            .push(parse_fail_flag("count-per-key#1@12s").unwrap());
        s
    }

    #[test]
    fn an_edited_preset_is_named_after_its_base_and_its_changes() {
        let mut s = edited();
        identify("seed-backpressure", &mut s);
        assert_eq!(s.name, "custom: seed-backpressure + unaligned + 1 fault");
        assert!(
            s.description.starts_with("seed-demo with 5 ms per record"),
            "{}",
            s.description
        );
        assert!(
            s.description.ends_with("Changed here: unaligned, 1 fault."),
            "{}",
            s.description
        );
        assert_eq!(base_preset(&s), Some("seed-backpressure"));
        // Undoing the edits gives the preset its name back, whatever the seed.
        s.faults.clear();
        s.config.remove("execution.checkpointing.unaligned.enabled");
        identify("seed-backpressure", &mut s);
        assert_eq!(s.name, "seed-backpressure");
        assert_eq!(
            s.description,
            preset("seed-backpressure").unwrap().description
        );
    }

    #[test]
    fn topology_edits_are_named() {
        let mut s = preset("seed-demo").unwrap();
        s.operators[1].parallelism = Some(4);
        s.operators[1].cost_per_record = Some("1ms".into());
        identify("seed-demo", &mut s);
        assert_eq!(
            s.name,
            "custom: seed-demo + count-per-key ×4 + count-per-key 1ms/record"
        );
        s.operators.pop();
        identify("seed-demo", &mut s);
        assert!(s.name.ends_with("+ edited topology"), "{}", s.name);
    }

    #[test]
    fn a_name_someone_chose_is_kept() {
        let mut s = edited();
        s.name = "my backpressure lesson".into();
        s.description = "mine".into();
        identify("seed-backpressure", &mut s);
        assert_eq!(
            (s.name.as_str(), s.description.as_str()),
            ("my backpressure lesson", "mine")
        );
        assert!(is_user_named(&s));
        assert_eq!(base_preset(&s), None);
    }
}
