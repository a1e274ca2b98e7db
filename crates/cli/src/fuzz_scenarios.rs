//! `barrierlab fuzz-scenarios`: mutated presets (the engine's `scenario::fuzz`) through validation,
//! the cost estimate and a short run. Each case must be refused with a message, or simulate
//! `--seconds` without exceeding its own estimate. Fails on a panic, an overrun, or a refusal
//! without a message.

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::time::Instant;

use barrierlab_engine::scenario::fuzz::{ScenarioCase, ScenarioFuzzer, CATEGORIES};
use barrierlab_engine::scenario::{estimate, CostEstimate};
use barrierlab_engine::sim::Simulation;
use barrierlab_engine::types::{parse_duration, MICROS_PER_SEC};

use crate::fuzz::{panic_message, print_counts};

#[derive(clap::Args, Debug)]
pub struct FuzzScenariosArgs {
    /// Number of cases.
    #[arg(long, default_value_t = 20_000)]
    pub inputs: u64,
    /// Seed of the case generator: the same seed gives the same cases.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Simulated time each accepted case runs (`2s`, `500ms`).
    #[arg(long, default_value = "2s")]
    pub seconds: String,
    /// Also write the costliest accepted cases and the refused-over-budget ones here, as scenario
    /// JSON files (the e2e test loads them in the playground).
    #[arg(long)]
    pub corpus: Option<PathBuf>,
    /// Print only case number N (its JSON and --set lines), to reproduce a failure.
    #[arg(long)]
    pub show: Option<u64>,
}

