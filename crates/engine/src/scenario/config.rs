//! `FlinkConfig`: the scenario's key/value configuration, resolved (deprecated names mapped),
//! validated and converted to the engine's units.

use std::collections::BTreeMap;

use super::config_keys::{check_value, flink_path, key_info, resolve_key, ConfigValue};
use crate::types::Micros;

/// `execution.checkpointing.mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum CheckpointingMode {
    ExactlyOnce,
    AtLeastOnce,
}

pub use crate::types::ExternalizedCheckpointRetention;

/// The restart strategy after resolution (`RestartBackoffTimeStrategyFactoryLoader`): an unset
/// `restart-strategy.type` means exponential-delay when checkpointing is on, else no restart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum RestartStrategy {
    NoRestart,
    FixedDelay {
        attempts: u32,
        delay: Micros,
    },
    FailureRate {
        max_failures_per_interval: u32,
        interval: Micros,
        delay: Micros,
    },
    ExponentialDelay {
        initial_backoff: Micros,
        max_backoff: Micros,
        /// Thousandths: 1500 = 1.5.
        backoff_multiplier_milli: u64,
        /// Thousandths: 100 = 0.1.
        jitter_factor_milli: u64,
        reset_backoff_threshold: Micros,
        attempts_before_reset_backoff: u32,
    },
}

/// `barrierlab.warm-up.*`: what the first use of each checkpoint path costs a cold
/// TaskManager JVM (`task/warm_up.rs`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct WarmUpCosts {
    pub trigger: Micros,
    pub sync: Micros,
    pub async_phase: Micros,
    pub keyed_sync: Micros,
    pub keyed_async: Micros,
}

/// `taskmanager.network.memory.buffer-debloat.*` and the segment sizes, resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DebloatConfig {
    /// `buffer-debloat.target`: time to consume the in-flight data.
    pub target: Micros,
    /// `buffer-debloat.period`: how often the size is recomputed.
    pub period: Micros,
    /// `buffer-debloat.samples`: the moving average's window.
    pub samples: u32,
    /// `buffer-debloat.threshold-percentages`: the smallest change announced.
    pub threshold_percent: u32,
    /// `taskmanager.memory.min-segment-size`.
    pub min_size: u32,
    /// `taskmanager.memory.segment-size`: a buffer never grows past its segment.
    pub max_size: u32,
    /// `taskmanager.memory.starting-segment-size`, capped at the segment: the size buffers have
    /// before the first announcement (`NettyShuffleEnvironmentConfiguration`).
    pub starting_size: u32,
}

/// `state.backend.type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum StateBackendType {
    /// `HashMapStateBackend`: state on the heap, full snapshots.
    HashMap,
    /// `EmbeddedRocksDBStateBackend`.
    RocksDb,
    /// `ForStStateBackend` (Flink 2.x's disaggregated backend): RocksDB's files, but written
    /// straight to the primary directory, by default the checkpoint directory's `shared/`.
    ForSt,
}

impl StateBackendType {
    /// The class name Flink's REST API reports (`/checkpoints/config` → `state_backend`).
    pub fn flink_class(self) -> &'static str {
        match self {
            StateBackendType::HashMap => "HashMapStateBackend",
            StateBackendType::RocksDb => "EmbeddedRocksDBStateBackend",
            StateBackendType::ForSt => "ForStStateBackend",
        }
    }
}

/// `barrierlab.storage.profile`: the checkpoint storage's file latency and throughput.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StorageProfile {
    pub write_latency: Micros,
    /// Bytes per second.
    pub write_throughput: u64,
}

impl StorageProfile {
    /// `local-disk` (the default) is what Flink 2.3's MiniCluster shows on a local file system
    /// (docs/fidelity.md, calibration); `object-store` takes AWS's S3 performance guidelines:
    /// 100-200 ms for a small object, 85-90 MB/s over one connection.
    pub fn named(name: Option<&str>) -> StorageProfile {
        match name {
            Some("object-store") => StorageProfile {
                write_latency: 100_000,
                write_throughput: 85 * 1024 * 1024,
            },
            _ => StorageProfile {
                write_latency: 3_000,
                write_throughput: 100 * 1024 * 1024,
            },
        }
    }
}

