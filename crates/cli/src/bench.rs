//! `barrierlab bench`: how fast the engine simulates, in simulated record-hops per wall second.
//! A record-hop is one record entering one task (a source's generated records count once), so a
//! record crossing three network edges makes four hops.

use std::time::Instant;

use barrierlab_engine::scenario::cost::human;
use barrierlab_engine::scenario::{bench_job, preset, Scenario, BUDGET_WORK_PER_SECOND};
use barrierlab_engine::sim::{HandOverCost, Simulation};
use barrierlab_engine::types::MICROS_PER_SEC;

use crate::bench_floor::{floor_at_job_granularity, floor_loop};

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

/// Best wall time, record-hops, events, and the run's trace fingerprint (so a speed-up can be
/// checked to leave the simulation unchanged); and the snapshot of the run's end.
fn measure(
    scenario: &Scenario,
    seconds: u64,
    repeat: u32,
) -> Result<(f64, u64, u64, String, HandOverCost), String> {
    let mut best = f64::MAX;
    let mut hops = 0;
    let mut events = 0;
    let mut fingerprint = String::new();
    let mut snapshot: Option<HandOverCost> = None;
    for _ in 0..repeat.max(1) {
        let mut sim = Simulation::new(scenario.clone())?;
        let start = Instant::now();
        sim.run_until(seconds * MICROS_PER_SEC);
        let wall = start.elapsed().as_secs_f64();
        best = best.min(wall);
        hops = sim.tasks.iter().map(|t| t.records_in).sum();
        events = sim.events;
        fingerprint = sim.fingerprint();
        let clock = Instant::now();
        let cost = HandOverCost::measure(&sim, || clock.elapsed().as_secs_f64() * 1e3)?;
        snapshot = Some(match snapshot {
            Some(earlier) => faster(earlier, cost),
            None => cost,
        });
    }
    Ok((
        best,
        hops,
        events,
        fingerprint,
        snapshot.unwrap_or_default(),
    ))
}

/// The better of two repetitions' hand-over costs, time by time (the bytes are the same).
fn faster(a: HandOverCost, b: HandOverCost) -> HandOverCost {
    HandOverCost {
        write_ms: a.write_ms.min(b.write_ms),
        read_ms: a.read_ms.min(b.read_ms),
        update_write_ms: a.update_write_ms.min(b.update_write_ms),
        update_apply_ms: a.update_apply_ms.min(b.update_apply_ms),
        update_reuse_ms: a.update_reuse_ms.min(b.update_reuse_ms),
        ..b
    }
}

fn snapshot_line(c: &HandOverCost) -> String {
    format!(
        "  snapshot of the end (the Web Worker's hand-over): {:.1} KB, written in {:.2} ms, read in {:.2} ms; \
         update after 100 ms more: {:.1} KB, written in {:.2} ms, applied in {:.2} ms \
         (the next in {:.2} ms, into the memory of the version before, as the page does)",
        c.bytes as f64 / 1024.0,
        c.write_ms,
        c.read_ms,
        c.update_bytes as f64 / 1024.0,
        c.update_write_ms,
        c.update_apply_ms,
        c.update_reuse_ms
    )
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
        let (wall, hops, events, fp, snapshot) = measure(&scenario, 30, args.repeat)?;
        presets_total += wall;
        println!(
            "{name:<18} 30 s simulated in {:>8.2} ms wall: {hops} record-hops, {events} events, {:.1} M record-hops/s, fingerprint {fp}",
            wall * 1e3,
            hops as f64 / wall / 1e6
        );
        println!("{}", snapshot_line(&snapshot));
    }
    println!(
        "three 30-second presets together: {:.2} ms wall",
        presets_total * 1e3
    );
    let (wall, hops) = (0..args.repeat.max(1))
        .map(|_| floor_loop(2_000_000 * args.large_seconds.max(1)))
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .unwrap_or((f64::MAX, 0));
    println!(
        "floor: a bare loop moving {} M records through 32 KB buffers, hash -> keyed count -> map -> sink: {:.2} s wall, {:.0} M record-hops/s",
        2 * args.large_seconds.max(1),
        wall,
        hops as f64 / wall / 1e6
    );
    let (wall, hops, buffers) = (0..args.repeat.max(1))
        .map(|_| floor_at_job_granularity(args.large_seconds.max(1)))
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .unwrap_or((f64::MAX, 0, 1));
    println!(
        "floor at bench-512's granularity: the same records and hops between 128 x 128 channels an edge, a buffer handed over at each 100 ms timeout ({} s, {:.1} records a buffer): {:.2} s wall, {:.0} M record-hops/s",
        args.large_seconds.max(1),
        (hops as f64 * 3.0 / 4.0) / buffers.max(1) as f64,
        wall,
        hops as f64 / wall / 1e6
    );
    for &taskmanagers in &args.taskmanagers {
        let large = bench_job(taskmanagers);
        let (wall, hops, events, fp, snapshot) = measure(&large, args.large_seconds, args.repeat)?;
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
        println!("{}", snapshot_line(&snapshot));
    }
    Ok(())
}
