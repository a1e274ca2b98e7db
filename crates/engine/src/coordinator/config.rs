//! `CheckpointCoordinatorConfiguration` with the Flink 2.3 option defaults
//! (shared/design/flink-defaults.md §1).

use crate::types::{Micros, MICROS_PER_SEC};
use serde::{Deserialize, Serialize};

pub use crate::types::ExternalizedCheckpointRetention;

/// The coordinator's view of the `execution.checkpointing.*` options.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckpointCoordinatorConfiguration {
    /// `interval`; `None` (the default) means periodic checkpointing is off.
    pub interval: Option<Micros>,
    /// `timeout` (10 min): a pending checkpoint expires after this long.
    pub timeout: Micros,
    /// `min-pause` (0): from the last completion to the next periodic trigger.
    pub min_pause: Micros,
    /// `max-concurrent-checkpoints` (1).
    pub max_concurrent: u32,
    /// `tolerable-failed-checkpoints` (0); `u32::MAX` stands for Flink's `Integer.MAX_VALUE` (off).
    pub tolerable_failed_checkpoints: u32,
    /// `num-retained` (1).
    pub num_retained: u32,
    /// `mode` = EXACTLY_ONCE (true) / AT_LEAST_ONCE (false).
    pub exactly_once: bool,
    /// `unaligned.enabled` (false).
    pub unaligned: bool,
    /// `aligned-checkpoint-timeout` (0 s = unaligned from the start when `unaligned`).
    pub aligned_checkpoint_timeout: Micros,
    /// `checkpoints-after-tasks-finish` (true).
    pub checkpoints_after_tasks_finish: bool,
    pub externalized_retention: ExternalizedCheckpointRetention,
}

/// Flink's default `execution.checkpointing.timeout`.
pub const DEFAULT_TIMEOUT: Micros = 10 * 60 * MICROS_PER_SEC;

impl Default for CheckpointCoordinatorConfiguration {
    fn default() -> Self {
        Self {
            interval: None,
            timeout: DEFAULT_TIMEOUT,
            min_pause: 0,
            max_concurrent: 1,
            tolerable_failed_checkpoints: 0,
            num_retained: 1,
            exactly_once: true,
            unaligned: false,
            aligned_checkpoint_timeout: 0,
            checkpoints_after_tasks_finish: true,
            externalized_retention: ExternalizedCheckpointRetention::NoExternalizedCheckpoints,
        }
    }
}

impl CheckpointCoordinatorConfiguration {
    pub fn is_periodic_checkpointing_configured(&self) -> bool {
        matches!(self.interval, Some(i) if i > 0)
    }

    /// `baseInterval`: Flink 2.3's `CheckpointCoordinatorConfiguration` constructor raises an
    /// interval below the min pause to it, so the scheduler's period, the random initial delay
    /// and REST's `interval` all use the raised value.
    pub fn base_interval(&self) -> Micros {
        self.interval.unwrap_or(0).max(self.min_pause)
    }

    /// `getRandomInitDelay`: uniform in `[min_pause, baseInterval]` (both inclusive, like
    /// `nextLong(minPause, baseInterval + 1)`). The random word is mapped with a 128-bit
    /// multiply-shift so no float math and no modulo bias beyond 2^-64.
    pub fn initial_triggering_delay(&self, random: u64) -> Micros {
        let interval = self.base_interval();
        let low = self.min_pause;
        let span = (interval - low) as u128 + 1;
        low + ((random as u128 * span) >> 64) as u64
    }

    /// Whether triggered checkpoints are unaligned: savepoints and at-least-once are always
    /// aligned (`CheckpointOptions.forConfig`).
    pub fn unaligned_for(&self, is_savepoint: bool) -> bool {
        self.unaligned && self.exactly_once && !is_savepoint
    }
}
