//! `/jobs/:id/checkpoints/config`: `CheckpointConfigInfo`.

use crate::coordinator::config::{
    CheckpointCoordinatorConfiguration, ExternalizedCheckpointRetention,
};
use crate::stats::ms;
use serde::Serialize;

/// `CheckpointConfigInfo.ExternalizedCheckpointInfo`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExternalizedCheckpointInfo {
    pub enabled: bool,
    pub delete_on_cancellation: bool,
}

/// `CheckpointConfigInfo`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckpointConfigInfo {
    /// `ProcessingMode`, lower case: `exactly_once` / `at_least_once`.
    pub mode: &'static str,
    pub interval: i64,
    pub timeout: i64,
    pub min_pause: i64,
    pub max_concurrent: i64,
    pub externalization: ExternalizedCheckpointInfo,
    pub state_backend: String,
    pub checkpoint_storage: String,
    pub unaligned_checkpoints: bool,
    pub tolerable_failed_checkpoints: i32,
    pub aligned_checkpoint_timeout: i64,
    pub checkpoints_after_tasks_finish: bool,
    pub state_changelog_enabled: bool,
    pub changelog_periodic_materialization_interval: i64,
    pub changelog_storage: String,
}

/// Default `state.changelog.periodic-materialize.interval` (10 min) in ms.
const DEFAULT_MATERIALIZATION_INTERVAL_MS: i64 = 600_000;

/// `CheckpointConfigHandler`. Like Flink, a job without periodic checkpointing has no checkpoint
/// configuration to show. `state_backend`/`checkpoint_storage` are the class names the UI prints
/// (e.g. `HashMapStateBackend`, `FileSystemCheckpointStorage`).
pub fn checkpoint_config_info(
    config: &CheckpointCoordinatorConfiguration,
    state_backend: &str,
    checkpoint_storage: &str,
) -> Result<CheckpointConfigInfo, String> {
    if !config.is_periodic_checkpointing_configured() {
        return Err("Checkpointing is not enabled for this job.".to_string());
    }
    // Flink's configuration object already holds the interval raised to the min pause.
    let interval = config.base_interval();
    let retention = config.externalized_retention;
    Ok(CheckpointConfigInfo {
        mode: if config.exactly_once {
            "exactly_once"
        } else {
            "at_least_once"
        },
        interval: ms(interval),
        timeout: ms(config.timeout),
        min_pause: ms(config.min_pause),
        max_concurrent: config.max_concurrent as i64,
        externalization: ExternalizedCheckpointInfo {
            enabled: retention != ExternalizedCheckpointRetention::NoExternalizedCheckpoints,
            // As Flink's handler: everything but RETAIN_ON_CANCELLATION reports true.
            delete_on_cancellation: retention
                != ExternalizedCheckpointRetention::RetainOnCancellation,
        },
        state_backend: state_backend.to_string(),
        checkpoint_storage: checkpoint_storage.to_string(),
        unaligned_checkpoints: config.unaligned,
        // u32::MAX is our "off"; Flink shows Integer.MAX_VALUE.
        tolerable_failed_checkpoints: i32::try_from(config.tolerable_failed_checkpoints)
            .unwrap_or(i32::MAX),
        aligned_checkpoint_timeout: ms(config.aligned_checkpoint_timeout),
        checkpoints_after_tasks_finish: config.checkpoints_after_tasks_finish,
        state_changelog_enabled: false,
        changelog_periodic_materialization_interval: DEFAULT_MATERIALIZATION_INTERVAL_MS,
        changelog_storage: "memory".to_string(),
    })
}