/// Every configuration value the engine uses, in engine units.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FlinkConfig {
    /// `None`: checkpointing is off.
    pub checkpoint_interval: Option<Micros>,
    pub checkpointing_mode: CheckpointingMode,
    pub checkpoint_timeout: Micros,
    pub min_pause: Micros,
    pub max_concurrent_checkpoints: u32,
    pub tolerable_failed_checkpoints: u32,
    pub unaligned_enabled: bool,
    pub aligned_checkpoint_timeout: Micros,
    pub max_subtasks_per_channel_state_file: u32,
    /// FLIP-547: `unaligned.recover-output-on-downstream.enabled`.
    pub recover_output_on_downstream: bool,
    /// FLIP-547: `during-recovery.enabled`, in effect only with the option above and unaligned
    /// checkpoints (`CheckpointingOptions.isCheckpointingDuringRecoveryEnabled`; with aligned
    /// checkpoints Flink 2.3's trigger during recovery hangs until it expires, FLINK-40518).
    pub checkpointing_during_recovery: bool,
    pub num_retained: u32,
    pub externalized_checkpoint_retention: ExternalizedCheckpointRetention,
    pub checkpoints_after_tasks_finish: bool,
    pub incremental: bool,
    pub data_inline_threshold: u64,
    pub buffer_timeout: Micros,
    pub buffer_timeout_enabled: bool,
    pub segment_size: u64,
    /// `state.backend.type`.
    pub state_backend: StateBackendType,
    /// `taskmanager.network.memory.buffer-debloat.*`; `None` when debloating is off.
    pub debloat: Option<DebloatConfig>,
    /// `None` for Flink's `-1`: each operator gets the default formula.
    pub max_parallelism: Option<u32>,
    /// `parallelism.default`: the parallelism of operators that set none.
    pub default_parallelism: u32,
    /// `execution.checkpointing.dir` as Flink's `Path` prints it; `None`: Barrier Lab's default.
    pub checkpoint_dir: Option<String>,
    /// `execution.checkpointing.savepoint-dir`, likewise.
    pub savepoint_dir: Option<String>,
    pub operator_chaining: bool,
    pub restart_strategy: RestartStrategy,
    pub web_checkpoints_history: u32,
    pub rpc_latency: Micros,
    pub task_deploy_time: Micros,
    pub task_running_spread: Micros,
    pub source_open_lead: Micros,
    pub task_redeploy_time: Micros,
    pub trigger_latency: Micros,
    pub trigger_dispatch: Micros,
    pub ack_latency: Micros,
    pub thread_jitter: Micros,
    pub network_latency: Micros,
    /// Bytes per second.
    pub network_throughput: u64,
    pub storage_write_latency: Micros,
    /// Bytes per second.
    pub storage_write_throughput: u64,
    /// `barrierlab.warm-up.*`: the first checkpoint in a TaskManager's JVM runs cold.
    pub warm_up: WarmUpCosts,
}

impl Default for FlinkConfig {
    fn default() -> Self {
        // The table's defaults always parse (a unit test checks it), so this cannot fail.
        FlinkConfig::from_map(&BTreeMap::new()).expect("the default configuration is valid")
    }
}

/// Reads typed values out of the resolved map, falling back to the table default. Values were all
/// checked before reading (so keys a strategy does not use are checked too); a bad one reads as the
/// fallback here and is already in the error list.
struct Reader {
    values: BTreeMap<&'static str, String>,
}

impl Reader {
    /// The checked value of `key`, or `None` when it is unset and has no default.
    fn get(&mut self, key: &'static str) -> Option<ConfigValue> {
        let info = key_info(key)?;
        let text = match self.values.get(key) {
            Some(v) => v.as_str(),
            None if info.default.is_empty() => return None,
            None => info.default,
        };
        check_value(info, text).ok()
    }

    /// Whether the scenario sets `key` itself (rather than taking the default).
    fn explicit(&self, key: &'static str) -> bool {
        self.values.contains_key(key)
    }

    fn micros(&mut self, key: &'static str) -> Micros {
        match self.get(key) {
            Some(ConfigValue::Micros(v)) => v,
            _ => 0,
        }
    }

    fn opt_micros(&mut self, key: &'static str) -> Option<Micros> {
        match self.get(key) {
            Some(ConfigValue::Micros(v)) => Some(v),
            _ => None,
        }
    }

    fn bytes(&mut self, key: &'static str) -> u64 {
        match self.get(key) {
            Some(ConfigValue::Bytes(v)) => v,
            _ => 0,
        }
    }

    /// Integers in the table are bounded to `i32`, so the cast to `u32` is lossless for
    /// non-negative bounds; negatives (only `-1` of max parallelism) map to `None` via `opt_u32`.
    fn u32(&mut self, key: &'static str) -> u32 {
        self.opt_u32(key).unwrap_or(0)
    }

    fn opt_u32(&mut self, key: &'static str) -> Option<u32> {
        match self.get(key) {
            Some(ConfigValue::Int(v)) => u32::try_from(v).ok(),
            _ => None,
        }
    }

    fn bool(&mut self, key: &'static str) -> bool {
        matches!(self.get(key), Some(ConfigValue::Bool(true)))
    }