/// What happened to one case.
enum Outcome {
    Refused(&'static str, String),
    Ran { estimate: CostEstimate, work: u64 },
}

/// Failures shown in full; past these only the count grows.
const SHOWN: usize = 5;
/// Corpus files per kind.
const CORPUS: usize = 8;

fn judge(case: &ScenarioCase, micros: u64) -> Result<Outcome, String> {
    let scenario = match case.scenario() {
        Ok(s) => s,
        Err(m) => return Ok(Outcome::Refused("refused: parse or --set", m)),
    };
    let graph = match scenario.job_graph() {
        Ok(g) => g,
        Err(m) => return Ok(Outcome::Refused("refused: validation", m)),
    };
    let est = estimate(&scenario, &graph);
    if let Some(m) = est.run_over_budget(micros) {
        return Ok(Outcome::Refused("refused: over budget", m));
    }
    let mut sim = match Simulation::new(scenario) {
        Ok(sim) => sim,
        Err(m) => return Ok(Outcome::Refused("refused: fault script", m)),
    };
    sim.run_until(micros);
    let hops: u64 = sim.tasks.iter().map(|t| t.records_in).sum();
    let work = hops + sim.events;
    if work > est.work_for(micros) {
        return Err(format!(
            "overrun: {work} record-hops + events in {} s, estimated at most {} ({est})",
            micros / MICROS_PER_SEC,
            est.work_for(micros)
        ));
    }
    Ok(Outcome::Ran {
        estimate: est,
        work,
    })
}

pub fn run(args: FuzzScenariosArgs) -> Result<(), String> {
    let micros = parse_duration(&args.seconds).map_err(|e| format!("--seconds: {e}"))?;
    if let Some(n) = args.show {
        let case = ScenarioFuzzer::new(args.seed)
            .nth(n as usize)
            .ok_or("no such case")?;
        println!("{}", case.json);
        for s in &case.sets {
            println!("--set {s}");
        }
        return Ok(());
    }
    let mut outcomes: BTreeMap<&str, u64> = BTreeMap::new();
    let mut categories: BTreeMap<&str, u64> = BTreeMap::new();
    let mut failures: Vec<String> = Vec::new();
    let mut failed = 0u64;
    let mut worst_ratio = (0.0f64, 0u64);
    let mut costly: Vec<(u64, u64, String)> = Vec::new();
    let mut refused_budget: Vec<(u64, String)> = Vec::new();
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let start = Instant::now();
    for (index, case) in ScenarioFuzzer::new(args.seed)
        .take(args.inputs as usize)
        .enumerate()
    {
        let index = index as u64;
        *categories.entry(case.category).or_default() += 1;
        let failure = match catch_unwind(AssertUnwindSafe(|| judge(&case, micros))) {
            Ok(Ok(Outcome::Refused(kind, message))) => {
                *outcomes.entry(kind).or_default() += 1;
                if kind == "refused: over budget" && refused_budget.len() < CORPUS {
                    refused_budget.push((index, case_json(&case)));
                }
                message
                    .trim()
                    .is_empty()
                    .then(|| format!("{kind} with an empty message"))
            }
            Ok(Ok(Outcome::Ran { estimate, work })) => {
                *outcomes.entry("ran").or_default() += 1;
                let budget = estimate.work_for(micros).max(1);
                let ratio = work as f64 / budget as f64;
                if ratio > worst_ratio.0 {
                    worst_ratio = (ratio, index);
                }
                keep_costliest(&mut costly, (work, index, case_json(&case)));
                None
            }
            Ok(Err(overrun)) => {
                *outcomes.entry("OVERRUN").or_default() += 1;
                Some(overrun)
            }
            Err(payload) => {
                *outcomes.entry("PANIC").or_default() += 1;
                Some(format!("panic: {}", panic_message(payload.as_ref())))
            }
        };
        if let Some(what) = failure {
            failed += 1;
            if failures.len() < SHOWN {
                failures.push(format!(
                    "case #{index} ({}): {what}\n    reproduce: barrierlab fuzz-scenarios --seed {} --show {index}",
                    case.category, args.seed
                ));
            }
        }
    }
    let elapsed = start.elapsed().as_secs_f64();
    std::panic::set_hook(hook);

    let total = args.inputs.max(1);
    println!(
        "fuzz-scenarios: {} cases, seed {}, {} simulated each, {elapsed:.2} s, {:.0} cases/s",
        args.inputs,
        args.seed,
        args.seconds,
        args.inputs as f64 / elapsed.max(1e-9)
    );
    print_counts(&outcomes, total, "mutation", CATEGORIES, &categories);
    println!(
        "closest to its estimate: case #{} used {:.1} % of it",
        worst_ratio.1,
        worst_ratio.0 * 100.0
    );
    if let Some((work, index, _)) = costly.first() {
        println!("costliest accepted case: #{index}, {work} record-hops + events");
    }
    if let Some(dir) = &args.corpus {
        write_corpus(dir, &costly, &refused_budget)?;
    }
    if failed == 0 {
        println!("no panics, no overruns, every refusal has a message");
        Ok(())
    } else {
        for f in &failures {
            eprintln!("{f}");
        }
        Err(format!(
            "{failed} of {} cases failed (reproduce with --seed {} --show N)",
            args.inputs, args.seed
        ))
    }
}

/// The case as one scenario JSON (its `--set`s applied), or its raw JSON if they do not apply.
fn case_json(case: &ScenarioCase) -> String {
    case.scenario()
        .map(|s| s.to_json_pretty())
        .unwrap_or_else(|_| case.json.clone())
}

fn keep_costliest(costly: &mut Vec<(u64, u64, String)>, entry: (u64, u64, String)) {
    if costly.len() < CORPUS || entry.0 > costly[costly.len() - 1].0 {
        costly.push(entry);
        costly.sort_by_key(|c| std::cmp::Reverse(c.0));
        costly.truncate(CORPUS);
    }
}

fn write_corpus(
    dir: &PathBuf,
    costly: &[(u64, u64, String)],
    refused: &[(u64, String)],
) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let write = |name: String, json: &str| {
        let path = dir.join(name);
        std::fs::write(&path, format!("{}\n", json.trim_end()))
            .map_err(|e| format!("{}: {e}", path.display()))
    };
    for (rank, (_, index, json)) in costly.iter().enumerate() {
        write(format!("costliest-{rank}-case-{index}.json"), json)?;
    }
    for (index, json) in refused {
        write(format!("over-budget-case-{index}.json"), json)?;
    }
    println!(
        "corpus: {} costliest accepted and {} over-budget cases in {}",
        costly.len(),
        refused.len(),
        dir.display()
    );
    Ok(())
}
