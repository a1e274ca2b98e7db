//! Why a link did not load. Every variant's message says what is wrong and, where a person can do
//! something about it, what: links are pasted by hand, cut off by chat apps and mangled by mail
//! clients, so "invalid link" alone would leave the reader guessing.

use std::fmt;

/// A link that did not decode. `Display` gives the message for a person; [`LinkError::kind`] a
/// stable short name (for counting outcomes in the fuzzer and for tests).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkError {
    /// No `#` at all: not a link to a scenario (or only the site's address was copied).
    MissingFragment,
    /// A `#` but no `v<N>.` version prefix after it.
    MissingPrefix { found: String },
    /// A version prefix this build does not read (`v9.` from a newer Barrier Lab, or nonsense).
    UnknownVersion { version: String },
    /// `v1.` with nothing after it.
    EmptyData,
    /// The data is not base64url; `position` counts characters into the data (after `v1.`).
    Base64 { position: usize, problem: String },
    /// The compressed data ends before the compressed stream does: the link was cut off.
    Truncated,
    /// The bytes are not a DEFLATE stream.
    NotDeflate,
    /// The data expands past `limit` bytes: no real scenario is that large (a zip bomb, or garbage).
    TooLarge { limit: usize },
    /// The decompressed bytes are not UTF-8 text; `position` is where the first bad byte is.
    NotUtf8 { position: usize },
    /// The text is not a scenario: JSON syntax, an unknown field, a missing one, a wrong type or a
    /// future scenario version. `line`/`column` are 1-based, 0 when the problem has no position.
    Json {
        message: String,
        line: usize,
        column: usize,
    },
    /// A well-formed scenario that does not pass validation (each message names what it concerns).
    InvalidScenario { errors: Vec<String> },
    /// An option after `&` that this build does not know.
    UnknownOption {
        key: String,
        suggestion: Option<&'static str>,
    },
    /// A known option with a value it cannot take (or given twice).
    BadOption {
        key: String,
        value: String,
        problem: String,
    },
}

/// Long garbage (a whole pasted document as an option name) would drown the message.
pub(super) fn shorten(text: &str) -> String {
    const MAX: usize = 40;
    if text.chars().count() <= MAX {
        text.to_string()
    } else {
        let head: String = text.chars().take(MAX).collect();
        format!("{head}…")
    }
}

/// A version number written the one way `encode` writes them, above the newest this build reads
/// (however many digits: a far-future version is still a future version, not garbage).
fn is_newer(version: &str) -> bool {
    let digits = !version.is_empty() && version.bytes().all(|b| b.is_ascii_digit());
    digits
        && !version.starts_with('0')
        && version
            .parse::<u32>()
            .map_or(true, |n| n > super::LATEST_VERSION)
}

/// "v1", or "v1 to v3" once there are more.
fn readable_versions() -> String {
    match super::LATEST_VERSION {
        1 => "v1".to_string(),
        n => format!("v1 to v{n}"),
    }
}

impl LinkError {
    /// A stable, kebab-case name of the variant.
    pub fn kind(&self) -> &'static str {
        match self {
            LinkError::MissingFragment => "missing-fragment",
            LinkError::MissingPrefix { .. } => "missing-prefix",
            LinkError::UnknownVersion { .. } => "unknown-version",
            LinkError::EmptyData => "empty-data",
            LinkError::Base64 { .. } => "bad-base64",
            LinkError::Truncated => "truncated",
            LinkError::NotDeflate => "not-deflate",
            LinkError::TooLarge { .. } => "too-large",
            LinkError::NotUtf8 { .. } => "not-utf8",
            LinkError::Json { .. } => "bad-json",
            LinkError::InvalidScenario { .. } => "invalid-scenario",
            LinkError::UnknownOption { .. } => "unknown-option",
            LinkError::BadOption { .. } => "bad-option",
        }
    }
}

impl fmt::Display for LinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LinkError::MissingFragment => write!(
                f,
                "not a scenario link: there is no '#' (a link looks like /#v1.<data>; copy all of it)"
            ),
            LinkError::MissingPrefix { found } => write!(
                f,
                "not a scenario link: after '#' comes '{found}', not a version prefix such as 'v1.'"
            ),
            LinkError::UnknownVersion { version } => {
                if is_newer(version) {
                    write!(
                        f,
                        "v{version} links need a newer Barrier Lab (this build reads {})",
                        readable_versions()
                    )
                } else {
                    write!(
                        f,
                        "'v{version}' is not a link version (this build reads {})",
                        readable_versions()
                    )
                }
            }
            LinkError::EmptyData => write!(
                f,
                "the link has no scenario data after its version prefix (was it cut off?)"
            ),
            LinkError::Base64 { position, problem } => write!(
                f,
                "the link's data is not base64url at position {position} of the data: {problem} \
                 (was the link changed or cut off when copied?)"
            ),
            LinkError::Truncated => write!(
                f,
                "the link's compressed data ends early: the link was cut off when copied"
            ),
            LinkError::NotDeflate => write!(
                f,
                "the link's data is not DEFLATE-compressed data (was the link changed when copied?)"
            ),
            LinkError::TooLarge { limit } => write!(
                f,
                "the link's data expands to more than {} KiB, more than any scenario needs; not loaded",
                limit / 1024
            ),
            LinkError::NotUtf8 { position } => write!(
                f,
                "the link's data decompresses to bytes that are not UTF-8 text (first bad byte at {position})"
            ),
            LinkError::Json {
                message,
                line,
                column,
            } => {
                if *line > 0 {
                    write!(
                        f,
                        "the link's scenario is not valid scenario JSON at line {line}, column {column}: {message}"
                    )
                } else {
                    write!(f, "the link's scenario cannot be read: {message}")
                }
            }
            LinkError::InvalidScenario { errors } => {
                write!(f, "the link's scenario is not valid:")?;
                for e in errors {
                    write!(f, "\n  - {e}")?;
                }
                Ok(())
            }
            LinkError::UnknownOption { key, suggestion } => {
                write!(f, "unknown link option '{}'", shorten(key))?;
                if let Some(s) = suggestion {
                    write!(f, " (did you mean '{s}'?)")?;
                }
                write!(f, "; known options: {}", super::options::KEYS.join(", "))
            }
            LinkError::BadOption {
                key,
                value,
                problem,
            } => write!(
                f,
                "link option {key}={}: {problem}",
                shorten(value)
            ),
        }
    }
}

impl std::error::Error for LinkError {}
