//! Scenarios in URLs: the fragment codec behind the playground's share links (docs/sharing.md).
//!
//! A link is `#v<N>.<data>[&option=value]…`:
//! - `v<N>.`: the link format version. Each version has a file of its own (`v1.rs`) that never
//!   changes once released, so every link ever shared keeps loading; [`encode`] always writes
//!   [`LATEST_VERSION`], [`decode`] reads every version up to it.
//! - `<data>`: the scenario, in the version's encoding (v1: base64url of raw DEFLATE of its compact
//!   JSON).
//! - options: how the playground opens it ([`LinkOptions`]), readable and editable by hand.
//!
//! Decoding is the one place where bytes from strangers enter the engine, so it never panics, caps
//! what it decompresses, validates the scenario as a run would, and says precisely what is wrong
//! ([`LinkError`]). `barrierlab fuzz-links` feeds it a million hostile inputs.

mod error;
pub mod fuzz;
mod options;
mod v1;

#[cfg(test)]
mod tests;

pub use error::LinkError;
pub use options::{LinkOptions, KEYS as OPTION_KEYS, MAX_UNTIL};
pub use v1::{decode_v1, encode_v1, MAX_JSON_BYTES};

use crate::scenario::Scenario;

/// The version [`encode`] writes, and the newest [`decode`] reads.
pub const LATEST_VERSION: u32 = 1;

/// A decoded link.
#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    /// The format version the link was written in (older links may deserve a "re-share" hint).
    pub version: u32,
    /// The scenario, already validated: `Simulation::new` accepts it unless it is over the cost
    /// budget (`scenario::cost`), which the playground asks the user about.
    pub scenario: Scenario,
    pub options: LinkOptions,
}

/// The fragment for a scenario, `#v1.<data>[&option=value]…`, to append to the playground's URL.
///
/// Writes what it is given: run [`check_scenario`] and [`LinkOptions::check`] first when the
/// scenario or options come from a user, or the link may not load.
pub fn encode(scenario: &Scenario, options: &LinkOptions) -> String {
    format!(
        "#v{LATEST_VERSION}.{}{}",
        encode_v1(scenario),
        options.to_suffix()
    )
}

/// Decodes a link: the fragment (`#v1.…`) or a whole URL ending in one. Surrounding whitespace is
/// ignored (pasted links often carry a newline); anything else that is wrong is an error.
pub fn decode(link: &str) -> Result<Link, LinkError> {
    let link = link.trim();
    let (_, fragment) = link.split_once('#').ok_or(LinkError::MissingFragment)?;
    let (head, options) = fragment.split_once('&').unwrap_or((fragment, ""));
    let (version, data) = split_version(head)?;
    // The scenario first: when both are broken, a broken scenario is the news.
    let scenario = match version {
        1 => decode_v1(data)?,
        // A v2 goes here, next to v1, never instead of it. `split_version` returns only known
        // versions; this arm keeps the match total without a panic should the two disagree.
        other => {
            return Err(LinkError::UnknownVersion {
                version: other.to_string(),
            })
        }
    };
    Ok(Link {
        version,
        scenario,
        options: LinkOptions::parse(options)?,
    })
}

/// `v1.<data>` into `(1, "<data>")`.
fn split_version(head: &str) -> Result<(u32, &str), LinkError> {
    let prefix_error = || LinkError::MissingPrefix {
        found: error::shorten(head),
    };
    let rest = head.strip_prefix('v').ok_or_else(prefix_error)?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || rest.as_bytes().get(digits) != Some(&b'.') {
        return Err(prefix_error());
    }
    let (number, data) = (&rest[..digits], &rest[digits + 1..]);
    match number.parse::<u32>() {
        // `v01` is refused: one spelling per version keeps links comparable as strings.
        Ok(n) if (1..=LATEST_VERSION).contains(&n) && !number.starts_with('0') => Ok((n, data)),
        _ => Err(LinkError::UnknownVersion {
            version: error::shorten(number),
        }),
    }
}

/// Parses scenario JSON, keeping serde's line and column as fields.
pub(crate) fn parse_scenario(text: &str) -> Result<Scenario, LinkError> {
    Scenario::from_json(text).map_err(|message| {
        // `from_json` folds the position into its message; parse again (only on this error path)
        // to get it as numbers. A second parse that succeeds means the version check failed,
        // which has no position.
        let (line, column) = match serde_json::from_str::<Scenario>(text) {
            Err(e) if e.line() > 0 => (e.line(), e.column()),
            _ => (0, 0),
        };
        LinkError::Json {
            message,
            line,
            column,
        }
    })
}

/// Everything `Simulation::new` would refuse, as one error listing each problem: validation, and
/// faults naming operators or subtasks that do not exist (which validation leaves to the run).
pub fn check_scenario(scenario: &Scenario) -> Result<(), LinkError> {
    let mut errors: Vec<String> = match scenario.validate() {
        Ok(_) => Vec::new(),
        Err(errs) => errs.iter().map(|e| e.to_string()).collect(),
    };
    // Resolving faults assumes a valid topology (an operator of parallelism 0 has no subtasks to
    // name), so it runs only when validation passed.
    if errors.is_empty() {
        for fault in &scenario.faults {
            if let Err(e) = fault.resolve(
                |name| scenario.operator_index(name),
                |op| scenario.parallelism(op),
            ) {
                errors.push(e);
            }
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(LinkError::InvalidScenario { errors })
    }
}
