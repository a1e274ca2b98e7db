//! Numbers as the UI prints them. Display only: nothing here feeds back into the simulation.

use barrierlab_engine::types::Micros;

/// A duration in microseconds: `850 µs`, `12.3 ms`, `4.21 s`.
pub fn micros(us: Micros) -> String {
    if us < 1_000 {
        format!("{us} µs")
    } else if us < 1_000_000 {
        format!("{:.1} ms", us as f64 / 1_000.0)
    } else {
        format!("{:.2} s", us as f64 / 1_000_000.0)
    }
}

/// A duration in milliseconds, as Flink's REST API reports them.
pub fn millis(ms: u64) -> String {
    if ms < 1_000 {
        format!("{ms} ms")
    } else if ms < 60_000 {
        format!("{:.2} s", ms as f64 / 1_000.0)
    } else {
        format!("{}m {}s", ms / 60_000, (ms % 60_000) / 1_000)
    }
}

/// A point in simulated time: `12.345 s`.
pub fn sim_time(us: Micros) -> String {
    format!("{}.{:03} s", us / 1_000_000, (us % 1_000_000) / 1_000)
}

/// A point in simulated time given in REST milliseconds.
pub fn sim_time_ms(ms: u64) -> String {
    sim_time(ms.saturating_mul(1_000))
}

/// A REST duration in milliseconds; negative (Flink's `-1`) means "not yet": `-`.
pub fn rest_millis(ms: i64) -> String {
    u64::try_from(ms).map_or_else(|_| "-".to_string(), millis)
}

/// A REST timestamp in simulated milliseconds; negative means "not yet": `-`.
pub fn rest_time(ms: i64) -> String {
    u64::try_from(ms).map_or_else(|_| "-".to_string(), sim_time_ms)
}

/// Bytes as Flink's UI prints them: `512 B`, `5.6 KB`, `12.0 MB`.
pub fn bytes(b: u64) -> String {
    if b < 1024 {
        format!("{b} B")
    } else if b < 1024 * 1024 {
        format!("{:.1} KB", b as f64 / 1024.0)
    } else if b < 1024 * 1024 * 1024 {
        format!("{:.1} MB", b as f64 / (1024.0 * 1024.0))
    } else {
        format!("{:.2} GB", b as f64 / (1024.0 * 1024.0 * 1024.0))
    }
}

/// A ratio in [0, 1] as a whole percentage.
pub fn percent(r: f64) -> String {
    format!("{:.0}%", r * 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(micros(850), "850 µs");
        assert_eq!(micros(12_345), "12.3 ms");
        assert_eq!(micros(4_210_000), "4.21 s");
        assert_eq!(sim_time(12_345_678), "12.345 s");
        assert_eq!(bytes(5_696), "5.6 KB");
        assert_eq!(millis(2), "2 ms");
        assert_eq!(rest_millis(-1), "-");
        assert_eq!(rest_millis(1_500), "1.50 s");
        assert_eq!(rest_time(-1), "-");
        assert_eq!(rest_time(12_345), "12.345 s");
        assert_eq!(percent(0.126), "13%");
    }
}
