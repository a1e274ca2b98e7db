//! A Flink `config.yaml` applied to a scenario, as the playground's paste box and the CLI's
//! `--config` read it.
//!
//! Every key is sorted into one of:
//! - modelled: a key of the engine's table ([`CONFIG_KEYS`], into `Scenario::config`) or of the
//!   cluster ([`CLUSTER_KEYS`], into `Scenario::cluster`); a value of the wrong form is refused;
//! - valid but not modelled: any other Flink 2.3 key ([`flink_key`]); accepted with a note;
//! - unknown: refused, with the closest known key when one is close.
//!
//! Problems name their line; nothing is applied unless the whole file is accepted.

use std::fmt;

use super::config::FlinkConfig;
use super::config_keys::{
    check_value, resolve_key, ConfigKeyInfo, ConfigValue, ValueKind, CONFIG_KEYS,
};
use super::flink_keys::{flink_key, suggest_key, FlinkKey};
use super::model::Scenario;
use super::yaml::parse_flink_yaml_lines;

const INT_MAX: i64 = i32::MAX as i64;

/// Flink keys the scenario's [`Cluster`](super::Cluster) answers rather than its configuration
/// map (`TaskManagerOptions.NUM_TASK_SLOTS`, `TaskManagerOptions.MINI_CLUSTER_NUM_TASK_MANAGERS`).
pub const CLUSTER_KEYS: &[ConfigKeyInfo] = &[
    ConfigKeyInfo {
        key: "taskmanager.numberOfTaskSlots",
        default: "1",
        description: "Slots per TaskManager (the scenario's cluster.slots-per-taskmanager).",
        deprecated_keys: &[],
        kind: ValueKind::Int {
            min: 1,
            max: INT_MAX,
        },
    },
    ConfigKeyInfo {
        key: "minicluster.number-of-taskmanagers",
        default: "1",
        description: "Number of TaskManagers (the scenario's cluster.taskmanagers).",
        deprecated_keys: &["local.number-taskmanager"],
        kind: ValueKind::Int {
            min: 1,
            max: INT_MAX,
        },
    },
];

/// The cluster key entry for `key` (current or deprecated name).
pub fn cluster_key(key: &str) -> Option<&'static ConfigKeyInfo> {
    CLUSTER_KEYS
        .iter()
        .find(|k| k.key == key || k.deprecated_keys.contains(&key))
}

/// Sets a cluster key on the scenario (the value already checked).
fn set_cluster(scenario: &mut Scenario, info: &ConfigKeyInfo, n: u32) {
    if info.key == CLUSTER_KEYS[0].key {
        scenario.cluster.slots_per_taskmanager = Some(n);
    } else {
        scenario.cluster.taskmanagers = n;
    }
}

/// `--set` for a cluster key: checks the value and sets the cluster field.
pub(super) fn set_cluster_key(
    scenario: &mut Scenario,
    info: &ConfigKeyInfo,
    value: &str,
) -> Result<(), String> {
    match check_value(info, value)? {
        ConfigValue::Int(n) => set_cluster(scenario, info, u32::try_from(n).unwrap_or(1)),
        _ => unreachable!("cluster keys are integers"),
    }
    Ok(())
}

/// Something worth knowing about an accepted line: a key not modelled, a deprecated name, a key
/// another line overrides, a cluster the engine sized.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfNote {
    pub line: usize,
    pub key: String,
    pub message: String,
}

impl fmt::Display for ConfNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}: {}", self.line, self.key, self.message)
    }
}

/// Where a modelled key goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    Config(&'static ConfigKeyInfo),
    Cluster(&'static ConfigKeyInfo),
}

impl Target {
    fn info(self) -> &'static ConfigKeyInfo {
        match self {
            Target::Config(i) | Target::Cluster(i) => i,
        }
    }
}

/// One modelled line.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Setting {
    line: usize,
    /// As written (maybe a deprecated name).
    key: String,
    value: String,
    target: Target,
}

/// Why the simulator ignores some common keys; other keys get the plain note.
const NOT_MODELLED_WHY: &[(&str, &str)] = &[
    (
        "execution.checkpointing.storage",
        "checkpoints always go to a (simulated) file system",
    ),
    (
        "state.checkpoint-storage",
        "checkpoints always go to a (simulated) file system",
    ),
    (
        "taskmanager.memory.",
        "memory is not simulated (only network buffers' segment size)",
    ),
    ("jobmanager.memory.", "memory is not simulated"),
    ("rest.", "the simulator has no REST endpoint"),
    ("web.", "the simulator has no web frontend of its own"),
    ("high-availability", "the simulated JobManager never fails"),
    ("metrics.", "the simulator reports no metrics"),
];

fn not_modelled(key: &str, found: FlinkKey) -> String {
    let why = NOT_MODELLED_WHY
        .iter()
        .find(|(prefix, _)| key.starts_with(prefix))
        .map(|(_, why)| format!(": {why}"))
        .unwrap_or_default();
    match found {
        FlinkKey::Current(_) => format!("not modelled{why}"),
        FlinkKey::Old { current, .. } => {
            format!("not modelled (deprecated name of {current}){why}")
        }
        FlinkKey::Prefix(prefix) => {
            format!("not modelled (passed on by Flink under '{prefix}'){why}")
        }
    }
}

