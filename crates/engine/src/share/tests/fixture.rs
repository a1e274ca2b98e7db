//! The compatibility promise: links written by this version load in every later version.
//!
//! `tests/fixtures/links/seed-demo.v1.txt` is a v1 link as the CLI printed it when v1 shipped.
//! Never regenerate it: if this test fails, the change broke every v1 link in the wild.

use crate::scenario::Scenario;
use crate::share::{decode, LinkOptions};
use crate::sim::Simulation;

const LINK: &str = include_str!("../../../../../tests/fixtures/links/seed-demo.v1.txt");
/// The scenario the link held when it was written.
const SCENARIO: &str = include_str!("../../../../../tests/fixtures/links/seed-demo.v1.json");

#[test]
fn the_v1_fixture_keeps_decoding() {
    let link = decode(LINK).unwrap_or_else(|e| panic!("the stored v1 link no longer loads: {e}"));
    assert_eq!(link.version, 1);
    assert_eq!(link.scenario, Scenario::from_json(SCENARIO).unwrap());
    assert_eq!(
        link.options,
        LinkOptions {
            until: Some(12_000_000),
            autoplay: Some(true),
            ..Default::default()
        }
    );
    let mut sim = Simulation::new(link.scenario).unwrap();
    sim.run_until(link.options.until.unwrap());
    assert!(!sim.checkpoint_rows().is_empty());
}
