//! The options after the scenario data: `…&until=12s&autoplay=1&speed=2&theme=dark`.
//!
//! They say how the playground opens the scenario, not what the scenario is, so they stay readable
//! in the link (a teacher edits `until=` by hand) instead of going into the compressed JSON. Values
//! are restricted to characters that need no percent-encoding, which is why `encode` can write them
//! verbatim and `decode` can reject anything else with a precise message.

use serde::{Deserialize, Serialize};

use super::error::LinkError;
use crate::scenario::edit_distance;
use crate::types::{parse_duration, Micros, MICROS_PER_MS, MICROS_PER_SEC};

/// Every option name, in the order `encode` writes them.
pub const KEYS: &[&str] = &[
    "until",
    "autoplay",
    "speed",
    "theme",
    "panel",
    "checkpoint",
    "embed",
];

/// The furthest into its run a link opens: `until` beyond this stops here, with a message, as a
/// tutorial step that never meets its condition stops 2 min in. Links load whatever their
/// `until` (every link ever shared keeps loading), but the playground catches up in slices of
/// 4 ms every 40 ms to stay responsive, and 10 simulated minutes already take it 2 s (seed-demo)
/// to 12 s (seed-2pc, the slowest preset).
pub const MAX_UNTIL: Micros = 10 * 60 * MICROS_PER_SEC;

/// How the playground opens a shared scenario. Everything unset means "the playground's default".
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct LinkOptions {
    /// Simulated time to run to on load, in microseconds (`until=12s` in the link).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub until: Option<Micros>,
    /// Whether to start playing on load.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub autoplay: Option<bool>,
    /// Playback speed as written (`2`, `0.5`): a display setting, kept as text so no float crosses
    /// into the engine.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub speed: Option<String>,
    /// UI theme name (`dark`, `light`); the app decides which names it knows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub theme: Option<String>,
    /// Panel to open (`timeline`, …); the app decides which names it knows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub panel: Option<String>,
    /// Checkpoint to select on load.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<u64>,
    /// The embedded (chrome-less) view for tutorials.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub embed: bool,
}

/// `12s` rather than `12000000us`: the shortest exact unit, so hand-edited links stay readable.
fn format_until(us: Micros) -> String {
    if us.is_multiple_of(MICROS_PER_SEC) {
        format!("{}s", us / MICROS_PER_SEC)
    } else if us.is_multiple_of(MICROS_PER_MS) {
        format!("{}ms", us / MICROS_PER_MS)
    } else {
        format!("{us}us")
    }
}

impl LinkOptions {
    /// The set options as `(key, value)` in [`KEYS`] order.
    pub fn pairs(&self) -> Vec<(&'static str, String)> {
        let mut pairs = Vec::new();
        if let Some(us) = self.until {
            pairs.push(("until", format_until(us)));
        }
        if let Some(on) = self.autoplay {
            pairs.push(("autoplay", if on { "1" } else { "0" }.to_string()));
        }
        if let Some(speed) = &self.speed {
            pairs.push(("speed", speed.clone()));
        }
        if let Some(theme) = &self.theme {
            pairs.push(("theme", theme.clone()));
        }
        if let Some(panel) = &self.panel {
            pairs.push(("panel", panel.clone()));
        }
        if let Some(id) = self.checkpoint {
            pairs.push(("checkpoint", id.to_string()));
        }
        if self.embed {
            pairs.push(("embed", "1".to_string()));
        }
        pairs
    }

    /// `&key=value…` as appended to the data, or "" when nothing is set.
    pub fn to_suffix(&self) -> String {
        self.pairs()
            .into_iter()
            .map(|(k, v)| format!("&{k}={v}"))
            .collect()
    }

    /// Parses the options part of a link (what follows the data, without its first `&`). Empty
    /// segments are skipped because messengers like to append a lone `&`; a bare `embed` or
    /// `autoplay` means `=1`, as people write flags.
    pub fn parse(text: &str) -> Result<LinkOptions, LinkError> {
        let mut options = LinkOptions::default();
        let mut seen: Vec<&str> = Vec::new();
        for segment in text.split('&').filter(|s| !s.is_empty()) {
            let (key, value) = match segment.split_once('=') {
                Some((k, v)) => (k, Some(v)),
                None => (segment, None),
            };
            let Some(known) = KEYS.iter().copied().find(|k| *k == key) else {
                return Err(LinkError::UnknownOption {
                    key: key.to_string(),
                    suggestion: suggest(key),
                });
            };
            if seen.contains(&known) {
                return Err(bad(known, value.unwrap_or(""), "given twice"));
            }
            seen.push(known);
            options.set(known, value)?;
        }
        Ok(options)
    }

