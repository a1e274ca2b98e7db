//! `/jobs/:id/checkpoints/config`: `CheckpointConfigInfo`.

use crate::coordinator::config::{
    CheckpointCoordinatorConfiguration, ExternalizedCheckpointRetention,
};
use crate::stats::ms;
use serde::Serialize;

/// `CheckpointConfigInfo.ProcessingMode`, which Flink writes in lower case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ProcessingMode {
    AtLeastOnce,
    ExactlyOnce,
}

/// `CheckpointConfigInfo.ExternalizedCheckpointInfo`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExternalizedCheckpointInfo {
    pub enabled: bool,
    pub delete_on_cancellation: bool,
}

/// `CheckpointConfigInfo`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckpointConfigInfo {
    pub mode: ProcessingMode,
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
            ProcessingMode::ExactlyOnce
        } else {
            ProcessingMode::AtLeastOnce
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

/// `ErrorResponseBody`: what a REST handler answers instead of its body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ErrorResponseBody {
    pub errors: Vec<String>,
}

/// What `/jobs/:id/checkpoints/config` answers: the configuration, or the error body of a job
/// that does not checkpoint periodically. Untagged, as the REST API shows either body alone.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum CheckpointConfigResponse {
    Info(CheckpointConfigInfo),
    Error(ErrorResponseBody),
}

impl From<Result<CheckpointConfigInfo, String>> for CheckpointConfigResponse {
    fn from(result: Result<CheckpointConfigInfo, String>) -> Self {
        match result {
            Ok(info) => Self::Info(info),
            Err(message) => Self::Error(ErrorResponseBody {
                errors: vec![message],
            }),
        }
    }
}
