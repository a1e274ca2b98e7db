//! Link format v1: `v1.<base64url, no padding, of raw DEFLATE of the compact scenario JSON>`.
//!
//! Frozen: once a v1 link is out in a blog post it must load for as long as Barrier Lab exists
//! (`tests/fixtures/links/` holds one that a test decodes). A change of encoding becomes v2 in a file
//! of its own, and this one stays as it is.

use base64::alphabet::URL_SAFE;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::DecodePaddingMode;
use base64::{DecodeError, Engine};
use miniz_oxide::deflate::compress_to_vec;
use miniz_oxide::inflate::{decompress_to_vec_with_limit, TINFLStatus};

use super::error::LinkError;
use crate::scenario::Scenario;

/// Largest decompressed scenario accepted. The seed's scenarios are under 1 KiB; a hand-built
/// 500-operator job stays well below this. Anything larger is garbage or a zip bomb, and the
/// decompressor stops at this size instead of filling the browser tab's memory.
pub const MAX_JSON_BYTES: usize = 1 << 20;

/// miniz's best (and slowest) level: scenarios are small, and every saved byte is a shorter link.
const LEVEL: u8 = 10;

/// URL-safe alphabet (`-` and `_`, no `+` or `/`), no `=` written (it would need escaping in some
/// contexts), but `=` padding accepted on input in case a tool re-pads the data.
const BASE64: GeneralPurpose = GeneralPurpose::new(
    &URL_SAFE,
    GeneralPurposeConfig::new()
        .with_encode_padding(false)
        .with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// The data part of a v1 link (without `v1.`).
pub fn encode_v1(scenario: &Scenario) -> String {
    BASE64.encode(compress_to_vec(scenario.to_json().as_bytes(), LEVEL))
}

/// The scenario in the data part of a v1 link, parsed and validated.
pub fn decode_v1(data: &str) -> Result<Scenario, LinkError> {
    if data.is_empty() {
        return Err(LinkError::EmptyData);
    }
    let compressed = BASE64.decode(data).map_err(|e| base64_error(data, e))?;
    let json =
        decompress_to_vec_with_limit(&compressed, MAX_JSON_BYTES).map_err(|e| match e.status {
            TINFLStatus::HasMoreOutput => LinkError::TooLarge {
                limit: MAX_JSON_BYTES,
            },
            TINFLStatus::FailedCannotMakeProgress | TINFLStatus::NeedsMoreInput => {
                LinkError::Truncated
            }
            _ => LinkError::NotDeflate,
        })?;
    let text = String::from_utf8(json).map_err(|e| LinkError::NotUtf8 {
        position: e.utf8_error().valid_up_to(),
    })?;
    let scenario = super::parse_scenario(&text)?;
    super::check_scenario(&scenario)?;
    Ok(scenario)
}

fn base64_error(data: &str, e: DecodeError) -> LinkError {
    let (byte, problem) = match e {
        DecodeError::InvalidByte(i, _) => (i, "is not a base64url character"),
        DecodeError::InvalidLastSymbol(i, _) => (i, "cannot end the data"),
        DecodeError::InvalidLength(n) => {
            return LinkError::Base64 {
                position: data.chars().count(),
                problem: format!("{n} characters cannot be base64 (one too many or too few)"),
            }
        }
        DecodeError::InvalidPadding => {
            return LinkError::Base64 {
                position: data.chars().count(),
                problem: "misplaced '=' padding".to_string(),
            }
        }
    };
    // base64 counts bytes and may point inside a multi-byte character; people count characters.
    let start = (0..=byte.min(data.len()))
        .rev()
        .find(|&i| data.is_char_boundary(i))
        .unwrap_or(0);
    let shown = data[start..]
        .chars()
        .next()
        .map_or_else(|| "the end".to_string(), |c| format!("{c:?}"));
    LinkError::Base64 {
        position: data[..start].chars().count(),
        problem: format!("{shown} {problem}"),
    }
}
