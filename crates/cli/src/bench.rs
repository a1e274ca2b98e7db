//! `barrierlab bench`: how fast the engine simulates, in simulated record-hops per wall second.
//! A record-hop is one record entering one task (a source's generated records count once), so a
//! record crossing three network edges makes four hops.

use std::time::Instant;

use barrierlab_engine::scenario::cost::human;
use barrierlab_engine::scenario::{
    preset, EdgeSpec, KeyDistribution, OperatorKind, OperatorSpec, Partitioner, Scenario,
    BUDGET_WORK_PER_SECOND,
};
use barrierlab_engine::sim::Simulation;
use barrierlab_engine::types::MICROS_PER_SEC;

#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// Simulated seconds of the large job.
    #[arg(long, default_value_t = 10)]
    pub large_seconds: u64,
    /// Repetitions of each measurement; the best is reported.
    #[arg(long, default_value_t = 3)]
    pub repeat: u32,
    /// TaskManager counts to run the large job on (1: all channels local; more: most remote).
    #[arg(long, value_delimiter = ',', default_values_t = [1, 8])]
    pub taskmanagers: Vec<u32>,
}

/// 512 subtasks, 1 M records/s of 100-byte records over 10 000 keys:
/// datagen(128) -hash-> count(128) -rebalance-> map(128) -hash-> sink(128), on `taskmanagers`
/// TaskManagers: with one, every channel is local; with more, most are remote (credit-based).
pub fn large_job(taskmanagers: u32) -> Scenario {
    let op = |name: &str, kind: OperatorKind| OperatorSpec::new(name, kind).with_parallelism(128);
    let mut s = Scenario {
        name: "bench-512".into(),
        seed: 7,
        operators: vec![
            op(
                "datagen",
                OperatorKind::Datagen {
                    rate: 1_000_000,
                    record_size: 100,
                    keys: 10_000,
                    key_distribution: KeyDistribution::Uniform,
                    bounded: None,
                },
            ),
            op("count", OperatorKind::KeyedCount),
            op("map", OperatorKind::Map),
            op("sink", OperatorKind::DiscardSink),
        ],
        edges: vec![
            EdgeSpec::new("datagen", "count", Partitioner::Hash),
            EdgeSpec::new("count", "map", Partitioner::Rebalance),
            EdgeSpec::new("map", "sink", Partitioner::Hash),
        ],
        ..preset("seed-demo").expect("the seed-demo preset exists")
    };
    s.cluster.taskmanagers = taskmanagers;
    s.cluster.slots_per_taskmanager = Some(128 / s.cluster.taskmanagers);
    s
}

/// Best wall time, record-hops, events, and the run's trace fingerprint (so a speed-up can be
/// checked to leave the simulation unchanged).
fn measure(
    scenario: &Scenario,
    seconds: u64,
    repeat: u32,
) -> Result<(f64, u64, u64, String), String> {
    let mut best = f64::MAX;
    let mut hops = 0;
    let mut events = 0;
    let mut fingerprint = String::new();
    for _ in 0..repeat.max(1) {
        let mut sim = Simulation::new(scenario.clone())?;
        let start = Instant::now();
        sim.run_until(seconds * MICROS_PER_SEC);
        let wall = start.elapsed().as_secs_f64();
        best = best.min(wall);
        hops = sim.tasks.iter().map(|t| t.records_in).sum();
        events = sim.events;
        fingerprint = sim.fingerprint();
    }
    Ok((best, hops, events, fingerprint))
}

pub fn run(args: BenchArgs) -> Result<(), String> {
    if let Some(bad) = args.taskmanagers.iter().find(|t| !(1..=128).contains(*t)) {
        return Err(format!(
            "--taskmanagers {bad}: the large job runs on 1 to 128 TaskManagers"
        ));
    }
    println!("barrierlab bench (release build recommended: cargo run --release -p barrierlab-cli -- bench)");
    let mut presets_total = 0.0;
    for name in ["seed-demo", "seed-backpressure", "seed-unaligned"] {
        let scenario = preset(name).ok_or("missing preset")?;
        let (wall, hops, events, fp) = measure(&scenario, 30, args.repeat)?;
        presets_total += wall;
        println!(
            "{name:<18} 30 s simulated in {:>8.2} ms wall: {hops} record-hops, {events} events, {:.1} M record-hops/s, fingerprint {fp}",
            wall * 1e3,
            hops as f64 / wall / 1e6
        );
    }
    println!(
        "three 30-second presets together: {:.2} ms wall",
        presets_total * 1e3
    );
    for &taskmanagers in &args.taskmanagers {
        let large = large_job(taskmanagers);
        let (wall, hops, events, fp) = measure(&large, args.large_seconds, args.repeat)?;
        println!(
            "bench-512 on {taskmanagers} TaskManager(s) (512 subtasks, 1 M records/s, 10 000 keys) {} s simulated in {:.2} s wall: {hops} record-hops, {events} events, {:.1} M record-hops/s, fingerprint {fp}",
            args.large_seconds,
            wall,
            hops as f64 / wall / 1e6
        );
        // The cost estimate against what the run did: how conservative the budget's bound is.
        let estimate = large.cost_estimate()?;
        let allowed = estimate.work_for(args.large_seconds * MICROS_PER_SEC);
        println!(
            "  estimated {} of work per simulated second (budget {}): the run did {:.0} % of the estimate",
            human(estimate.work_per_second()),
            human(BUDGET_WORK_PER_SECOND),
            (hops + events) as f64 * 100.0 / allowed.max(1) as f64
        );
    }
    Ok(())
}