    /// Checks that every set option can travel in a link: `encode` writes values verbatim, so a
    /// theme with a space or an `&` in it would make a link that does not load.
    pub fn check(&self) -> Result<(), LinkError> {
        for (key, value) in self.pairs() {
            LinkOptions::default().set(key, Some(&value))?;
        }
        Ok(())
    }

    fn set(&mut self, key: &'static str, value: Option<&str>) -> Result<(), LinkError> {
        let flag = |value: Option<&str>| match value {
            None | Some("1") | Some("true") => Ok(true),
            Some("0") | Some("false") => Ok(false),
            Some(v) => Err(bad(key, v, "write 1 or 0")),
        };
        if matches!(key, "autoplay" | "embed") {
            let on = flag(value)?;
            if key == "autoplay" {
                self.autoplay = Some(on);
            } else {
                self.embed = on;
            }
            return Ok(());
        }
        let Some(value) = value else {
            return Err(bad(key, "", "needs a value, e.g. until=12s"));
        };
        match key {
            "until" => self.until = Some(parse_until(value)?),
            "speed" => self.speed = Some(parse_speed(value)?),
            "theme" => self.theme = Some(parse_name(key, value)?),
            "panel" => self.panel = Some(parse_name(key, value)?),
            // Only `checkpoint` is left: KEYS holds nothing else.
            _ => self.checkpoint = Some(parse_checkpoint(value)?),
        }
        Ok(())
    }
}

fn bad(key: &str, value: &str, problem: &str) -> LinkError {
    LinkError::BadOption {
        key: key.to_string(),
        value: value.to_string(),
        problem: problem.to_string(),
    }
}

/// The known option within two edits, for typos like `autplay`.
fn suggest(key: &str) -> Option<&'static str> {
    if key.len() > 40 {
        // Garbage, not a typo; and edit distance is quadratic.
        return None;
    }
    KEYS.iter()
        .map(|k| (edit_distance(key, k), *k))
        .min()
        .filter(|(d, _)| *d <= 2)
        .map(|(_, k)| k)
}

/// A Flink duration with a unit: a bare `12` would be milliseconds in Flink but seconds to most
/// readers of a URL, so it is refused rather than guessed.
fn parse_until(value: &str) -> Result<Micros, LinkError> {
    if value.is_empty() || value.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad(
            "until",
            value,
            "give a time with a unit, e.g. 12s or 1500ms",
        ));
    }
    if !value.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return Err(bad(
            "until",
            value,
            "not a duration (try 12s, 1500ms, 2min)",
        ));
    }
    parse_duration(value).map_err(|e| bad("until", value, &e))
}

/// `2`, `0.5`, `1.25`: digits with at most one point, not zero.
fn parse_speed(value: &str) -> Result<String, LinkError> {
    let (whole, fraction) = value.split_once('.').unwrap_or((value, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let shaped = !whole.is_empty()
        && whole.len() <= 4
        && fraction.len() <= 3
        && digits(whole)
        && digits(fraction)
        && !(value.contains('.') && fraction.is_empty());
    if !shaped {
        return Err(bad("speed", value, "write a number such as 2 or 0.5"));
    }
    if value.bytes().all(|b| b == b'0' || b == b'.') {
        return Err(bad("speed", value, "must be more than 0"));
    }
    Ok(value.to_string())
}

/// Lower-case words with dashes, up to 32 characters: every theme or panel name the app can have.
fn parse_name(key: &str, value: &str) -> Result<String, LinkError> {
    let ok = !value.is_empty()
        && value.len() <= 32
        && !value.starts_with('-')
        && value
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    if ok {
        Ok(value.to_string())
    } else {
        Err(bad(
            key,
            value,
            "write a name of lower-case letters, digits and dashes (at most 32)",
        ))
    }
}

fn parse_checkpoint(value: &str) -> Result<u64, LinkError> {
    // `u64::from_str` also takes a leading `+`, which no link of ours contains.
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad("checkpoint", value, "write a checkpoint id such as 3"));
    }
    match value.parse::<u64>() {
        Ok(0) => Err(bad("checkpoint", value, "checkpoint ids start at 1")),
        Ok(id) => Ok(id),
        Err(_) => Err(bad("checkpoint", value, "too large for a checkpoint id")),
    }
}
