//! The scenario as plain serde data: what a user writes (JSON on disk, compressed in a URL).
//!
//! Field names are kebab-case throughout, like Flink's own config keys, so a knob reads the same in
//! JSON, in `--set operator.x.record-size=…` and in the UI. Defaults are skipped when serializing to
//! keep URLs short, and unknown fields are rejected so a typo fails loudly instead of being ignored.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::types::{parse_duration, Micros};

/// Flink's key for the parallelism of operators that set none.
pub const DEFAULT_PARALLELISM_KEY: &str = "parallelism.default";

/// The only scenario format version this build reads and writes.
pub const SCENARIO_VERSION: u32 = 1;

/// One simulated job: topology, Flink configuration, workload, seed and fault script.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Scenario {
    /// Format version, so a stored URL from an older build can be recognised (always 1 for now).
    #[serde(default = "default_version")]
    pub version: u32,
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// Seed of the simulation's RNG: same scenario + same seed = same run.
    #[serde(default)]
    pub seed: u64,
    #[serde(default, skip_serializing_if = "Cluster::is_default")]
    pub cluster: Cluster,
    pub operators: Vec<OperatorSpec>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub edges: Vec<EdgeSpec>,
    /// Flink configuration keys verbatim with string values, as in Flink's `config.yaml`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub config: BTreeMap<String, String>,
    /// Fault script: kills, slow operators, storage failures, declines, lost notifications.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub faults: Vec<super::faults::Fault>,
}

fn default_version() -> u32 {
    SCENARIO_VERSION
}

fn one() -> u32 {
    1
}

fn is_one(v: &u32) -> bool {
    *v == 1
}

/// The TaskManagers the job runs on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Cluster {
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub taskmanagers: u32,
    /// Unset: just enough slots for the job (its largest parallelism, spread over the TaskManagers),
    /// which is what a user sizing a cluster for one job does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slots_per_taskmanager: Option<u32>,
}

impl Default for Cluster {
    fn default() -> Self {
        Cluster {
            taskmanagers: 1,
            slots_per_taskmanager: None,
        }
    }
}

impl Cluster {
    pub fn is_default(&self) -> bool {
        *self == Cluster::default()
    }
}

/// One operator of the stream graph (a Flink `StreamNode`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct OperatorSpec {
    /// Unique within the scenario; edges and `--set operator.<name>.…` refer to it.
    pub name: String,
    pub kind: OperatorKind,
    /// Unset: the job's default parallelism, Flink's `parallelism.default` (1 unless configured),
    /// as an operator without `setParallelism` gets it. Read it through [`Scenario::parallelism`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parallelism: Option<u32>,
    /// Unset: `pipeline.max-parallelism` if set, else Flink's default formula (see `job_graph`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_parallelism: Option<u32>,
    /// Processing time per record, a Flink duration such as `5ms` or `20us`. Unset: the kind's
    /// default ([`OperatorKind::default_cost_per_record`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_per_record: Option<String>,
    /// Keyed count and keyed list: `StateTtlConfig.newBuilder(ttl)` on their state, a Flink
    /// duration (`10s`, `1 min`). Unset: no TTL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_ttl: Option<String>,
}

impl OperatorSpec {
    /// A spec with every optional field unset (so the default parallelism).
    pub fn new(name: &str, kind: OperatorKind) -> Self {
        OperatorSpec {
            name: name.to_string(),
            kind,
            parallelism: None,
            max_parallelism: None,
            cost_per_record: None,
            state_ttl: None,
        }
    }

    pub fn with_parallelism(mut self, parallelism: u32) -> Self {
        self.parallelism = Some(parallelism);
        self
    }

    /// The operator's own parallelism, else `default` (the job's `parallelism.default`).
    pub fn parallelism_or(&self, default: u32) -> u32 {
        self.parallelism.unwrap_or(default)
    }

    pub fn with_cost(mut self, cost: &str) -> Self {
        self.cost_per_record = Some(cost.to_string());
        self
    }

    /// The per-record cost in microseconds, falling back to the kind's default.
    pub fn cost_per_record_micros(&self) -> Result<Micros, String> {
        match &self.cost_per_record {
            Some(text) => parse_duration(text),
            None => Ok(self.kind.default_cost_per_record()),
        }
    }

    /// `state-ttl` in milliseconds (`StateTtlConfig` counts milliseconds), if set.
    pub fn state_ttl_millis(&self) -> Result<Option<u64>, String> {
        self.state_ttl
            .as_deref()
            .map(|text| parse_duration(text).map(|micros| micros / 1_000))
            .transpose()
    }