    fn choice(&mut self, key: &'static str) -> Option<&'static str> {
        match self.get(key) {
            Some(ConfigValue::Choice(c)) => Some(c),
            _ => None,
        }
    }

    /// A directory, normalized; `None` when unset.
    fn dir(&mut self, key: &'static str) -> Option<String> {
        self.values.get(key).and_then(|v| flink_path(v).ok())
    }

    fn milli(&mut self, key: &'static str) -> u64 {
        match self.get(key) {
            Some(ConfigValue::Milli(v)) => v,
            _ => 0,
        }
    }
}

impl FlinkConfig {
    /// Resolves and validates a scenario's `config` map. Every problem is reported: unknown keys
    /// (with the closest known key), bad values (key, value, expected form), and a key given both
    /// under its current and a deprecated name with different values.
    pub fn from_map(map: &BTreeMap<String, String>) -> Result<FlinkConfig, Vec<String>> {
        let mut values: BTreeMap<&'static str, String> = BTreeMap::new();
        let mut given_as: BTreeMap<&'static str, &str> = BTreeMap::new();
        let mut errors = Vec::new();
        for (key, value) in map {
            let info = match resolve_key(key) {
                Ok(info) => info,
                Err(e) => {
                    errors.push(e);
                    continue;
                }
            };
            // The canonical name wins over a deprecated one, as in Flink; a conflicting pair is
            // almost certainly a mistake, so say so instead of silently picking one.
            let is_canonical = key == info.key;
            if let Some(previous) = values.get(info.key) {
                if previous.trim() != value.trim() {
                    errors.push(format!(
                        "configuration key '{}' is set twice with different values: '{}' = '{previous}' and '{key}' = '{value}'",
                        info.key, given_as[info.key]
                    ));
                }
                if !is_canonical {
                    continue;
                }
            }
            values.insert(info.key, value.clone());
            given_as.insert(info.key, key);
        }

        for (key, value) in &values {
            if let Some(Err(e)) = key_info(key).map(|info| check_value(info, value)) {
                errors.push(e);
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }

        let mut r = Reader { values };
        let storage = StorageProfile::named(r.choice("barrierlab.storage.profile"));
        let checkpoint_interval = r.opt_micros("execution.checkpointing.interval");
        let config = FlinkConfig {
            checkpoint_interval,
            checkpointing_mode: match r.choice("execution.checkpointing.mode") {
                Some("AT_LEAST_ONCE") => CheckpointingMode::AtLeastOnce,
                _ => CheckpointingMode::ExactlyOnce,
            },
            checkpoint_timeout: r.micros("execution.checkpointing.timeout"),
            min_pause: r.micros("execution.checkpointing.min-pause"),
            max_concurrent_checkpoints: r.u32("execution.checkpointing.max-concurrent-checkpoints"),
            tolerable_failed_checkpoints: r
                .u32("execution.checkpointing.tolerable-failed-checkpoints"),
            unaligned_enabled: r.bool("execution.checkpointing.unaligned.enabled"),
            aligned_checkpoint_timeout: r
                .micros("execution.checkpointing.aligned-checkpoint-timeout"),
            max_subtasks_per_channel_state_file: r
                .u32("execution.checkpointing.unaligned.max-subtasks-per-channel-state-file"),
            recover_output_on_downstream: r
                .bool("execution.checkpointing.unaligned.recover-output-on-downstream.enabled"),
            checkpointing_during_recovery: r
                .bool("execution.checkpointing.during-recovery.enabled"),
            num_retained: r.u32("execution.checkpointing.num-retained"),
            externalized_checkpoint_retention: match r
                .choice("execution.checkpointing.externalized-checkpoint-retention")
            {
                Some("DELETE_ON_CANCELLATION") => {
                    ExternalizedCheckpointRetention::DeleteOnCancellation
                }
                Some("RETAIN_ON_CANCELLATION") => {
                    ExternalizedCheckpointRetention::RetainOnCancellation
                }
                _ => ExternalizedCheckpointRetention::NoExternalizedCheckpoints,
            },
            checkpoints_after_tasks_finish: r
                .bool("execution.checkpointing.checkpoints-after-tasks-finish"),
            incremental: r.bool("execution.checkpointing.incremental"),
            data_inline_threshold: r.bytes("execution.checkpointing.data-inline-threshold"),
            buffer_timeout: r.micros("execution.buffer-timeout.interval"),
            buffer_timeout_enabled: r.bool("execution.buffer-timeout.enabled"),
            segment_size: r.bytes("taskmanager.memory.segment-size"),
            debloat: read_debloat(&mut r),
            state_backend: match r.choice("state.backend.type") {
                Some("rocksdb") => StateBackendType::RocksDb,
                Some("forst") => StateBackendType::ForSt,
                _ => StateBackendType::HashMap,
            },
            max_parallelism: r.opt_u32("pipeline.max-parallelism"),
            default_parallelism: r.u32("parallelism.default"),
            checkpoint_dir: r.dir("execution.checkpointing.dir"),
            savepoint_dir: r.dir("execution.checkpointing.savepoint-dir"),
            operator_chaining: r.bool("pipeline.operator-chaining.enabled"),
            restart_strategy: read_restart_strategy(&mut r, checkpoint_interval.is_some()),
            web_checkpoints_history: r.u32("web.checkpoints.history"),
            rpc_latency: r.micros("barrierlab.rpc-latency"),
            task_deploy_time: r.micros("barrierlab.task-deploy-time"),
            task_running_spread: r.micros("barrierlab.task-running-spread"),
            source_open_lead: r.micros("barrierlab.source-open-lead"),
            task_redeploy_time: r.micros("barrierlab.task-redeploy-time"),
            trigger_latency: r.micros("barrierlab.trigger-latency"),
            trigger_dispatch: r.micros("barrierlab.trigger-dispatch"),
            ack_latency: r.micros("barrierlab.ack-latency"),
            thread_jitter: r.micros("barrierlab.thread-jitter"),
            network_latency: r.micros("barrierlab.network-latency"),
            network_throughput: r.bytes("barrierlab.network-throughput"),
            warm_up: WarmUpCosts {
                trigger: r.micros("barrierlab.warm-up.trigger"),
                sync: r.micros("barrierlab.warm-up.sync"),
                async_phase: r.micros("barrierlab.warm-up.async"),
                keyed_sync: r.micros("barrierlab.warm-up.keyed-sync"),
                keyed_async: r.micros("barrierlab.warm-up.keyed-async"),
            },
            storage_write_latency: if r.explicit("barrierlab.storage.write-latency") {
                r.micros("barrierlab.storage.write-latency")
            } else {
                storage.write_latency
            },
            storage_write_throughput: if r.explicit("barrierlab.storage.write-throughput") {
                r.bytes("barrierlab.storage.write-throughput")
            } else {
                storage.write_throughput
            },
        };
        Ok(config)
    }

    pub fn checkpointing_enabled(&self) -> bool {
        self.checkpoint_interval.is_some()
    }
}

fn read_debloat(r: &mut Reader) -> Option<DebloatConfig> {
    let segment = r
        .bytes("taskmanager.memory.segment-size")
        .min(u64::from(u32::MAX)) as u32;
    let min_size = (r.bytes("taskmanager.memory.min-segment-size") as u32).min(segment);
    let config = DebloatConfig {
        target: r.micros("taskmanager.network.memory.buffer-debloat.target"),
        period: r.micros("taskmanager.network.memory.buffer-debloat.period"),
        samples: r.u32("taskmanager.network.memory.buffer-debloat.samples"),
        threshold_percent: r.u32("taskmanager.network.memory.buffer-debloat.threshold-percentages"),
        min_size,
        max_size: segment,
        starting_size: (r.bytes("taskmanager.memory.starting-segment-size") as u32)
            .clamp(min_size, segment),
    };
    r.bool("taskmanager.network.memory.buffer-debloat.enabled")
        .then_some(config)
}

fn read_restart_strategy(r: &mut Reader, checkpointing: bool) -> RestartStrategy {
    let exponential = |r: &mut Reader| RestartStrategy::ExponentialDelay {
        initial_backoff: r.micros("restart-strategy.exponential-delay.initial-backoff"),
        max_backoff: r.micros("restart-strategy.exponential-delay.max-backoff"),
        backoff_multiplier_milli: r.milli("restart-strategy.exponential-delay.backoff-multiplier"),
        jitter_factor_milli: r.milli("restart-strategy.exponential-delay.jitter-factor"),
        reset_backoff_threshold: r
            .micros("restart-strategy.exponential-delay.reset-backoff-threshold"),
        attempts_before_reset_backoff: r
            .u32("restart-strategy.exponential-delay.attempts-before-reset-backoff"),
    };
    match r.choice("restart-strategy.type") {
        None if checkpointing => exponential(r),
        None => RestartStrategy::NoRestart,
        Some("fixed-delay" | "fixeddelay") => RestartStrategy::FixedDelay {
            attempts: r.u32("restart-strategy.fixed-delay.attempts"),
            delay: r.micros("restart-strategy.fixed-delay.delay"),
        },
        Some("failure-rate" | "failurerate") => RestartStrategy::FailureRate {
            max_failures_per_interval: r
                .u32("restart-strategy.failure-rate.max-failures-per-interval"),
            interval: r.micros("restart-strategy.failure-rate.failure-rate-interval"),
            delay: r.micros("restart-strategy.failure-rate.delay"),
        },
        Some("exponential-delay" | "exponentialdelay") => exponential(r),
        Some(_) => RestartStrategy::NoRestart,
    }
}
