//! How fast the simulation runs relative to the wall clock.

/// Simulated speed relative to wall-clock time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum Speed {
    Tenth,
    Half,
    /// The page opens at 1×.
    #[default]
    One,
    Two,
    Five,
    Ten,
    Max,
}

impl Speed {
    pub const ALL: [Speed; 7] = [
        Speed::Tenth,
        Speed::Half,
        Speed::One,
        Speed::Two,
        Speed::Five,
        Speed::Ten,
        Speed::Max,
    ];

    /// Simulated microseconds per wall-clock millisecond; `None` for "as fast as possible".
    pub fn micros_per_ms(self) -> Option<f64> {
        Some(match self {
            Speed::Tenth => 100.0,
            Speed::Half => 500.0,
            Speed::One => 1_000.0,
            Speed::Two => 2_000.0,
            Speed::Five => 5_000.0,
            Speed::Ten => 10_000.0,
            Speed::Max => return None,
        })
    }

    pub fn label(self) -> &'static str {
        match self {
            Speed::Tenth => "0.1×",
            Speed::Half => "0.5×",
            Speed::One => "1×",
            Speed::Two => "2×",
            Speed::Five => "5×",
            Speed::Ten => "10×",
            Speed::Max => "max",
        }
    }

    /// A stable token for `<select>` values and tests.
    pub fn key(self) -> &'static str {
        match self {
            Speed::Tenth => "0.1",
            Speed::Half => "0.5",
            Speed::One => "1",
            Speed::Two => "2",
            Speed::Five => "5",
            Speed::Ten => "10",
            Speed::Max => "max",
        }
    }

    pub fn from_key(key: &str) -> Option<Speed> {
        Speed::ALL.into_iter().find(|s| s.key() == key)
    }
}