    /// The operator's name as Flink shows it in a job vertex name.
    pub fn display_name(&self) -> String {
        self.kind.display_name(&self.name)
    }
}

/// How a datagen spreads its records over its keys.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "kebab-case",
    deny_unknown_fields,
    from = "KeyDistributionRepr"
)]
pub enum KeyDistribution {
    /// Every key equally likely.
    #[default]
    Uniform,
    /// `hot_percent` % of the records go to the first `hot_keys` keys, the rest spread uniformly.
    #[serde(rename_all = "kebab-case")]
    Skewed { hot_keys: u32, hot_percent: u32 },
}

impl KeyDistribution {
    pub fn is_uniform(&self) -> bool {
        *self == KeyDistribution::Uniform
    }
}

/// What an operator does. The tag is `"type"`, e.g. `{"type": "keyed-count"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "kebab-case",
    deny_unknown_fields,
    from = "OperatorKindRepr"
)]
pub enum OperatorKind {
    /// A `DataGeneratorSource`: integer keys, fixed-size records.
    #[serde(rename_all = "kebab-case")]
    Datagen {
        /// Records per second in total over all subtasks (as the source's rate limiter).
        rate: u64,
        /// Serialized bytes per record.
        record_size: u64,
        /// Number of distinct integer keys (0..keys).
        keys: u32,
        #[serde(default, skip_serializing_if = "KeyDistribution::is_uniform")]
        key_distribution: KeyDistribution,
        /// Total records before the source finishes; unset means unbounded.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        bounded: Option<u64>,
    },
    /// A stateless one-to-one map.
    Map,
    /// A stateless filter keeping `keep_percent` % of the records.
    #[serde(rename_all = "kebab-case")]
    Filter { keep_percent: u32 },
    /// Keyed `ValueState<Long>` counter per key (the seed's `count-per-key`).
    KeyedCount,
    /// Keyed `ListState<Long>`: appends each record's value to its key's list and forwards the
    /// record (a buffer that grows with every record, unless a state TTL bounds it).
    KeyedList,
    /// Keyed processing-time tumbling window summing per key.
    KeyedWindowSum {
        /// Window length, a Flink duration.
        window: String,
    },
    /// Merges two inputs (a two-input task).
    Union,
    /// A map implementing `CheckpointedFunction` + `CheckpointListener` (the seed's operator).
    CheckpointAwareMap,
    /// `DiscardingSink`: drops every record.
    DiscardSink,
    /// Keeps the records it sees (for inspection in the UI).
    CollectSink,
    /// A Sink V2 with a committer: pre-commits on checkpoint, commits on notifyCheckpointComplete.
    TwoPhaseCommitSink,
}

// serde ignores stray fields next to the tag of an internally tagged *unit* variant even with
// `deny_unknown_fields`, so `{"type": "map", "rate": 5}` would silently drop `rate`. These mirrors
// read every variant as a struct variant (where the check works) and convert.

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
enum KeyDistributionRepr {
    Uniform {},
    #[serde(rename_all = "kebab-case")]
    Skewed {
        hot_keys: u32,
        hot_percent: u32,
    },
}

