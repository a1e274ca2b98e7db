//! The table of configuration keys this engine understands, and checking of single values.
//!
//! One table drives everything: `FlinkConfig` reads its defaults from here, the UI lists it, and
//! `--set` validates against it, so a default can never differ between those places.

use crate::types::{parse_duration, parse_memory_size, Micros, MICROS_PER_MS};

/// The form a key's value takes, with the bounds the engine enforces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueKind {
    /// A Flink duration (`5s`, `100 ms`; plain numbers are milliseconds), at least `min`.
    Duration { min: Micros },
    /// A Flink memory size (`32kb`; plain numbers are bytes) within `[min, max]`.
    MemorySize { min: u64, max: u64 },
    /// An integer within `[min, max]`.
    Int { min: i64, max: i64 },
    /// `-1` (unset) or 1..=32768, like `pipeline.max-parallelism`.
    MaxParallelism,
    /// `true` or `false` (case-insensitive, as Flink's boolean conversion).
    Bool,
    /// One of these names, case-insensitively (Flink converts enum values ignoring case).
    Enum(&'static [&'static str]),
    /// A decimal such as `1.5` kept as fixed-point thousandths (no floats in engine logic), within
    /// `[min, max]` thousandths.
    Decimal { min: u64, max: u64 },
    /// A directory URI with a scheme, not the root (`hdfs:///flink/checkpoints`,
    /// `file:///tmp/checkpoints`), as `ExternalizedSnapshotLocation.validatePath` requires.
    Directory,
}

/// One configuration key, for the UI and for validation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConfigKeyInfo {
    pub key: &'static str,
    /// Flink 2.3's default as Flink spells it; empty when the key has no default (unset).
    pub default: &'static str,
    pub description: &'static str,
    /// Older names that Flink still accepts for this key.
    pub deprecated_keys: &'static [&'static str],
    pub kind: ValueKind,
}

/// A checked value, converted to the engine's units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigValue {
    Micros(Micros),
    Bytes(u64),
    Int(i64),
    Bool(bool),
    /// The canonical (table) spelling of an enum value.
    Choice(&'static str),
    /// Thousandths.
    Milli(u64),
    /// A valid directory; its text is normalized by [`flink_path`].
    Directory,
}

const MS: Micros = MICROS_PER_MS;
const INT_MAX: i64 = i32::MAX as i64;
const KB: u64 = 1 << 10;
const MB: u64 = 1 << 20;
const GB: u64 = 1 << 30;

const fn key(
    key: &'static str,
    default: &'static str,
    kind: ValueKind,
    deprecated_keys: &'static [&'static str],
    description: &'static str,
) -> ConfigKeyInfo {
    ConfigKeyInfo {
        key,
        default,
        description,
        deprecated_keys,
        kind,
    }
}

/// `state.backend.type` values the engine models (Flink's shortcuts).
pub const STATE_BACKENDS: &[&str] = &["hashmap", "rocksdb", "forst"];

/// `barrierlab.storage.profile` values.
pub const STORAGE_PROFILES: &[&str] = &["local-disk", "object-store"];

/// Restart strategy names Flink accepts (`RestartStrategyType`), plus `no-restart`.
pub const RESTART_STRATEGY_TYPES: &[&str] = &[
    "disable",
    "none",
    "off",
    "no-restart",
    "fixed-delay",
    "fixeddelay",
    "failure-rate",
    "failurerate",
    "exponential-delay",
    "exponentialdelay",
];

