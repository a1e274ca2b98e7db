//! The scenario: what a user describes (topology, Flink configuration, workload, seed, faults), how
//! it is checked, and how it becomes a chained job graph (Flink's `StreamGraph` -> `JobGraph`).
//!
//! - `model`: the serde data ([`Scenario`]), JSON on disk and in URLs.
//! - `config_keys` / `config`: the Flink keys understood, their 2.3 defaults and deprecated names,
//!   and the typed [`FlinkConfig`].
//! - `set` / `yaml`: `--set KEY=VALUE` and Flink `config.yaml` snippets.
//! - `validate` / `job_graph`: [`Scenario::validate`] and operator chaining.
//! - `presets`: ready-made scenarios.
//! - `vertex_id`: `JobVertexID`s derived from operator uids, as Flink derives them.

mod config;
mod config_keys;
mod faults;
mod job_graph;
mod model;
mod presets;
mod set;
mod validate;
mod vertex_id;
mod yaml;

#[cfg(test)]
mod tests_config;
#[cfg(test)]
mod tests_graph;

pub use config::{
    CheckpointingMode, ExternalizedCheckpointRetention, FlinkConfig, RestartStrategy,
};
pub use config_keys::{
    check_value, closest_key, edit_distance, flink_path, format_thousandths, parse_thousandths,
    resolve_key, ConfigKeyInfo, ConfigValue, ValueKind, CONFIG_KEYS, RESTART_STRATEGY_TYPES,
};
pub use faults::{
    edge_ref, parse_edge_ref, parse_fail_flag, parse_task_ref, Fault, ResolvedFault, TaskRef,
};
pub use job_graph::{
    default_max_parallelism, JobEdge, JobGraph, JobVertex, DEFAULT_LOWER_BOUND_MAX_PARALLELISM,
    UPPER_BOUND_MAX_PARALLELISM,
};
pub use model::{
    Cluster, EdgeSpec, KeyDistribution, OperatorKind, OperatorSpec, Partitioner, Scenario,
    SCENARIO_VERSION,
};
pub use presets::{preset, PRESETS};
pub use set::apply_set;
pub use validate::ValidationError;
pub use vertex_id::{job_vertex_id, murmur3_128};
pub use yaml::parse_flink_yaml;
