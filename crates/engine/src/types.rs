//! Small shared vocabulary: time, ids and durations as Flink writes them.

use serde::{Deserialize, Serialize};

pub mod snapshot_forms;

/// `execution.checkpointing.externalized-checkpoint-retention` (Flink's
/// `ExternalizedCheckpointRetention`, in flink-core): read from the configuration, obeyed by the
/// coordinator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum ExternalizedCheckpointRetention {
    DeleteOnCancellation,
    RetainOnCancellation,
    #[default]
    NoExternalizedCheckpoints,
}

/// Simulated time and durations, in integer microseconds.
pub type Micros = u64;

pub const MICROS_PER_MS: Micros = 1_000;
pub const MICROS_PER_SEC: Micros = 1_000_000;

/// A checkpoint (or savepoint) id as the coordinator hands them out: 1, 2, 3, ...
pub type CheckpointId = u64;

/// One parallel instance of a job vertex: `(vertex index, subtask index)`.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub struct SubtaskId {
    pub vertex: u32,
    pub subtask: u32,
}

/// An input channel of a task's input gate, numbered across all its gates.
pub type ChannelIndex = u32;

/// Parses a Flink duration (`MemorySize`/`TimeUtils` style): `500ms`, `5s`, `1 min`, `2h`, `100`
/// (plain numbers are milliseconds, as in Flink). Returns microseconds.
pub fn parse_duration(text: &str) -> Result<Micros, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let value: u64 = num
        .parse()
        .map_err(|_| format!("'{text}' is not a duration (try 500ms, 5s, 1min)"))?;
    let per: Micros = match unit.trim().to_ascii_lowercase().as_str() {
        "us" | "µs" | "micro" | "micros" | "microsecond" | "microseconds" => 1,
        "" | "ms" | "milli" | "millis" | "millisecond" | "milliseconds" => MICROS_PER_MS,
        "s" | "sec" | "secs" | "second" | "seconds" => MICROS_PER_SEC,
        "m" | "min" | "mins" | "minute" | "minutes" => 60 * MICROS_PER_SEC,
        "h" | "hour" | "hours" => 3_600 * MICROS_PER_SEC,
        "d" | "day" | "days" => 86_400 * MICROS_PER_SEC,
        other => return Err(format!("'{text}': unknown time unit '{other}'")),
    };
    value
        .checked_mul(per)
        .ok_or_else(|| format!("'{text}' is too long a duration"))
}

/// Formats microseconds the way Flink's UI rounds durations: `850us`, `12ms`, `3.9s`.
pub fn format_duration(us: Micros) -> String {
    if us < MICROS_PER_MS {
        format!("{us}us")
    } else if us < 10 * MICROS_PER_SEC {
        format!("{}ms", us / MICROS_PER_MS)
    } else {
        format!(
            "{}.{}s",
            us / MICROS_PER_SEC,
            (us % MICROS_PER_SEC) / 100_000
        )
    }
}

/// Parses a Flink memory size: `32kb`, `1 mb`, `4096` (bytes).
pub fn parse_memory_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let value: u64 = num
        .parse()
        .map_err(|_| format!("'{text}' is not a memory size (try 32kb, 1mb)"))?;
    let per: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" | "bytes" => 1,
        "k" | "kb" | "kibibytes" => 1 << 10,
        "m" | "mb" | "mebibytes" => 1 << 20,
        "g" | "gb" | "gibibytes" => 1 << 30,
        other => return Err(format!("'{text}': unknown memory unit '{other}'")),
    };
    value
        .checked_mul(per)
        .ok_or_else(|| format!("'{text}' is too large"))
}

/// Records one source action generates at most (its last group of 8 may pass it by 7); the
/// per-record cost is paid after them, so a stalled source can burst this many at once. The
/// task's loop and the cost estimate's bound share it.
pub const MAX_RECORDS_PER_SOURCE_ACTION: u32 = 4096;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_like_flink() {
        assert_eq!(parse_duration("5s"), Ok(5 * MICROS_PER_SEC));
        assert_eq!(parse_duration("100 ms"), Ok(100 * MICROS_PER_MS));
        assert_eq!(parse_duration("250"), Ok(250 * MICROS_PER_MS));
        assert_eq!(parse_duration("1min"), Ok(60 * MICROS_PER_SEC));
        assert!(parse_duration("fast").is_err());
        assert!(parse_duration("5 parsecs").is_err());
    }

    #[test]
    fn memory_sizes_parse_like_flink() {
        assert_eq!(parse_memory_size("32kb"), Ok(32768));
        assert_eq!(parse_memory_size("1 mb"), Ok(1 << 20));
        assert!(parse_memory_size("lots").is_err());
    }
}
