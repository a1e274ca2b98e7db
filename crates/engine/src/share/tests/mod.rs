//! Tests of the link codec: round trips, every error, the frozen v1 fixture, and a fuzz subset.

mod errors;
mod fixture;
mod fuzz;
mod round_trip;

use base64::Engine;
use miniz_oxide::deflate::compress_to_vec;

/// A v1 link around arbitrary bytes, compressed: how tests reach the stages after base64.
fn link_of_deflated(bytes: &[u8]) -> String {
    link_of_raw(&compress_to_vec(bytes, 6))
}

/// A v1 link around arbitrary bytes, not compressed.
fn link_of_raw(bytes: &[u8]) -> String {
    format!(
        "#v1.{}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
    )
}