/// Every key the engine understands, with Flink 2.3's defaults (see `flink-defaults.md` §1, §2, §4)
/// and Barrier Lab's own model knobs under `barrierlab.`.
#[rustfmt::skip]
pub const CONFIG_KEYS: &[ConfigKeyInfo] = &[
    key("execution.checkpointing.interval", "", ValueKind::Duration { min: 10 * MS }, &[],
        "Period of periodic checkpoints; unset means checkpointing is off (minimum 10 ms)."),
    key("execution.checkpointing.mode", "EXACTLY_ONCE", ValueKind::Enum(&["EXACTLY_ONCE", "AT_LEAST_ONCE"]), &[],
        "EXACTLY_ONCE aligns barriers at multi-input tasks; AT_LEAST_ONCE only counts them."),
    key("execution.checkpointing.timeout", "10 min", ValueKind::Duration { min: 10 * MS }, &[],
        "A checkpoint still pending after this long expires (CHECKPOINT_EXPIRED)."),
    key("execution.checkpointing.min-pause", "0 ms", ValueKind::Duration { min: 0 }, &[],
        "Minimum time from the last completed checkpoint to the next periodic trigger."),
    key("execution.checkpointing.max-concurrent-checkpoints", "1", ValueKind::Int { min: 1, max: INT_MAX }, &[],
        "Maximum number of checkpoints pending at the same time."),
    key("execution.checkpointing.tolerable-failed-checkpoints", "0", ValueKind::Int { min: 0, max: INT_MAX }, &[],
        "Consecutive counted checkpoint failures tolerated before the job fails over."),
    key("execution.checkpointing.unaligned.enabled", "false", ValueKind::Bool, &["execution.checkpointing.unaligned"],
        "Unaligned checkpoints: barriers overtake in-flight data, which is stored as channel state."),
    key("execution.checkpointing.aligned-checkpoint-timeout", "0 s", ValueKind::Duration { min: 0 },
        &["execution.checkpointing.alignment-timeout"],
        "With unaligned on: start aligned, switch to unaligned this long after the trigger; 0 = always unaligned."),
    key("execution.checkpointing.unaligned.recover-output-on-downstream.enabled", "false", ValueKind::Bool, &[],
        "FLIP-547: on restore from an unaligned checkpoint, the upstream's output channel state is recovered by the downstream subtask, which consumes it before its new input."),
    key("execution.checkpointing.during-recovery.enabled", "false", ValueKind::Bool, &[],
        "FLIP-547 (needs recover-output-on-downstream and unaligned checkpoints): subtasks switch to RUNNING before their recovered channel state is consumed, and a checkpoint stores what is left of it as channel state again."),
    key("execution.checkpointing.unaligned.max-subtasks-per-channel-state-file", "5", ValueKind::Int { min: 1, max: INT_MAX }, &[],
        "Unaligned: subtasks of one TaskManager whose channel state shares one file; they acknowledge together."),
    key("execution.checkpointing.num-retained", "1", ValueKind::Int { min: 1, max: INT_MAX }, &["state.checkpoints.num-retained"],
        "Number of completed checkpoints kept."),
    key("execution.checkpointing.externalized-checkpoint-retention", "NO_EXTERNALIZED_CHECKPOINTS",
        ValueKind::Enum(&["NO_EXTERNALIZED_CHECKPOINTS", "DELETE_ON_CANCELLATION", "RETAIN_ON_CANCELLATION"]), &[],
        "Whether completed checkpoints survive cancelling the job."),
    key("execution.checkpointing.checkpoints-after-tasks-finish", "true", ValueKind::Bool,
        &["execution.checkpointing.checkpoints-after-tasks-finish.enabled"],
        "Keep checkpointing after some tasks have FINISHED (bounded sources)."),
    key("execution.checkpointing.incremental", "false", ValueKind::Bool, &["state.backend.incremental"],
        "Incremental checkpoints: upload only what changed since the last checkpoint."),
    key("execution.checkpointing.data-inline-threshold", "20 kb", ValueKind::MemorySize { min: 0, max: MB },
        &["state.storage.fs.memory-threshold", "state.backend.fs.memory-threshold"],
        "State chunks smaller than this go inline into the _metadata file instead of their own file (max 1 mb)."),
    key("execution.checkpointing.dir", "", ValueKind::Directory,
        &["state.checkpoints.dir", "state.backend.fs.checkpointdir"],
        "Where checkpoints are written: <dir>/<job-id>/chk-N. Unset: Barrier Lab names them under file:/tmp/flink-checkpoints."),
    key("execution.checkpointing.savepoint-dir", "", ValueKind::Directory,
        &["state.savepoints.dir", "savepoints.state.backend.fs.dir"],
        "Where savepoints are written: <dir>/savepoint-<job>-<id>. Unset: Barrier Lab names them under file:/tmp/flink-savepoints."),
    key("parallelism.default", "1", ValueKind::Int { min: 1, max: 32768 }, &[],
        "Parallelism of the operators that set none (an empty parallelism in the editor)."),
    key("execution.buffer-timeout.interval", "100 ms", ValueKind::Duration { min: 0 }, &["execution.buffer-timeout"],
        "Partly filled network buffers are flushed this often; 0 flushes after every record."),
    key("execution.buffer-timeout.enabled", "true", ValueKind::Bool, &[],
        "false: flush a buffer only when it is full."),
    key("taskmanager.memory.segment-size", "32 kb", ValueKind::MemorySize { min: 4 * KB, max: GB }, &[],
        "Size of one network buffer."),
    key("state.backend.type", "hashmap", ValueKind::Enum(STATE_BACKENDS), &["state.backend"],
        "The keyed state backend: hashmap (state on the heap, full snapshots), rocksdb (EmbeddedRocksDBStateBackend: memtable, SST files, incremental checkpoints with execution.checkpointing.incremental) or forst (ForStStateBackend: RocksDB's files written straight to checkpoint storage, so a checkpoint references them instead of uploading them)."),
    key("taskmanager.network.memory.buffer-debloat.enabled", "false", ValueKind::Bool, &[],
        "Buffer debloating (FLIP-183): size network buffers so that the in-flight data drains in the target time."),
    key("taskmanager.network.memory.buffer-debloat.target", "1 s", ValueKind::Duration { min: 0 }, &[],
        "Debloating: time the queued in-flight data of an input gate should take to consume."),
    key("taskmanager.network.memory.buffer-debloat.period", "200 ms", ValueKind::Duration { min: MS }, &[],
        "Debloating: how often each task measures its input throughput and recomputes the buffer size."),
    key("taskmanager.network.memory.buffer-debloat.samples", "20", ValueKind::Int { min: 1, max: INT_MAX }, &[],
        "Debloating: samples in the moving average of the buffer size (alpha = 2 / (samples + 1))."),
    key("taskmanager.network.memory.buffer-debloat.threshold-percentages", "25", ValueKind::Int { min: 0, max: INT_MAX }, &[],
        "Debloating: a new buffer size is announced only when it differs from the last by this many percent."),
    key("taskmanager.memory.min-segment-size", "256 bytes", ValueKind::MemorySize { min: 1, max: GB }, &[],
        "Debloating: the smallest buffer size."),
    key("taskmanager.memory.starting-segment-size", "1 kb", ValueKind::MemorySize { min: 1, max: GB }, &[],
        "Debloating: the buffer size before the first recalculation."),
    key("pipeline.max-parallelism", "-1", ValueKind::MaxParallelism, &[],
        "Default max parallelism (number of key groups) of operators that set none; -1 = Flink's formula."),
    key("pipeline.operator-chaining.enabled", "true", ValueKind::Bool, &["pipeline.operator-chaining"],
        "Chain forward-connected operators of equal parallelism into one task."),
    key("restart-strategy.type", "", ValueKind::Enum(RESTART_STRATEGY_TYPES), &["restart-strategy"],
        "Restart strategy; unset means exponential-delay with checkpointing on, else no restart."),
    key("restart-strategy.fixed-delay.attempts", "1", ValueKind::Int { min: 0, max: INT_MAX }, &[],
        "fixed-delay: restarts before the job fails."),
    key("restart-strategy.fixed-delay.delay", "1 s", ValueKind::Duration { min: 0 }, &[],
        "fixed-delay: wait before each restart."),
    key("restart-strategy.failure-rate.max-failures-per-interval", "1", ValueKind::Int { min: 1, max: INT_MAX }, &[],
        "failure-rate: failures within the interval before the job fails."),
    key("restart-strategy.failure-rate.failure-rate-interval", "1 min", ValueKind::Duration { min: MS }, &[],
        "failure-rate: the window failures are counted in."),
    key("restart-strategy.failure-rate.delay", "1 s", ValueKind::Duration { min: 0 }, &[],
        "failure-rate: wait before each restart."),
    key("restart-strategy.exponential-delay.initial-backoff", "1 s", ValueKind::Duration { min: 0 }, &[],
        "exponential-delay: first backoff."),
    key("restart-strategy.exponential-delay.max-backoff", "1 min", ValueKind::Duration { min: 0 }, &[],
        "exponential-delay: upper bound of the backoff."),
    key("restart-strategy.exponential-delay.backoff-multiplier", "1.5", ValueKind::Decimal { min: 1000, max: u64::MAX }, &[],
        "exponential-delay: factor applied to the backoff after each failure (at least 1.0)."),
    key("restart-strategy.exponential-delay.reset-backoff-threshold", "1 h", ValueKind::Duration { min: 0 }, &[],
        "exponential-delay: running this long without failure resets the backoff."),
    key("restart-strategy.exponential-delay.jitter-factor", "0.1", ValueKind::Decimal { min: 0, max: 1000 }, &[],
        "exponential-delay: random +/- fraction added to each backoff (0.0 to 1.0)."),
    key("restart-strategy.exponential-delay.attempts-before-reset-backoff", "2147483647",
        ValueKind::Int { min: 1, max: INT_MAX }, &[],
        "exponential-delay: restarts allowed before the backoff is reset."),
    key("web.checkpoints.history", "10", ValueKind::Int { min: 0, max: INT_MAX }, &["jobmanager.web.checkpoints.history"],
        "Number of recent checkpoints kept in the statistics history."),
    key("barrierlab.task-deploy-time", "500 ms", ValueKind::Duration { min: 0 }, &[],
        "Barrier Lab: from the job's start (the checkpoint scheduler starts) until its tasks are RUNNING; sources produce from then, and a checkpoint triggered earlier fails (NOT_ALL_REQUIRED_TASKS_RUNNING)."),
    key("barrierlab.task-running-spread", "40 ms", ValueKind::Duration { min: 0 }, &[],
        "Barrier Lab: how long before the last task the first one switches to RUNNING at the job's start; the ExecutionGraph starts the checkpoint scheduler then, and its trigger fails (NOT_ALL_REQUIRED_TASKS_RUNNING)."),
    key("barrierlab.source-open-lead", "90 ms", ValueKind::Duration { min: 0 }, &[],
        "Barrier Lab: at the job's start, from a source operator's creation until its task is RUNNING. The source's reader and the DataGeneratorSource's rate limiter (Guava's SmoothBursty) are created with the operator, and the limiter stores permits until the first record (at most a second's): the source begins with a burst of the records due since then. The tasks without keyed state are RUNNING task-running-spread before the others. 0: no burst."),
    key("barrierlab.task-redeploy-time", "170 ms", ValueKind::Duration { min: 0 }, &[],
        "Barrier Lab: after a failover, from the restart until the new tasks are deployed and start to restore their state (CREATED, SCHEDULED, DEPLOYING); they are RUNNING once their state is read back."),
    key("barrierlab.trigger-latency", "2 ms", ValueKind::Duration { min: 0 }, &[],
        "Barrier Lab: from a checkpoint's trigger timestamp until a source runs its trigger mail (plan, checkpoint location, source coordinators, RPC, mailbox), plus jitter."),
    key("barrierlab.trigger-dispatch", "1 ms", ValueKind::Duration { min: 0 }, &[],
        "Barrier Lab: a TaskExecutor handles trigger RPCs one after another: each further source subtask on a TaskManager gets its trigger this much later."),
    key("barrierlab.ack-latency", "3 ms", ValueKind::Duration { min: 0 }, &[],
        "Barrier Lab: from a subtask's async phase ending until the JobManager records its ack (RPC, JobMaster thread, I/O executor), plus jitter."),
    key("barrierlab.thread-jitter", "3 ms", ValueKind::Duration { min: 0 }, &[],
        "Barrier Lab: thread hand-off noise: a uniform random 0..jitter added to the trigger, to a waiting task's wake-up on new input, to the start of the async phase and to the ack (seeded, so runs stay reproducible)."),
    key("barrierlab.warm-up.trigger", "27 ms", ValueKind::Duration { min: 0 }, &[],
        "Barrier Lab: the JVM warming up. A TaskManager's first checkpoint trigger loads and initializes the classes on its path: the sources there run their trigger mail this much later (triggers arriving meanwhile wait for the same end). 0: a warm JVM."),
    key("barrierlab.warm-up.sync", "11 ms", ValueKind::Duration { min: 0 }, &[],
        "Barrier Lab: the JVM warming up: a TaskManager's first synchronous snapshot takes this much longer (subtasks reaching it meanwhile wait for the same end)."),
    key("barrierlab.warm-up.async", "12 ms", ValueKind::Duration { min: 0 }, &[],
        "Barrier Lab: the JVM warming up: a TaskManager's first async phase (checkpoint streams, acknowledgement) takes this much longer."),
    key("barrierlab.warm-up.keyed-sync", "5 ms", ValueKind::Duration { min: 0 }, &[],
        "Barrier Lab: the JVM warming up: a TaskManager's first keyed-state snapshot (the state backend's snapshot strategy) adds this much to its sync phase."),
    key("barrierlab.warm-up.keyed-async", "8 ms", ValueKind::Duration { min: 0 }, &[],
        "Barrier Lab: the JVM warming up: a TaskManager's first keyed-state snapshot adds this much to its async phase."),
    key("barrierlab.rpc-latency", "1 ms", ValueKind::Duration { min: 0 }, &[],
        "Barrier Lab: one-way latency of the other RPCs between JobManager and TaskManager (notifications, declines, finished tasks)."),
    key("barrierlab.network-latency", "100 us", ValueKind::Duration { min: 0 }, &[],
        "Barrier Lab: one-way latency of a buffer between TaskManagers; local channels have none."),
    key("barrierlab.network-throughput", "125 mb", ValueKind::MemorySize { min: 1, max: u64::MAX }, &[],
        "Barrier Lab: bytes per second between two TaskManagers (125 mb = 1 Gbit/s)."),
    key("barrierlab.storage.profile", "local-disk", ValueKind::Enum(STORAGE_PROFILES), &[],
        "Barrier Lab: the checkpoint storage's speed. local-disk: 3 ms a file, 100 MB/s (measured against Flink 2.3 on a local file system); object-store: 100 ms a file, 85 MB/s (an S3-like store: AWS's figures for small-object latency and one connection's throughput). The two keys below override it."),
    key("barrierlab.storage.write-latency", "3 ms", ValueKind::Duration { min: 0 }, &[],
        "Barrier Lab: fixed time to create and close one file on checkpoint storage. Unset: the storage profile's."),
    key("barrierlab.storage.write-throughput", "100 mb", ValueKind::MemorySize { min: 1, max: u64::MAX }, &[],
        "Barrier Lab: bytes per second one writer uploads to checkpoint storage. Unset: the storage profile's."),
];

