//! Durations, sizes and shares for the explanations, in integer arithmetic (the engine does no
//! float math), printed the way the playground prints them elsewhere.

use crate::types::{Micros, MICROS_PER_MS, MICROS_PER_SEC};

/// `850 µs`, `2.5 ms`, `2.41 s`; whole milliseconds or seconds without decimals (`5 s`).
pub fn duration(us: Micros) -> String {
    if us < MICROS_PER_MS {
        format!("{us} µs")
    } else if us < MICROS_PER_SEC {
        if us.is_multiple_of(MICROS_PER_MS) {
            return format!("{} ms", us / MICROS_PER_MS);
        }
        let tenths = (us + 50) / 100;
        format!("{}.{} ms", tenths / 10, tenths % 10)
    } else {
        if us.is_multiple_of(MICROS_PER_SEC) {
            return format!("{} s", us / MICROS_PER_SEC);
        }
        let hundredths = (us + 5_000) / 10_000;
        format!("{}.{:02} s", hundredths / 100, hundredths % 100)
    }
}

/// `512 B`, `5.6 KB`, `12.0 MB` (binary units, as Flink's UI).
pub fn bytes(b: u64) -> String {
    let tenths = |unit: u64| (u128::from(b) * 10 + u128::from(unit / 2)) / u128::from(unit);
    if b < 1 << 10 {
        format!("{b} B")
    } else if b < 1 << 20 {
        let t = tenths(1 << 10);
        format!("{}.{} KB", t / 10, t % 10)
    } else {
        let t = tenths(1 << 20);
        format!("{}.{} MB", t / 10, t % 10)
    }
}

/// `part` as a whole percentage of `total`; `under 1 %` rather than a misleading `0 %`.
pub fn share(part: Micros, total: Micros) -> String {
    if total == 0 {
        return "0 %".into();
    }
    let pct = u128::from(part) * 100 / u128::from(total);
    if pct == 0 && part > 0 {
        "under 1 %".into()
    } else {
        format!("{pct} %")
    }
}

/// `a`, `a and b`, `a, b and c`.
pub fn list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => (*one).to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_read_as_a_sentence() {
        assert_eq!(list(&[]), "");
        assert_eq!(list(&["a"]), "a");
        assert_eq!(list(&["a", "b"]), "a and b");
        assert_eq!(list(&["a", "b", "c"]), "a, b and c");
    }

    #[test]
    fn prints_like_the_playground() {
        assert_eq!(duration(120), "120 µs");
        assert_eq!(duration(2_450), "2.5 ms");
        assert_eq!(duration(2_000), "2 ms");
        assert_eq!(duration(2_406_123), "2.41 s");
        assert_eq!(duration(5_000_000), "5 s");
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(566_784), "553.5 KB");
        assert_eq!(bytes(12 << 20), "12.0 MB");
        assert_eq!(share(2_406, 5_000), "48 %");
        assert_eq!(share(1, 5_000), "under 1 %");
        assert_eq!(share(0, 0), "0 %");
    }
}