/// Reads a `config.yaml` and applies it to a copy of `scenario`: modelled keys change it (config
/// keys replace any other spelling of the same key), the rest come back as notes. Every problem
/// comes back at once, each naming its line; the scenario must still validate afterwards.
pub fn apply_flink_conf(
    scenario: &Scenario,
    text: &str,
) -> Result<(Scenario, Vec<ConfNote>), Vec<String>> {
    let entries = parse_flink_yaml_lines(text).map_err(|e| vec![e])?;
    let mut settings: Vec<Setting> = Vec::new();
    let mut notes: Vec<ConfNote> = Vec::new();
    let mut errors: Vec<String> = Vec::new();
    let note = |line: usize, key: &str, message: String| ConfNote {
        line,
        key: key.to_string(),
        message,
    };
    for e in &entries {
        let target = match (resolve_key(&e.key), cluster_key(&e.key)) {
            (Ok(info), _) => Some(Target::Config(info)),
            (Err(_), Some(info)) => Some(Target::Cluster(info)),
            (Err(_), None) => None,
        };
        if let Some(target) = target {
            let info = target.info();
            match check_value(info, &e.value) {
                Ok(_) => {
                    if e.key != info.key {
                        notes.push(note(
                            e.line,
                            &e.key,
                            format!("deprecated name; read as {}", info.key),
                        ));
                    }
                    settings.push(Setting {
                        line: e.line,
                        key: e.key.clone(),
                        value: e.value.trim().to_string(),
                        target,
                    });
                }
                Err(m) => errors.push(format!("line {}: {m}", e.line)),
            }
            continue;
        }
        match flink_key(&e.key) {
            Some(found) => notes.push(note(e.line, &e.key, not_modelled(&e.key, found))),
            None => {
                let table: Vec<&'static str> = CONFIG_KEYS
                    .iter()
                    .chain(CLUSTER_KEYS)
                    .map(|k| k.key)
                    .collect();
                let hint = suggest_key(&e.key, &table)
                    .map(|k| format!("; did you mean '{k}'?"))
                    .unwrap_or_default();
                errors.push(format!(
                    "line {}: unknown key '{}': not a Flink 2.3 configuration key{hint}",
                    e.line, e.key
                ));
            }
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }

    // Several spellings of one key: Flink reads the current name first, then the deprecated
    // names in their declared order.
    let rank = |s: &Setting| {
        let info = s.target.info();
        std::iter::once(info.key)
            .chain(info.deprecated_keys.iter().copied())
            .position(|k| k == s.key)
            .unwrap_or(usize::MAX)
    };
    let mut winners: Vec<&Setting> = Vec::new();
    for s in &settings {
        match winners
            .iter_mut()
            .find(|w| w.target.info().key == s.target.info().key)
        {
            None => winners.push(s),
            Some(w) => {
                let (win, lose) = if rank(s) < rank(w) { (s, *w) } else { (*w, s) };
                notes.push(note(
                    lose.line,
                    &lose.key,
                    format!(
                        "ignored: {} (line {}) is read instead, as in Flink",
                        win.key, win.line
                    ),
                ));
                *w = win;
            }
        }
    }

    let mut next = scenario.clone();
    let mut slots_line = None;
    let mut taskmanagers_set = false;
    for s in &winners {
        match s.target {
            Target::Config(info) => {
                next.config.remove(info.key);
                for old in info.deprecated_keys {
                    next.config.remove(*old);
                }
                next.config.insert(info.key.to_string(), s.value.clone());
            }
            Target::Cluster(info) => {
                set_cluster_key(&mut next, info, &s.value).map_err(|e| vec![e])?;
                if info.key == CLUSTER_KEYS[0].key {
                    slots_line = Some((s.line, s.key.clone()));
                } else {
                    taskmanagers_set = true;
                }
            }
        }
    }
    // Slots per TaskManager without a number of TaskManagers: as many as the job needs, as an
    // active resource manager (Kubernetes, YARN) starts TaskManagers for the slots requested.
    if let (Some((line, key)), false, Some(slots)) = (
        &slots_line,
        taskmanagers_set,
        next.cluster.slots_per_taskmanager,
    ) {
        let needed = (0..next.operators.len())
            .map(|i| next.parallelism(i))
            .max()
            .unwrap_or(1);
        let tms = next.cluster.taskmanagers.max(1);
        if u64::from(slots) * u64::from(tms) < u64::from(needed) {
            let wanted = needed.div_ceil(slots);
            next.cluster.taskmanagers = wanted;
            notes.push(note(
                *line,
                key,
                format!(
                    "the job needs {needed} slots: the cluster gets {wanted} TaskManagers of {slots} slots, as an active resource manager (Kubernetes, YARN) starts them on demand; set minicluster.number-of-taskmanagers to fix the number"
                ),
            ));
        }
    }
    notes.sort_by_key(|n| n.line);

    FlinkConfig::from_map(&next.config)?;
    if let Err(errs) = next.validate() {
        return Err(errs.iter().map(|e| e.to_string()).collect());
    }
    Ok((next, notes))
}