impl From<KeyDistributionRepr> for KeyDistribution {
    fn from(r: KeyDistributionRepr) -> Self {
        match r {
            KeyDistributionRepr::Uniform {} => KeyDistribution::Uniform,
            KeyDistributionRepr::Skewed {
                hot_keys,
                hot_percent,
            } => KeyDistribution::Skewed {
                hot_keys,
                hot_percent,
            },
        }
    }
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
enum OperatorKindRepr {
    #[serde(rename_all = "kebab-case")]
    Datagen {
        rate: u64,
        record_size: u64,
        keys: u32,
        #[serde(default)]
        key_distribution: KeyDistribution,
        #[serde(default)]
        bounded: Option<u64>,
    },
    Map {},
    #[serde(rename_all = "kebab-case")]
    Filter {
        keep_percent: u32,
    },
    KeyedCount {},
    KeyedList {},
    KeyedWindowSum {
        window: String,
    },
    Union {},
    CheckpointAwareMap {},
    DiscardSink {},
    CollectSink {},
    TwoPhaseCommitSink {},
}

impl From<OperatorKindRepr> for OperatorKind {
    fn from(r: OperatorKindRepr) -> Self {
        match r {
            OperatorKindRepr::Datagen {
                rate,
                record_size,
                keys,
                key_distribution,
                bounded,
            } => OperatorKind::Datagen {
                rate,
                record_size,
                keys,
                key_distribution,
                bounded,
            },
            OperatorKindRepr::Map {} => OperatorKind::Map,
            OperatorKindRepr::Filter { keep_percent } => OperatorKind::Filter { keep_percent },
            OperatorKindRepr::KeyedCount {} => OperatorKind::KeyedCount,
            OperatorKindRepr::KeyedList {} => OperatorKind::KeyedList,
            OperatorKindRepr::KeyedWindowSum { window } => OperatorKind::KeyedWindowSum { window },
            OperatorKindRepr::Union {} => OperatorKind::Union,
            OperatorKindRepr::CheckpointAwareMap {} => OperatorKind::CheckpointAwareMap,
            OperatorKindRepr::DiscardSink {} => OperatorKind::DiscardSink,
            OperatorKindRepr::CollectSink {} => OperatorKind::CollectSink,
            OperatorKindRepr::TwoPhaseCommitSink {} => OperatorKind::TwoPhaseCommitSink,
        }
    }
}

impl OperatorKind {
    /// Every kind's `"type"` tag, in the order the editor's palette shows them.
    pub const TYPE_NAMES: [&'static str; 11] = [
        "datagen",
        "map",
        "filter",
        "keyed-count",
        "keyed-list",
        "keyed-window-sum",
        "union",
        "checkpoint-aware-map",
        "discard-sink",
        "collect-sink",
        "two-phase-commit-sink",
    ];

    /// The `"type"` tag as written in JSON.
    pub fn type_name(&self) -> &'static str {
        match self {
            OperatorKind::Datagen { .. } => "datagen",
            OperatorKind::Map => "map",
            OperatorKind::Filter { .. } => "filter",
            OperatorKind::KeyedCount => "keyed-count",
            OperatorKind::KeyedList => "keyed-list",
            OperatorKind::KeyedWindowSum { .. } => "keyed-window-sum",
            OperatorKind::Union => "union",
            OperatorKind::CheckpointAwareMap => "checkpoint-aware-map",
            OperatorKind::DiscardSink => "discard-sink",
            OperatorKind::CollectSink => "collect-sink",
            OperatorKind::TwoPhaseCommitSink => "two-phase-commit-sink",
        }
    }

    pub fn is_source(&self) -> bool {
        matches!(self, OperatorKind::Datagen { .. })
    }

    pub fn is_sink(&self) -> bool {
        matches!(
            self,
            OperatorKind::DiscardSink
                | OperatorKind::CollectSink
                | OperatorKind::TwoPhaseCommitSink
        )
    }

    /// Keyed operators hold keyed state and so must be fed by a hash (keyBy) edge.
    /// Keyed operators whose state can have a TTL (`state-ttl`): a keyed process function's
    /// own state. A window's state is cleared by its window's end.
    pub fn takes_state_ttl(&self) -> bool {
        matches!(self, OperatorKind::KeyedCount | OperatorKind::KeyedList)
    }

    pub fn is_keyed(&self) -> bool {
        matches!(
            self,
            OperatorKind::KeyedCount
                | OperatorKind::KeyedList
                | OperatorKind::KeyedWindowSum { .. }
        )
    }

    /// Number of input edges the operator takes: sources none, union two, everything else one
    /// (merging streams into a one-input operator goes through an explicit union).
    pub fn expected_inputs(&self) -> usize {
        match self {
            OperatorKind::Datagen { .. } => 0,
            OperatorKind::Union => 2,
            _ => 1,
        }
    }

    /// Cost per record when the spec leaves it unset: the task thread's time for the JVM's own
    /// work, in whole microseconds. Measured on real Flink 2.3 (thread CPU from `/proc` over
    /// 15 s, harness `large-state`, 50 000 records/s a subtask): the heap keyed chain
    /// `count-per-key -> checkpoint-aware-map -> discard-sink` uses 0.6-0.7 µs of CPU a record
    /// and reads busy 0.00, as the keyed list does at 10 000 (`list-state`). So a keyed operator
    /// costs 1 µs and a map, filter, union or discard sink under a microsecond (0). The source
    /// keeps 2 µs (its busy time comes from the rate limiter, see docs/fidelity.md), the collect
    /// sink 2 (it serializes every record for the client) and a two-phase-commit writer 5 (it
    /// buffers into a transaction); none of those was measured alone. None of them
    /// backpressures the seed's 1000 records/s per subtask: only explicit costs do.
    pub fn default_cost_per_record(&self) -> Micros {
        match self {
            OperatorKind::Datagen { .. } => 2,
            OperatorKind::Map
            | OperatorKind::Filter { .. }
            | OperatorKind::Union
            | OperatorKind::CheckpointAwareMap => 0,
            OperatorKind::KeyedCount
            | OperatorKind::KeyedList
            | OperatorKind::KeyedWindowSum { .. } => 1,
            OperatorKind::DiscardSink => 0,
            OperatorKind::CollectSink => 2,
            OperatorKind::TwoPhaseCommitSink => 5,
        }
    }

