//! `StatsSummary` and its REST form `StatsSummaryDto`.
//!
//! Flink keeps min/max/sum/count over everything and percentiles over a sliding window of the
//! latest values (`DescriptiveStatisticsHistogram`, window 10 000 for the job summary). Percentiles
//! use Commons Math's default `Percentile` estimator (LEGACY): position `p·(n+1)/100` between the
//! sorted values, linear interpolation. Here the position is an exact integer fraction; only the
//! final interpolated value becomes an `f64`, for display.

use serde::Serialize;
use std::collections::VecDeque;

/// `CompletedCheckpointStatsSummary.HISTOGRAM_WINDOW_SIZE`.
pub const HISTOGRAM_WINDOW_SIZE: usize = 10_000;

/// Quantiles in thousandths of a percent: p50, p90, p95, p99, p99.9.
const Q_P50: u64 = 50_000;
const Q_P90: u64 = 90_000;
const Q_P95: u64 = 95_000;
const Q_P99: u64 = 99_000;
const Q_P999: u64 = 99_900;
const Q_DEN: u64 = 100_000;

/// `StatsSummary`: min/max/avg over all values, percentiles over the window.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StatsSummary {
    min: u64,
    max: u64,
    sum: u128,
    count: u64,
    window: VecDeque<u64>,
    window_size: usize,
}

impl Default for StatsSummary {
    fn default() -> Self {
        Self::new(HISTOGRAM_WINDOW_SIZE)
    }
}

impl StatsSummary {
    pub fn new(window_size: usize) -> Self {
        Self {
            min: 0,
            max: 0,
            sum: 0,
            count: 0,
            window: VecDeque::new(),
            window_size: window_size.max(1),
        }
    }

    /// `add`: Flink ignores negative values; ours are unsigned so every value counts.
    pub fn add(&mut self, value: u64) {
        if self.count == 0 {
            self.min = value;
            self.max = value;
        } else {
            self.min = self.min.min(value);
            self.max = self.max.max(value);
        }
        self.count += 1;
        self.sum += value as u128;
        if self.window.len() == self.window_size {
            self.window.pop_front();
        }
        self.window.push_back(value);
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    /// The newest `n` values of the window, oldest first (trend charts).
    pub fn recent(&self, n: usize) -> Vec<u64> {
        let skip = self.window.len().saturating_sub(n);
        self.window.iter().skip(skip).copied().collect()
    }

    pub fn min(&self) -> u64 {
        self.min
    }

    pub fn max(&self) -> u64 {
        self.max
    }

    /// `getAverage`: integer division, 0 when empty.
    pub fn average(&self) -> u64 {
        if self.count == 0 {
            0
        } else {
            (self.sum / self.count as u128) as u64
        }
    }

    /// The LEGACY percentile `q_milli_percent / 1000` % over the window, as an exact fraction
    /// `(whole, numerator, denominator)` meaning `whole + numerator/denominator`. `None` when empty.
    pub fn quantile_exact(&self, q_milli_percent: u64) -> Option<(u64, u64, u64)> {
        let mut sorted: Vec<u64> = self.window.iter().copied().collect();
        sorted.sort_unstable();
        legacy_percentile(&sorted, q_milli_percent)
    }

    /// The percentile as a display value.
    pub fn quantile(&self, q_milli_percent: u64) -> f64 {
        self.quantile_exact(q_milli_percent)
            .map(fraction_to_f64)
            .unwrap_or(0.0)
    }

    /// `StatsSummaryDto.valueOf(createSnapshot())`. Flink would print NaN percentiles for an
    /// empty summary; JSON has no NaN, so an empty summary reports 0.
    /// `StatsSummarySnapshot` without a histogram, as `TaskStateStats` keeps it: min, max and
    /// average, and NaN for every percentile (what Flink's per-vertex summaries show).
    pub fn to_dto_without_histogram(&self) -> StatsSummaryDto {
        StatsSummaryDto {
            p50: f64::NAN,
            p90: f64::NAN,
            p95: f64::NAN,
            p99: f64::NAN,
            p999: f64::NAN,
            ..self.to_dto()
        }
    }

    pub fn to_dto(&self) -> StatsSummaryDto {
        let mut sorted: Vec<u64> = self.window.iter().copied().collect();
        sorted.sort_unstable();
        let q = |p| {
            legacy_percentile(&sorted, p)
                .map(fraction_to_f64)
                .unwrap_or(0.0)
        };
        StatsSummaryDto {
            min: self.min as i64,
            max: self.max as i64,
            avg: self.average() as i64,
            p50: q(Q_P50),
            p90: q(Q_P90),
            p95: q(Q_P95),
            p99: q(Q_P99),
            p999: q(Q_P999),
        }
    }
}

/// Commons Math `Percentile` (LEGACY estimation) over sorted values.
fn legacy_percentile(sorted: &[u64], q_milli_percent: u64) -> Option<(u64, u64, u64)> {
    let n = sorted.len() as u64;
    if n == 0 {
        return None;
    }
    if n == 1 {
        return Some((sorted[0], 0, 1));
    }
    // pos = q/Q_DEN · (n + 1) as the fraction pos_num / Q_DEN.
    let pos_num = q_milli_percent as u128 * (n as u128 + 1);
    let whole = (pos_num / Q_DEN as u128) as u64;
    let rem = (pos_num % Q_DEN as u128) as u64;
    if whole < 1 {
        return Some((sorted[0], 0, 1));
    }
    if whole >= n {
        return Some((sorted[(n - 1) as usize], 0, 1));
    }
    let lower = sorted[(whole - 1) as usize];
    let upper = sorted[whole as usize];
    // lower + rem/Q_DEN · (upper - lower): keep the interpolation exact as a fraction.
    let diff = (upper - lower) as u128 * rem as u128;
    let extra_whole = (diff / Q_DEN as u128) as u64;
    let extra_rem = (diff % Q_DEN as u128) as u64;
    Some((lower + extra_whole, extra_rem, Q_DEN))
}

/// Display conversion only (never fed back into the simulation).
fn fraction_to_f64((whole, num, den): (u64, u64, u64)) -> f64 {
    whole as f64 + num as f64 / den as f64
}

/// `StatsSummaryDto`: `{min, max, avg, p50, p90, p95, p99, p999}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StatsSummaryDto {
    pub min: i64,
    pub max: i64,
    pub avg: i64,
    #[serde(serialize_with = "nan_as_string")]
    pub p50: f64,
    #[serde(serialize_with = "nan_as_string")]
    pub p90: f64,
    #[serde(serialize_with = "nan_as_string")]
    pub p95: f64,
    #[serde(serialize_with = "nan_as_string")]
    pub p99: f64,
    #[serde(serialize_with = "nan_as_string")]
    pub p999: f64,
}

/// Jackson writes a NaN double as the string `"NaN"` (`WRITE_NAN_AS_STRINGS`); serde_json would
/// write `null`.
fn nan_as_string<S: serde::Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    if v.is_nan() {
        s.serialize_str("NaN")
    } else {
        s.serialize_f64(*v)
    }
}

impl StatsSummaryDto {
    /// An all-zero summary (the hardcoded `alignment_buffered`).
    pub fn zero() -> Self {
        StatsSummary::new(1).to_dto()
    }
}
