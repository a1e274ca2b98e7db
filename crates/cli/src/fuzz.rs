//! `barrierlab fuzz-links`: the link decoder against N deterministic hostile inputs.
//!
//! The inputs come from the engine's `share::fuzz::LinkFuzzer` (the engine's tests run 20,000 of
//! the same); this command adds what the engine must not do itself: catching panics and timing.

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

use barrierlab_engine::share::decode;
use barrierlab_engine::share::fuzz::{outcome, LinkFuzzer, CATEGORIES};

#[derive(clap::Args, Debug)]
pub struct FuzzArgs {
    /// Number of inputs.
    #[arg(long, default_value_t = 100_000)]
    pub inputs: u64,
    /// Seed of the input generator: the same seed gives the same inputs.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// Failures worth showing in full; past these only the count grows.
const SHOWN: usize = 5;

pub fn run(args: FuzzArgs) -> Result<(), String> {
    let mut outcomes: BTreeMap<&str, u64> = BTreeMap::new();
    let mut categories: BTreeMap<&str, u64> = BTreeMap::new();
    let mut failures: Vec<String> = Vec::new();
    let mut failed = 0u64;
    // Panics are reported below with their input; the default hook would print each one again.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let start = Instant::now();
    for (index, input) in LinkFuzzer::new(args.seed)
        .take(args.inputs as usize)
        .enumerate()
    {
        *categories.entry(input.category).or_default() += 1;
        let failure = match catch_unwind(AssertUnwindSafe(|| decode(&input.text))) {
            Ok(result) => {
                *outcomes.entry(outcome(&result)).or_default() += 1;
                match result {
                    Err(e) if e.to_string().trim().is_empty() => {
                        Some(format!("{} with an empty message", e.kind()))
                    }
                    _ => None,
                }
            }
            Err(payload) => {
                *outcomes.entry("PANIC").or_default() += 1;
                Some(format!("panic: {}", panic_message(payload.as_ref())))
            }
        };
        if let Some(what) = failure {
            failed += 1;
            if failures.len() < SHOWN {
                let text: String = input.text.chars().take(200).collect();
                failures.push(format!(
                    "input #{index} ({}): {what}\n    {text:?}",
                    input.category
                ));
            }
        }
    }
    let elapsed = start.elapsed();
    std::panic::set_hook(hook);

    let total = args.inputs.max(1);
    println!(
        "fuzz-links: {} inputs, seed {}, {:.2} s, {:.0} inputs/s",
        args.inputs,
        args.seed,
        elapsed.as_secs_f64(),
        args.inputs as f64 / elapsed.as_secs_f64().max(1e-9)
    );
    print_counts(&outcomes, total, "input kind", CATEGORIES, &categories);
    if failed == 0 {
        println!("no panics, every error has a message");
        Ok(())
    } else {
        for f in &failures {
            eprintln!("{f}");
        }
        Err(format!(
            "{failed} of {} inputs failed (reproduce with --seed {})",
            args.inputs, args.seed
        ))
    }
}

/// The text a caught panic carries.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_default()
}

/// `by outcome:` with each outcome's share of `total`, then `by <kind>:` in the generator's order.
pub fn print_counts(
    outcomes: &BTreeMap<&str, u64>,
    total: u64,
    kind: &str,
    categories: &[(&str, u64)],
    counts: &BTreeMap<&str, u64>,
) {
    println!("by outcome:");
    for (name, count) in outcomes {
        println!(
            "  {name:<26} {count:>9}  {:>5.1}%",
            *count as f64 * 100.0 / total.max(1) as f64
        );
    }
    println!("by {kind}:");
    for (name, _) in categories {
        println!("  {name:<26} {:>9}", counts.get(name).copied().unwrap_or(0));
    }
}
