//! The scenario: what a user describes (topology, Flink configuration, workload, seed, faults), how
//! it is checked, and how it becomes a chained job graph (Flink's `StreamGraph` -> `JobGraph`).
//!
//! - `model`: the serde data ([`Scenario`]), JSON on disk and in URLs.
//! - `config_keys` / `config`: the Flink keys understood, their 2.3 defaults and deprecated names,
//!   and the typed [`FlinkConfig`].
//! - `set` / `yaml` / `flink_conf`: `--set KEY=VALUE`, the YAML subset of Flink's `config.yaml`,
//!   and a whole `config.yaml` applied to a scenario (modelled keys, notes, refusals).
//! - `flink_keys`: every Flink 2.3 configuration key (generated from Flink's jars).
//! - `validate` / `job_graph`: [`Scenario::validate`] and operator chaining.
//! - `presets`: ready-made scenarios.
//! - `cost`: what a scenario costs to simulate, estimated before it runs, and the budget.
//! - `fuzz`: hostile mutations of the presets for `barrierlab fuzz-scenarios`.
//! - `vertex_id`: `JobVertexID`s derived from operator uids, as Flink derives them.

mod bench;
mod config;
mod config_keys;
pub mod cost;
mod faults;
mod flink_conf;
mod flink_keys;
pub mod fuzz;
mod identity;
mod job_graph;
mod knobs;
mod model;
mod presets;
mod set;
mod validate;
mod vertex_id;
mod yaml;

#[cfg(test)]
mod tests_config;
#[cfg(test)]
mod tests_flink_conf;
#[cfg(test)]
mod tests_graph;

pub use bench::bench_job;
pub use config::{
    CheckpointingMode, DebloatConfig, ExternalizedCheckpointRetention, FlinkConfig,
    RestartStrategy, StateBackendType, WarmUpCosts,
};
pub use config_keys::{
    check_value, closest_key, edit_distance, flink_path, format_thousandths, parse_thousandths,
    resolve_key, ConfigKeyInfo, ConfigValue, ValueKind, CONFIG_KEYS, RESTART_STRATEGY_TYPES,
};
pub use cost::{
    estimate, CostEstimate, BUDGET_CHANNELS, BUDGET_WORK_PER_RUN, BUDGET_WORK_PER_SECOND,
};
pub use faults::{
    edge_ref, parse_edge_ref, parse_fail_flag, parse_task_ref, Fault, ResolvedFault, TaskRef,
};
pub use flink_conf::{apply_flink_conf, cluster_key, ConfNote, CLUSTER_KEYS};
pub use flink_keys::{flink_key, flink_keys, suggest_key, FlinkKey, PLUGIN_PREFIXES};
pub use identity::{base_preset, identify, is_user_named, CUSTOM_PREFIX};
pub use job_graph::{
    default_max_parallelism, JobEdge, JobGraph, JobVertex, DEFAULT_LOWER_BOUND_MAX_PARALLELISM,
    UPPER_BOUND_MAX_PARALLELISM,
};
pub use knobs::{COMMON_KNOBS, DATAGEN_KNOBS, FILTER_KNOBS, WINDOW_KNOBS};
pub use model::{
    Cluster, EdgeSpec, KeyDistribution, OperatorKind, OperatorSpec, Partitioner, Scenario,
    SCENARIO_VERSION,
};
pub use presets::{preset, PRESETS};
pub use set::apply_set;
pub use validate::{
    ValidationError, MAX_COST_PER_RECORD, MAX_EDGE_LATENCY, MAX_KEYS, MAX_RATE,
    MAX_RECORD_SEGMENTS, MAX_TASKMANAGERS, MAX_WINDOW,
};
pub use vertex_id::{job_vertex_id, murmur3_128};
pub use yaml::{parse_flink_yaml, parse_flink_yaml_lines, YamlEntry};
