//! The fast subset of `barrierlab fuzz-links`: the same generator, 20,000 inputs.

use std::collections::BTreeMap;

use crate::share::decode;
use crate::share::fuzz::{outcome, LinkFuzzer, CATEGORIES};

#[test]
fn the_decoder_survives_20_000_hostile_inputs() {
    let mut outcomes: BTreeMap<&str, u64> = BTreeMap::new();
    let mut categories: BTreeMap<&str, u64> = BTreeMap::new();
    for input in LinkFuzzer::new(1).take(20_000) {
        let result = decode(&input.text);
        if let Err(e) = &result {
            assert!(!e.to_string().is_empty(), "{}: {e:?}", input.category);
        }
        *outcomes.entry(outcome(&result)).or_default() += 1;
        *categories.entry(input.category).or_default() += 1;
    }
    println!("{outcomes:?}\n{categories:?}");
    assert_eq!(categories.len(), CATEGORIES.len(), "{categories:?}");
    // The generator reaches every stage of the decoder, including a full success.
    for kind in [
        "ok",
        "bad-base64",
        "not-deflate",
        "too-large",
        "bad-json",
        "invalid-scenario",
        "bad-option",
    ] {
        assert!(
            outcomes.get(kind).copied().unwrap_or(0) > 0,
            "{kind}: {outcomes:?}"
        );
    }
}

#[test]
fn the_generator_is_deterministic() {
    let a: Vec<String> = LinkFuzzer::new(7).take(300).map(|i| i.text).collect();
    let b: Vec<String> = LinkFuzzer::new(7).take(300).map(|i| i.text).collect();
    let c: Vec<String> = LinkFuzzer::new(8).take(300).map(|i| i.text).collect();
    assert_eq!(a, b);
    assert_ne!(a, c);
}