/// The table entry for a canonical key.
pub fn key_info(key: &str) -> Option<&'static ConfigKeyInfo> {
    CONFIG_KEYS.iter().find(|k| k.key == key)
}

/// Maps a key (canonical or deprecated) to its table entry; unknown keys get an error naming the
/// closest known key, Flink keys the engine does not model an error saying so.
pub fn resolve_key(key: &str) -> Result<&'static ConfigKeyInfo, String> {
    if let Some(info) = key_info(key) {
        return Ok(info);
    }
    if let Some(info) = CONFIG_KEYS
        .iter()
        .find(|k| k.deprecated_keys.contains(&key))
    {
        return Ok(info);
    }
    if super::flink_keys::flink_key(key).is_some() {
        return Err(format!(
            "configuration key '{key}' is a Flink 2.3 key Barrier Lab does not model (a pasted config.yaml accepts it with a note)"
        ));
    }
    Err(format!(
        "unknown configuration key '{key}'; did you mean '{}'?",
        closest_key(key)
    ))
}

/// The known key nearest by edit distance (deprecated names count, but the canonical name is
/// suggested). Ties go to the earlier key in the table, so the suggestion is deterministic.
pub fn closest_key(key: &str) -> &'static str {
    let mut best = (usize::MAX, CONFIG_KEYS[0].key);
    for info in CONFIG_KEYS {
        for name in std::iter::once(&info.key).chain(info.deprecated_keys) {
            let d = edit_distance(key, name);
            if d < best.0 {
                best = (d, info.key);
            }
        }
    }
    best.1
}

