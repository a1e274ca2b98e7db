//! Operator knobs: the one parser behind `--set operator.<name>.<knob>=<value>` and the editor's
//! fields, so a value the CLI takes the playground takes too (`record-size=1kb`, `bounded=none`).
//! It checks the value's form; ranges (hot-keys ≤ keys, …) are `Scenario::validate`'s business.

use super::model::{KeyDistribution, OperatorKind, OperatorSpec};
use crate::types::{parse_duration, parse_memory_size};

/// Knobs every operator has.
pub const COMMON_KNOBS: &[&str] = &["parallelism", "max-parallelism", "cost-per-record"];
/// A datagen's own knobs.
pub const DATAGEN_KNOBS: &[&str] = &[
    "rate",
    "record-size",
    "keys",
    "bounded",
    "distribution",
    "hot-keys",
    "hot-percent",
];
pub const FILTER_KNOBS: &[&str] = &["keep-percent"];
pub const WINDOW_KNOBS: &[&str] = &["window"];
/// A keyed process function's (count, list).
pub const KEYED_STATE_KNOBS: &[&str] = &["state-ttl"];

/// A skewed distribution's knobs when a uniform one turns skewed: one hot key with 80 %.
const DEFAULT_SKEW: KeyDistribution = KeyDistribution::Skewed {
    hot_keys: 1,
    hot_percent: 80,
};

impl OperatorKind {
    /// The knobs of this kind, beyond [`COMMON_KNOBS`].
    pub fn knobs(&self) -> &'static [&'static str] {
        match self {
            OperatorKind::Datagen { .. } => DATAGEN_KNOBS,
            OperatorKind::Filter { .. } => FILTER_KNOBS,
            OperatorKind::KeyedWindowSum { .. } => WINDOW_KNOBS,
            OperatorKind::KeyedCount | OperatorKind::KeyedList => KEYED_STATE_KNOBS,
            _ => &[],
        }
    }
}

