//! A real Flink job's checkpoint statistics, brought in: the bundle `barrierlab collect` writes
//! from a live Flink 2.x REST API (docs/collect.md), read into typed structs.
//!
//! `explain` says why each of the bundle's checkpoints took as long as it did (the critical
//! subtask, the dominant phase, the evidence), from the bundle alone.
//!
//! `derive` turns a bundle into a scenario the simulator runs ("Simulate this job"), with notes
//! on what the bundle does not say.
//!
//! `rest` holds Flink's REST bodies as types for input (tolerant: unknown fields are ignored,
//! fields Flink may leave out have defaults); `bundle` the bundle's header, the reader
//! ([`read_bundle`]) and its errors. Pure: text in, values out; no I/O, so the playground reads
//! the same bundles in the browser.

pub mod bundle;
pub mod derive;
mod derive_config;
pub mod explain;
pub mod rest;
pub mod words;

#[cfg(test)]
mod explain_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_derive;

pub use bundle::{
    read_bundle, short_request, BundleError, BundleHeader, FailedRequest, JobBundle,
    SkippedRequest, BUNDLE_KEY, FORMAT_VERSION,
};