/// Levenshtein distance over chars, two rows.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitute = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = substitute.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// Checks one value against its key's form; the error names key, value and the expected form.
pub fn check_value(info: &ConfigKeyInfo, value: &str) -> Result<ConfigValue, String> {
    let bad = |expected: String| {
        format!(
            "configuration key '{}': bad value '{value}', expected {expected}",
            info.key
        )
    };
    let v = value.trim();
    match info.kind {
        ValueKind::Duration { min } => {
            let us = parse_duration(v)
                .map_err(|_| bad("a duration such as 500ms, 5s or 1min".into()))?;
            if us < min {
                return Err(bad(format!("a duration of at least {}us", min)));
            }
            Ok(ConfigValue::Micros(us))
        }
        ValueKind::MemorySize { min, max } => {
            let bytes = parse_memory_size(v)
                .map_err(|_| bad("a memory size such as 32kb or 1mb".into()))?;
            if bytes < min || bytes > max {
                return Err(bad(format!("a memory size between {min} and {max} bytes")));
            }
            Ok(ConfigValue::Bytes(bytes))
        }
        ValueKind::Int { min, max } => match v.parse::<i64>() {
            Ok(n) if (min..=max).contains(&n) => Ok(ConfigValue::Int(n)),
            _ => Err(bad(format!("an integer between {min} and {max}"))),
        },
        ValueKind::MaxParallelism => match v.parse::<i64>() {
            Ok(n) if n == -1 || (1..=32768).contains(&n) => Ok(ConfigValue::Int(n)),
            _ => Err(bad("-1 or an integer between 1 and 32768".into())),
        },
        ValueKind::Bool => match v.to_ascii_lowercase().as_str() {
            "true" => Ok(ConfigValue::Bool(true)),
            "false" => Ok(ConfigValue::Bool(false)),
            _ => Err(bad("true or false".into())),
        },
        ValueKind::Enum(choices) => choices
            .iter()
            .find(|c| c.eq_ignore_ascii_case(v))
            .map(|c| ConfigValue::Choice(c))
            .ok_or_else(|| bad(format!("one of {}", choices.join(", ")))),
        ValueKind::Decimal { min, max } => {
            let milli = parse_thousandths(v).ok_or_else(|| {
                bad("a decimal number with at most 3 fractional digits, such as 1.5".into())
            })?;
            if milli < min || milli > max {
                let upper = if max == u64::MAX {
                    String::new()
                } else {
                    format!(" and at most {}", format_thousandths(max))
                };
                return Err(bad(format!(
                    "a decimal of at least {}{upper}",
                    format_thousandths(min)
                )));
            }
            Ok(ConfigValue::Milli(milli))
        }
        ValueKind::Directory => {
            flink_path(v).map_err(|m| {
                bad(format!(
                    "a directory URI such as file:///tmp/checkpoints ({m})"
                ))
            })?;
            Ok(ConfigValue::Directory)
        }
    }
}

