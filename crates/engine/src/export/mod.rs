//! `barrierlab export`: a scenario as a runnable, self-contained Flink 2.3 DataStream job in Java.
//!
//! Pure: it returns the files' paths and contents; the caller writes them. The scenario is validated
//! as `run` does ([`Scenario::job_graph`]) and what Flink cannot express is refused by name
//! (`refusals`), never dropped.
//!
//! - `plan`: record types, partitioning, chaining breaks and per-record work per operator.
//! - `java`: the fixed Java classes (`java/*.java`) and the generated `Topology.java`.
//! - `config_yaml`, `scripts`, `readme`: `config.yaml`, `run.sh` + `log4j2.properties`, `README.md`.

mod config_yaml;
mod java;
mod plan;
mod readme;
mod refusals;
mod scripts;

#[cfg(test)]
mod tests;

pub use java::JAVA_DIR;
pub use refusals::MIN_RECORD_SIZE;

use crate::scenario::Scenario;

/// One file of an export, its path relative to the export directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportedFile {
    pub path: String,
    pub contents: String,
    /// `run.sh`: to be written with the executable bit.
    pub executable: bool,
}

/// Choices the caller can make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportOptions {
    /// `execution.checkpointing.dir`, a `file://` URI. `None`: the scenario's own
    /// `execution.checkpointing.dir` if it sets one, else a directory under `/tmp` named after the
    /// scenario (the CLI passes one inside the export directory).
    pub checkpoint_dir: Option<String>,
}

/// [`export_flink_job_with`] with default options.
pub fn export_flink_job(scenario: &Scenario) -> Result<Vec<ExportedFile>, String> {
    export_flink_job_with(
        scenario,
        &ExportOptions {
            checkpoint_dir: None,
        },
    )
}

/// A directory name from a scenario name: letters, digits, `-` and `_` (the playground names
/// its download after it too).
pub fn slug(name: &str) -> String {
    // Runs of anything else become one '-': "custom: seed-2pc + 1 fault" → "custom-seed-2pc-1-fault".
    let mut s = String::with_capacity(name.len());
    for c in name.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            s.push(c);
        } else if !s.ends_with('-') {
            s.push('-');
        }
    }
    let s = s.trim_matches('-').to_string();
    if s.is_empty() {
        "scenario".into()
    } else {
        s
    }
}

/// The export's files, or every reason the scenario cannot be exported.
pub fn export_flink_job_with(
    scenario: &Scenario,
    options: &ExportOptions,
) -> Result<Vec<ExportedFile>, String> {
    let graph = scenario.job_graph()?;
    let faults = refusals::check(scenario)?;
    let plan = plan::Plan::new(scenario, &graph, &faults);
    let checkpoint_dir = options
        .checkpoint_dir
        .clone()
        .or_else(|| graph.config.checkpoint_dir.clone())
        .unwrap_or_else(|| {
            format!(
                "file:///tmp/barrierlab-checkpoints/{}",
                slug(&scenario.name)
            )
        });

    let file = |path: String, contents: String| ExportedFile {
        path,
        contents,
        executable: false,
    };
    let mut files = Vec::new();
    for (name, text) in java::FIXED_SOURCES {
        files.push(file(format!("{JAVA_DIR}/{name}"), (*text).to_string()));
    }
    files.push(file(
        format!("{JAVA_DIR}/Topology.java"),
        java::topology(scenario, &plan),
    ));
    files.push(file(
        "config.yaml".into(),
        config_yaml::config_yaml(scenario, &graph, &checkpoint_dir),
    ));
    files.push(file(
        "log4j2.properties".into(),
        scripts::LOG4J2_PROPERTIES.into(),
    ));
    files.push(ExportedFile {
        path: "run.sh".into(),
        contents: scripts::RUN_SH.into(),
        executable: true,
    });
    files.push(file(
        "README.md".into(),
        readme::readme(scenario, &graph, &plan),
    ));
    files.push(file(
        "scenario.json".into(),
        scenario.to_json_pretty() + "\n",
    ));
    Ok(files)
}
