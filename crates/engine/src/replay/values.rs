//! The small value forms a replay script accepts: durations, byte counts and subtask names.
//!
//! Each is a newtype with a hand-written `Deserialize` so the error says what form was expected
//! ("a duration such as \"120ms\" or integer microseconds") instead of serde's generic wording.

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;

use crate::types::{parse_duration, parse_memory_size, Micros, SubtaskId};

/// A duration or a point in time: `"120ms"`, `"5s"`, `"250us"` (Flink's syntax, so a bare number
/// in a *string* is milliseconds) or a JSON integer, which is microseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Dur(pub Micros);

impl<'de> Deserialize<'de> for Dur {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(DurVisitor)
    }
}

struct DurVisitor;

impl Visitor<'_> for DurVisitor {
    type Value = Dur;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a duration such as \"120ms\", \"5s\", \"250us\" or integer microseconds")
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Dur, E> {
        Ok(Dur(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Dur, E> {
        u64::try_from(v)
            .map(Dur)
            .map_err(|_| E::custom(format!("a duration cannot be negative ({v})")))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Dur, E> {
        parse_duration(v).map(Dur).map_err(E::custom)
    }
}

/// A byte count: a JSON integer, or a Flink memory size string such as `"32kb"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Bytes(pub u64);

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(BytesVisitor)
    }
}

struct BytesVisitor;

impl Visitor<'_> for BytesVisitor {
    type Value = Bytes;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a byte count: an integer or a size such as \"32kb\"")
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Bytes, E> {
        Ok(Bytes(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Bytes, E> {
        u64::try_from(v)
            .map(Bytes)
            .map_err(|_| E::custom(format!("a byte count cannot be negative ({v})")))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Bytes, E> {
        parse_memory_size(v).map(Bytes).map_err(E::custom)
    }
}

/// A subtask written `"vertex/subtask"`, e.g. `"1/0"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Task(pub SubtaskId);

impl<'de> Deserialize<'de> for Task {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        parse_task(&text).map(Task).map_err(de::Error::custom)
    }
}

/// Parses `"vertex/subtask"`.
pub fn parse_task(text: &str) -> Result<SubtaskId, String> {
    let bad = || format!("'{text}' is not a subtask; write vertex/subtask, e.g. \"1/0\"");
    let (v, s) = text.split_once('/').ok_or_else(bad)?;
    let vertex = v.trim().parse::<u32>().map_err(|_| bad())?;
    let subtask = s.trim().parse::<u32>().map_err(|_| bad())?;
    Ok(SubtaskId { vertex, subtask })
}

/// `"1/0"` for subtask (1, 0): the form scripts use, for messages and the CLI.
pub fn task_name(t: SubtaskId) -> String {
    format!("{}/{}", t.vertex, t.subtask)
}
