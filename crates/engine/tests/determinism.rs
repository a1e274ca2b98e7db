//! Same scenario + same seed = the same run, however it is stepped.

use barrierlab_engine::scenario::{preset, PRESETS};
use barrierlab_engine::sim::Simulation;
use barrierlab_engine::types::{MICROS_PER_MS, MICROS_PER_SEC};

fn sim(name: &str, seed: u64) -> Simulation {
    let mut s = preset(name).unwrap();
    s.seed = seed;
    Simulation::new(s).unwrap()
}

#[test]
fn same_seed_same_fingerprint_and_report() {
    for (name, _) in PRESETS {
        let mut a = sim(name, 3);
        let mut b = sim(name, 3);
        a.run_until(12 * MICROS_PER_SEC);
        b.run_until(12 * MICROS_PER_SEC);
        assert_eq!(a.fingerprint(), b.fingerprint(), "{name}");
        assert_eq!(a.json_report(), b.json_report(), "{name}");
    }
}

#[test]
fn stepping_granularity_does_not_change_the_run() {
    let mut whole = sim("seed-unaligned", 5);
    whole.run_until(11 * MICROS_PER_SEC);
    let mut sliced = sim("seed-unaligned", 5);
    let mut t = 0;
    while t < 11 * MICROS_PER_SEC {
        t = (t + 37 * MICROS_PER_MS).min(11 * MICROS_PER_SEC);
        sliced.run_until(t);
    }
    assert_eq!(whole.fingerprint(), sliced.fingerprint());
    assert_eq!(whole.trace.total(), sliced.trace.total());
}

#[test]
fn a_cloned_simulation_continues_identically() {
    let mut original = sim("seed-backpressure", 9);
    original.run_until(7 * MICROS_PER_SEC);
    let mut copy = original.clone();
    original.run_until(16 * MICROS_PER_SEC);
    copy.run_until(16 * MICROS_PER_SEC);
    assert_eq!(original.fingerprint(), copy.fingerprint());
}

#[test]
fn different_seeds_give_different_runs() {
    let mut a = sim("seed-demo", 1);
    let mut b = sim("seed-demo", 2);
    a.run_until(6 * MICROS_PER_SEC);
    b.run_until(6 * MICROS_PER_SEC);
    assert_ne!(a.fingerprint(), b.fingerprint());
}