impl OperatorSpec {
    /// Every knob this operator has, common ones first.
    pub fn knob_names(&self) -> Vec<&'static str> {
        let mut knobs = COMMON_KNOBS.to_vec();
        knobs.extend(self.kind.knobs());
        knobs
    }

    /// Sets one knob from text as a user typed it (surrounding spaces ignored). On error the
    /// operator is unchanged and the message names the knob, the value and the expected form.
    ///
    /// - `parallelism`, `max-parallelism`: an integer; empty, `-1` or `default`/`none` unsets it
    ///   (the job's `parallelism.default`, Flink's `PARALLELISM_DEFAULT`).
    /// - `cost-per-record`: a Flink duration (`5ms`, `20us`); empty unsets it.
    /// - datagen: `rate`, `keys` (integers), `record-size` (bytes or a Flink size: `1kb`),
    ///   `bounded` (an integer; empty, `none` or `false`: unbounded), `distribution`
    ///   (`uniform` or `skewed`), `hot-keys`, `hot-percent` (integers; they make a uniform
    ///   distribution skewed, starting from one hot key with 80 %).
    /// - filter: `keep-percent`; keyed-window-sum: `window` (a Flink duration).
    /// - keyed-count, keyed-list: `state-ttl` (a Flink duration; empty, `none` or `0`: no TTL).
    pub fn set_knob(&mut self, knob: &str, value: &str) -> Result<(), String> {
        let value = value.trim();
        let bad = |expected: &str| format!("{knob}: bad value '{value}', expected {expected}");
        let int = || {
            value
                .parse::<u64>()
                .map_err(|_| bad("a non-negative integer"))
        };
        let small = || {
            value
                .parse::<u32>()
                .map_err(|_| bad("a non-negative integer"))
        };
        let unset = |extra: &str| value.is_empty() || value == "-1" || value == extra;
        match (knob, &mut self.kind) {
            ("parallelism", _) => {
                self.parallelism = if unset("default") {
                    None
                } else {
                    Some(small()?)
                }
            }
            ("max-parallelism", _) => {
                self.max_parallelism = if unset("none") { None } else { Some(small()?) }
            }
            ("cost-per-record", _) => {
                self.cost_per_record = if value.is_empty() {
                    None
                } else {
                    parse_duration(value).map_err(|_| bad("a duration such as 5ms or 20us"))?;
                    Some(value.to_string())
                }
            }
            ("rate", OperatorKind::Datagen { rate, .. }) => *rate = int()?,
            ("record-size", OperatorKind::Datagen { record_size, .. }) => {
                *record_size =
                    parse_memory_size(value).map_err(|_| bad("a size such as 1024 or 1kb"))?
            }
            ("keys", OperatorKind::Datagen { keys, .. }) => *keys = small()?,
            ("bounded", OperatorKind::Datagen { bounded, .. }) => {
                *bounded = match value {
                    "" | "none" | "false" => None,
                    _ => Some(int()?),
                }
            }
            (
                "distribution",
                OperatorKind::Datagen {
                    key_distribution, ..
                },
            ) => {
                match (value, &key_distribution) {
                    ("uniform", _) => *key_distribution = KeyDistribution::Uniform,
                    // Already skewed: keep its hot keys and share.
                    ("skewed", KeyDistribution::Skewed { .. }) => {}
                    ("skewed", _) => *key_distribution = DEFAULT_SKEW,
                    _ => return Err(bad("uniform or skewed")),
                }
            }
            (
                "hot-keys" | "hot-percent",
                OperatorKind::Datagen {
                    key_distribution, ..
                },
            ) => {
                let n = small()?;
                if key_distribution.is_uniform() {
                    *key_distribution = DEFAULT_SKEW;
                }
                if let KeyDistribution::Skewed {
                    hot_keys,
                    hot_percent,
                } = key_distribution
                {
                    *(if knob == "hot-keys" {
                        hot_keys
                    } else {
                        hot_percent
                    }) = n;
                }
            }
            ("keep-percent", OperatorKind::Filter { keep_percent }) => *keep_percent = small()?,
            ("state-ttl", OperatorKind::KeyedCount | OperatorKind::KeyedList) => {
                self.state_ttl = match value {
                    "" | "none" | "0" => None,
                    _ => {
                        let ttl = parse_duration(value)
                            .map_err(|_| bad("a duration such as 10s, or none"))?;
                        if ttl < 1_000 {
                            return Err(bad("at least 1ms (StateTtlConfig counts milliseconds)"));
                        }
                        Some(value.to_string())
                    }
                }
            }
            ("window", OperatorKind::KeyedWindowSum { window }) => {
                parse_duration(value).map_err(|_| bad("a duration such as 10s"))?;
                *window = value.to_string();
            }
            _ => {
                return Err(format!(
                    "{} ({}) has no knob '{knob}'; its knobs are: {}",
                    self.name,
                    self.kind.type_name(),
                    self.knob_names().join(", ")
                ))
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::preset;

    fn source() -> OperatorSpec {
        preset("seed-demo").unwrap().operators[0].clone()
    }

    fn set(op: &mut OperatorSpec, knob: &str, value: &str) -> Result<(), String> {
        let before = op.clone();
        let r = op.set_knob(knob, value);
        if r.is_err() {
            assert_eq!(*op, before, "a refused {knob}={value} changed the operator");
        }
        r
    }

    #[test]
    fn every_knob_of_a_source_parses_its_forms() {
        let mut op = source();
        set(&mut op, "record-size", " 1kb ").unwrap();
        set(&mut op, "rate", "4000").unwrap();
        set(&mut op, "keys", "16").unwrap();
        set(&mut op, "bounded", "500").unwrap();
        set(&mut op, "parallelism", "3").unwrap();
        set(&mut op, "max-parallelism", "256").unwrap();
        set(&mut op, "cost-per-record", "20us").unwrap();
        let OperatorKind::Datagen {
            rate,
            record_size,
            keys,
            bounded,
            ..
        } = &op.kind
        else {
            panic!("not a datagen")
        };
        assert_eq!(
            (*rate, *record_size, *keys, *bounded),
            (4000, 1024, 16, Some(500))
        );
        assert_eq!((op.parallelism, op.max_parallelism), (Some(3), Some(256)));
        assert_eq!(op.cost_per_record.as_deref(), Some("20us"));
        for (knob, value) in [
            ("bounded", "none"),
            ("parallelism", ""),
            ("max-parallelism", "-1"),
            ("cost-per-record", ""),
        ] {
            set(&mut op, knob, value).unwrap();
        }
        assert!(matches!(
            op.kind,
            OperatorKind::Datagen { bounded: None, .. }
        ));
        assert_eq!((op.parallelism, op.max_parallelism), (None, None));
        assert_eq!(op.cost_per_record, None);
    }

    #[test]
    fn hot_keys_make_a_uniform_source_skewed_and_distribution_switches_back() {
        let mut op = source();
        set(&mut op, "hot-percent", "90").unwrap();
        let skewed = |op: &OperatorSpec| match &op.kind {
            OperatorKind::Datagen {
                key_distribution, ..
            } => key_distribution.clone(),
            _ => unreachable!(),
        };
        let want = KeyDistribution::Skewed {
            hot_keys: 1,
            hot_percent: 90,
        };
        assert_eq!(skewed(&op), want);
        set(&mut op, "distribution", "skewed").unwrap();
        assert_eq!(skewed(&op), want, "skewed again keeps the hot keys");
        set(&mut op, "hot-keys", "2").unwrap();
        set(&mut op, "distribution", "uniform").unwrap();
        assert_eq!(skewed(&op), KeyDistribution::Uniform);
    }

    #[test]
    fn bad_values_and_foreign_knobs_are_refused_unchanged() {
        let mut op = source();
        for (knob, value, says) in [
            (
                "rate",
                "-5",
                "rate: bad value '-5', expected a non-negative integer",
            ),
            ("record-size", "big", "expected a size such as 1024 or 1kb"),
            ("distribution", "zipf", "expected uniform or skewed"),
            ("hot-keys", "x", "hot-keys: bad value 'x'"),
            ("cost-per-record", "fast", "expected a duration"),
            ("parallelism", "2.5", "parallelism: bad value '2.5'"),
            (
                "window",
                "1s",
                "has no knob 'window'; its knobs are: parallelism,",
            ),
        ] {
            let e = set(&mut op, knob, value).unwrap_err();
            assert!(e.contains(says), "{knob}={value}: {e}");
        }
        let mut map = OperatorSpec::new("m", OperatorKind::Map);
        let e = set(&mut map, "rate", "5").unwrap_err();
        assert_eq!(
            e,
            "m (map) has no knob 'rate'; its knobs are: parallelism, max-parallelism, cost-per-record"
        );
    }
}
