//! The checkpoint settings of a derived scenario: `/checkpoints/config` (`CheckpointConfigInfo`)
//! in Flink 2.3's configuration keys, with a note for everything the body does not say or the
//! simulator does not model.

use std::collections::BTreeMap;

use super::bundle::JobBundle;
use super::rest::CheckpointStatsStatus;

/// Flink reports `Long.MAX_VALUE` as the interval of a job without periodic checkpoints.
const NO_PERIODIC_CHECKPOINTS: i64 = i64::MAX;

fn ms(v: i64) -> String {
    format!("{v}ms")
}

/// The scenario's `config` map from the bundle's checkpoint configuration, and the notes.
pub(crate) fn checkpoint_config(
    bundle: &JobBundle,
    notes: &mut Vec<String>,
) -> Result<BTreeMap<String, String>, String> {
    let mut config = BTreeMap::new();
    let Some(c) = &bundle.config else {
        notes.push(
            "the bundle has no /checkpoints/config (the job does not checkpoint, or the request \
             failed): the scenario has no checkpoint interval and Flink 2.3's defaults otherwise"
                .into(),
        );
        return Ok(config);
    };
    let mut set = |k: &str, v: String| {
        config.insert(k.to_string(), v);
    };
    if c.interval > 0 && c.interval != NO_PERIODIC_CHECKPOINTS {
        set("execution.checkpointing.interval", ms(c.interval));
    } else {
        notes.push(format!(
            "/checkpoints/config interval {}: no periodic checkpoints, so none in the scenario",
            c.interval
        ));
    }
    let mode = match c.mode.to_ascii_lowercase().as_str() {
        "exactly_once" => "EXACTLY_ONCE",
        "at_least_once" => "AT_LEAST_ONCE",
        other => return Err(format!("unknown checkpointing mode '{other}' in /checkpoints/config (Flink 2.3 has exactly_once and at_least_once)")),
    };
    set("execution.checkpointing.mode", mode.into());
    if c.timeout > 0 {
        set("execution.checkpointing.timeout", ms(c.timeout));
    }
    set("execution.checkpointing.min-pause", ms(c.min_pause.max(0)));
    if c.max_concurrent >= 1 {
        set(
            "execution.checkpointing.max-concurrent-checkpoints",
            c.max_concurrent.to_string(),
        );
    }
    set(
        "execution.checkpointing.tolerable-failed-checkpoints",
        c.tolerable_failed_checkpoints.max(0).to_string(),
    );
    set(
        "execution.checkpointing.unaligned.enabled",
        c.unaligned_checkpoints.to_string(),
    );
    set(
        "execution.checkpointing.aligned-checkpoint-timeout",
        ms(c.aligned_checkpoint_timeout.max(0)),
    );
    set(
        "execution.checkpointing.checkpoints-after-tasks-finish",
        c.checkpoints_after_tasks_finish.to_string(),
    );
    let retention = match &c.externalization {
        Some(e) if !e.enabled => "NO_EXTERNALIZED_CHECKPOINTS",
        Some(e) if e.delete_on_cancellation => "DELETE_ON_CANCELLATION",
        Some(_) => "RETAIN_ON_CANCELLATION",
        None => {
            notes.push("/checkpoints/config has no externalization: Flink 2.3's default retention (NO_EXTERNALIZED_CHECKPOINTS)".into());
            ""
        }
    };
    if !retention.is_empty() {
        set(
            "execution.checkpointing.externalized-checkpoint-retention",
            retention.into(),
        );
    }
    let rocksdb = match c.state_backend.as_str() {
        "HashMapStateBackend" => {
            set("state.backend.type", "hashmap".into());
            false
        }
        "EmbeddedRocksDBStateBackend" => {
            set("state.backend.type", "rocksdb".into());
            true
        }
        "ForStStateBackend" => {
            set("state.backend.type", "forst".into());
            true
        }
        other => {
            notes.push(format!(
                "state backend '{other}' is not one the simulator has (hashmap, rocksdb, forst): left at the default, hashmap"
            ));
            false
        }
    };
    // `CheckpointConfigInfo` has no incremental flag (Flink 2.3 included): what the completed
    // checkpoints uploaded says it instead.
    let incremental = bundle.details.values().any(|d| {
        d.status == CheckpointStatsStatus::COMPLETED && d.checkpointed_size < d.state_size
    });
    if rocksdb {
        set(
            "execution.checkpointing.incremental",
            incremental.to_string(),
        );
        notes.push(format!(
            "/checkpoints/config does not say whether checkpoints are incremental: {}",
            if incremental {
                "a completed checkpoint uploaded less than its state size, so incremental"
            } else {
                "no completed checkpoint uploaded less than its state size, so full (or no details to tell)"
            }
        ));
    }
    notes.push(format!(
        "checkpoint storage {}: modelled by barrierlab.storage.profile (default local-disk), not derived",
        if c.checkpoint_storage.is_empty() { "unknown" } else { &c.checkpoint_storage }
    ));
    if c.state_changelog_enabled {
        notes.push(
            "the job uses the changelog state backend (state_changelog_enabled): not modelled, \
             the scenario checkpoints without it"
                .into(),
        );
    }
    Ok(config)
}
