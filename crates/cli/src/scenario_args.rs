//! How commands pick a scenario: `--preset NAME` or a JSON file, then `--seed`, a Flink
//! `--config` file and `--set`.

use std::path::PathBuf;

use barrierlab_engine::scenario::{
    apply_flink_conf, apply_set, parse_fail_flag, preset, Fault, Scenario, PRESETS,
};

#[derive(clap::Args, Debug, Clone)]
pub struct ScenarioArgs {
    /// A built-in scenario (see `barrierlab presets`).
    #[arg(long, conflicts_with = "file")]
    pub preset: Option<String>,
    /// A scenario JSON file.
    pub file: Option<PathBuf>,
    /// Overrides the scenario's seed.
    #[arg(long)]
    pub seed: Option<u64>,
    /// A Flink 2.3 `config.yaml`: the keys the simulator models change the scenario, other Flink
    /// keys are accepted with a warning on stderr, unknown keys and bad values are refused.
    /// Applied before `--set`.
    #[arg(long = "config", value_name = "CONFIG.yaml")]
    pub config: Option<PathBuf>,
    /// A Flink key (`execution.checkpointing.interval=5s`) or an operator knob
    /// (`operator.count-per-key.cost-per-record=5ms`). Repeatable.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Kills a subtask at a simulated time: `<operator>#<subtask>@<time>`, e.g.
    /// `count-per-key#1@12s`. Repeatable.
    #[arg(long = "fail", value_name = "OP#N@TIME")]
    pub fail: Vec<String>,
    /// A JSON file with a list of faults (see docs/faults.md), added to the scenario's own.
    #[arg(long = "faults", value_name = "FILE.json")]
    pub faults: Option<PathBuf>,
}

impl ScenarioArgs {
    pub fn load(&self) -> Result<Scenario, String> {
        let mut scenario = match (&self.preset, &self.file) {
            (Some(name), _) => preset(name).ok_or_else(|| {
                let known: Vec<&str> = PRESETS.iter().map(|(n, _)| *n).collect();
                format!(
                    "unknown preset '{name}'; known presets: {}",
                    known.join(", ")
                )
            })?,
            (None, Some(path)) => {
                let text = std::fs::read_to_string(path)
                    .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
                Scenario::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))?
            }
            (None, None) => return Err("give --preset NAME or a scenario FILE.json".into()),
        };
        if let Some(seed) = self.seed {
            scenario.seed = seed;
        }
        if let Some(path) = &self.config {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            let (applied, notes) = apply_flink_conf(&scenario, &text).map_err(|errors| {
                errors
                    .iter()
                    .map(|e| format!("{}: {e}", path.display()))
                    .collect::<Vec<_>>()
                    .join("\n")
            })?;
            for note in notes {
                eprintln!("barrierlab: warning: {}: {note}", path.display());
            }
            scenario = applied;
        }
        for assignment in &self.set {
            apply_set(&mut scenario, assignment).map_err(|e| format!("--set {assignment}: {e}"))?;
        }
        for flag in &self.fail {
            scenario.faults.push(parse_fail_flag(flag)?);
        }
        if let Some(path) = &self.faults {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            let faults: Vec<Fault> = serde_json::from_str(&text)
                .map_err(|e| format!("{}: not a fault list: {e}", path.display()))?;
            scenario.faults.extend(faults);
        }
        Ok(scenario)
    }
}
