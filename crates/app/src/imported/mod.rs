//! A real Flink job opened in the playground (issue #15): a bundle `barrierlab collect` wrote,
//! read by the engine (`import::read_bundle`), mapped here into what the components under
//! `components/imported/` draw, and kept in this browser (`store`). Nothing of it ever goes into
//! a share link: links carry simulated scenarios only (`share.rs` does not see these routes).

pub mod sim_runs;
pub mod simulate;
pub mod store;
pub mod timeline;
pub mod view;

#[cfg(test)]
mod simulate_tests;
#[cfg(test)]
mod tests;

use barrierlab_engine::import::{read_bundle, JobBundle};

/// The page's fragment for the imported-job views: `#import` (open a bundle, or pick a stored
/// one) or `#job=<stored key>` (a stored bundle, opened directly).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    Import,
    Job(String),
}

/// The route a fragment names, if it names one.
pub fn route(hash: &str) -> Option<Route> {
    let body = hash.trim().trim_start_matches('#');
    if body == "import" {
        return Some(Route::Import);
    }
    let key = body.strip_prefix("job=")?;
    // Keys are ours (`store::key`): hex, digits and `-`. Anything else opens the picker.
    Some(
        if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
            Route::Import
        } else {
            Route::Job(key.to_string())
        },
    )
}

/// The fragment for a stored bundle.
pub fn fragment(key: &str) -> String {
    format!("#job={key}")
}

/// Reads a bundle, or says, for the page, why it does not open (the engine's message says what
/// was found and what to do).
pub fn open_text(text: &str) -> Result<JobBundle, String> {
    read_bundle(text).map_err(|e| format!("This does not open: {e}."))
}