    /// The operator name(s) Flink gives this kind in a job vertex name: sources get the `Source: `
    /// prefix (`SourceTransformationTranslator`); Sink V2 expands into `<name>: Writer`, plus a chained
    /// `<name>: Committer` for a committing sink (`SinkTransformationTranslator`).
    pub fn display_name(&self, name: &str) -> String {
        match self {
            OperatorKind::Datagen { .. } => format!("Source: {name}"),
            OperatorKind::DiscardSink | OperatorKind::CollectSink => format!("{name}: Writer"),
            OperatorKind::TwoPhaseCommitSink => {
                format!("{name}: Writer -> {name}: Committer")
            }
            _ => name.to_string(),
        }
    }
}

/// How records travel along an edge (Flink's `StreamPartitioner`s).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Partitioner {
    Forward,
    Hash,
    Rebalance,
    Rescale,
    Broadcast,
}

impl std::fmt::Display for Partitioner {
    /// The upper-case names Flink's web UI prints on job graph edges.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Partitioner::Forward => "FORWARD",
            Partitioner::Hash => "HASH",
            Partitioner::Rebalance => "REBALANCE",
            Partitioner::Rescale => "RESCALE",
            Partitioner::Broadcast => "BROADCAST",
        })
    }
}

/// A connection between two operators.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct EdgeSpec {
    pub from: String,
    pub to: String,
    pub partitioner: Partitioner,
    /// Extra one-way latency on this edge (a duration); unset uses `barrierlab.network-latency` for
    /// channels between TaskManagers and none for local channels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency: Option<String>,
}

impl EdgeSpec {
    pub fn new(from: &str, to: &str, partitioner: Partitioner) -> Self {
        EdgeSpec {
            from: from.to_string(),
            to: to.to_string(),
            partitioner,
            latency: None,
        }
    }
}

impl Scenario {
    /// Parses a scenario from JSON. Syntax errors, unknown fields and unknown operator types come back
    /// as serde's message with line and column; a future format version is refused by name.
    pub fn from_json(text: &str) -> Result<Scenario, String> {
        let scenario: Scenario =
            serde_json::from_str(text).map_err(|e| format!("invalid scenario JSON: {e}"))?;
        if scenario.version != SCENARIO_VERSION {
            return Err(format!(
                "unsupported scenario version {} (this build reads version {SCENARIO_VERSION})",
                scenario.version
            ));
        }
        Ok(scenario)
    }

    /// Compact JSON, the form that travels in URLs.
    pub fn to_json(&self) -> String {
        // Cannot fail: every map key is a string and `serde_json::Value` holds no NaN.
        serde_json::to_string(self).expect("a Scenario always serializes")
    }

    /// Indented JSON, the form saved to disk.
    pub fn to_json_pretty(&self) -> String {
        // Cannot fail, as above.
        serde_json::to_string_pretty(self).expect("a Scenario always serializes")
    }

    /// Index of the operator with this name.
    pub fn operator_index(&self, name: &str) -> Option<usize> {
        self.operators.iter().position(|o| o.name == name)
    }

    /// The parallelism of operators that set none: `parallelism.default`
    /// (`CoreOptions.DEFAULT_PARALLELISM`), 1 when unset. A bad value reads as 1; validation
    /// reports it.
    pub fn default_parallelism(&self) -> u32 {
        super::config_keys::key_info(DEFAULT_PARALLELISM_KEY)
            .zip(self.config.get(DEFAULT_PARALLELISM_KEY))
            .and_then(|(info, v)| match super::config_keys::check_value(info, v) {
                Ok(super::config_keys::ConfigValue::Int(p)) => u32::try_from(p).ok(),
                _ => None,
            })
            .unwrap_or(1)
    }

    /// The parallelism operator `op` runs with: its own, else [`Scenario::default_parallelism`].
    pub fn parallelism(&self, op: usize) -> u32 {
        match self.operators[op].parallelism {
            Some(p) => p,
            None => self.default_parallelism(),
        }
    }
}
