//! Reading Flink REST shapes (`serde_json::Value`) without ceremony.

use serde_json::Value;

use crate::format;

pub fn u(v: &Value, key: &str) -> u64 {
    v.get(key).and_then(Value::as_u64).unwrap_or(0)
}

pub fn i(v: &Value, key: &str) -> i64 {
    v.get(key).and_then(Value::as_i64).unwrap_or(-1)
}

pub fn b(v: &Value, key: &str) -> bool {
    v.get(key).and_then(Value::as_bool).unwrap_or(false)
}

pub fn s(v: &Value, key: &str) -> String {
    match v.get(key) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}

/// A REST duration in milliseconds; negative means "not yet".
pub fn duration(v: &Value, key: &str) -> String {
    match i(v, key) {
        ms if ms < 0 => "-".to_string(),
        ms => format::millis(ms as u64),
    }
}

/// A REST timestamp (simulated milliseconds); negative means "not yet".
pub fn timestamp(v: &Value, key: &str) -> String {
    match i(v, key) {
        ms if ms < 0 => "-".to_string(),
        ms => format::sim_time_ms(ms as u64),
    }
}

pub fn bytes(v: &Value, key: &str) -> String {
    format::bytes(u(v, key))
}