/// A directory as Flink's `Path` prints it (`file:///tmp/x/` -> `file:/tmp/x`,
/// `hdfs://nn:8020//a/` -> `hdfs://nn:8020/a`), after the checks of
/// `ExternalizedSnapshotLocation.validatePath`: a scheme, and a path that is not the root.
pub fn flink_path(uri: &str) -> Result<String, String> {
    let uri = uri.trim();
    let scheme_end = uri
        .find(':')
        .filter(|&i| {
            let scheme = &uri[..i];
            scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        })
        .ok_or("the scheme (hdfs://, file://, etc) is missing")?;
    let scheme = &uri[..scheme_end];
    let rest = &uri[scheme_end + 1..];
    let (authority, path) = match rest.strip_prefix("//") {
        Some(r) => r.find('/').map_or((r, ""), |at| (&r[..at], &r[at..])),
        None => ("", rest),
    };
    if !path.is_empty() && !path.starts_with('/') {
        // `file:tmp/x` is an opaque URI: Java's `URI.getPath()` is null for it.
        return Err("the path must be absolute".into());
    }
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    if segments.is_empty() {
        return Err("cannot use the root directory for checkpoints".into());
    }
    let path = format!("/{}", segments.join("/"));
    Ok(if authority.is_empty() {
        format!("{scheme}:{path}")
    } else {
        format!("{scheme}://{authority}{path}")
    })
}

/// `"1.5"` -> 1500, `"2"` -> 2000, `"0.125"` -> 125; `None` for anything else (negative, more than
/// three fractional digits, overflow).
pub fn parse_thousandths(text: &str) -> Option<u64> {
    let (int, frac) = text.split_once('.').unwrap_or((text, ""));
    if int.is_empty() && frac.is_empty() || frac.len() > 3 {
        return None;
    }
    let all_digits = |s: &str| s.chars().all(|c| c.is_ascii_digit());
    if !all_digits(int) || !all_digits(frac) {
        return None;
    }
    let int: u64 = if int.is_empty() { 0 } else { int.parse().ok()? };
    let mut frac_milli: u64 = if frac.is_empty() {
        0
    } else {
        frac.parse().ok()?
    };
    for _ in frac.len()..3 {
        frac_milli *= 10;
    }
    int.checked_mul(1000)?.checked_add(frac_milli)
}

/// 1500 -> "1.5", 2000 -> "2.0".
pub fn format_thousandths(milli: u64) -> String {
    let frac = format!("{:03}", milli % 1000);
    let frac = frac.trim_end_matches('0');
    format!(
        "{}.{}",
        milli / 1000,
        if frac.is_empty() { "0" } else { frac }
    )
}
