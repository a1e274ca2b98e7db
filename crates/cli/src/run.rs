//! `barrierlab run`: simulate a scenario and print its checkpoint history.

use barrierlab_engine::scenario::cost::human;
use barrierlab_engine::scenario::{
    CostEstimate, BUDGET_CHANNELS, BUDGET_WORK_PER_RUN, BUDGET_WORK_PER_SECOND,
};
use barrierlab_engine::sim::divergence::trace_window;
use barrierlab_engine::sim::{CheckpointRow, Simulation};
use barrierlab_engine::stats::why::explain;
use barrierlab_engine::types::{format_duration, parse_duration, Micros};

use crate::scenario_args::ScenarioArgs;

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Table,
    Json,
}

#[derive(clap::Args, Debug)]
pub struct RunArgs {
    #[command(flatten)]
    pub scenario: ScenarioArgs,
    /// Simulated run time: seconds (`30`) or a duration (`1500ms`, `2min`).
    #[arg(long, default_value = "30")]
    pub seconds: String,
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
    /// With `--format json`: the job's start as epoch milliseconds; REST timestamps count from
    /// it, as Flink's wall-clock ones do (default 2026-01-01T00:00:00Z; 0 keeps simulated time).
    #[arg(long, default_value_t = 1_767_225_600_000)]
    pub start_time: u64,
    /// Instead of the history: why checkpoint N took as long as it did, from the engine's record
    /// of it (the same answer as the playground's "Why was this checkpoint slow?" panel).
    #[arg(long, value_name = "N")]
    pub why: Option<u64>,
    /// Print the cost estimate (record-hops and events per simulated second, the run's total)
    /// against the budget, and do not run.
    #[arg(long)]
    pub dry_run: bool,
    /// Run even when the estimate is beyond the budget.
    #[arg(long)]
    pub force: bool,
    /// Instead of the history: trace events A+1..=B, one a line with the running hash after it.
    /// A failed fingerprint test names the window where two runs part; diff this listing with
    /// the test's to find the first event that differs.
    #[arg(long, value_name = "A..B")]
    pub trace_window: Option<String>,
}

const MAX_WINDOW: u64 = 10_000;

/// `A..B` with A < B, at most `MAX_WINDOW` events apart (the trace ring holds the newest 20,000).
fn parse_window(text: &str) -> Result<(u64, u64), String> {
    let bad = || format!("--trace-window {text}: expected A..B, two event numbers with A < B");
    let (a, b) = text.split_once("..").ok_or_else(bad)?;
    let (a, b): (u64, u64) = (
        a.trim().parse().map_err(|_| bad())?,
        b.trim().parse().map_err(|_| bad())?,
    );
    if a >= b {
        return Err(bad());
    }
    if b - a > MAX_WINDOW {
        return Err(format!(
            "--trace-window {text}: at most {MAX_WINDOW} events at a time"
        ));
    }
    Ok((a, b))
}

/// Parses `--seconds`: a plain number is seconds, anything else a Flink duration.
pub fn run_time(text: &str) -> Result<Micros, String> {
    match text.trim().parse::<u64>() {
        Ok(s) => s
            .checked_mul(1_000_000)
            .ok_or_else(|| format!("--seconds {text} is too long")),
        Err(_) => parse_duration(text).map_err(|e| format!("--seconds: {e}")),
    }
}

pub fn run(args: RunArgs) -> Result<(), String> {
    let scenario = args.scenario.load()?;
    let until = run_time(&args.seconds)?;
    let estimate = scenario.cost_estimate()?;
    let over = estimate.run_over_budget(until);
    if args.dry_run {
        print_estimate(&estimate, until, over.as_deref());
        return Ok(());
    }
    if let (Some(why), false) = (&over, args.force) {
        return Err(format!(
            "{why}. Check with --dry-run, or run anyway with --force"
        ));
    }
    if let Some(window) = &args.trace_window {
        let (after, upto) = parse_window(window)?;
        for line in trace_window(scenario, after, upto)? {
            println!("{line}");
        }
        return Ok(());
    }
    let mut sim = if args.force {
        Simulation::new_over_budget(scenario)?
    } else {
        Simulation::new(scenario)?
    };
    crate::progress::run_until(&mut sim, until);
    if let Some(id) = args.why {
        return print_why(&sim, id, args.format);
    }
    match args.format {
        Format::Json => {
            let mut report = sim.json_report_at(args.start_time);
            report["verification"] =
                serde_json::to_value(sim.verification()).map_err(|e| e.to_string())?;
            println!(
                "{}",
                serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?
            );
        }
        Format::Table => print_table(&sim),
    }
    Ok(())
}

/// `--dry-run`: the estimate, the budget and the verdict.
fn print_estimate(e: &CostEstimate, until: Micros, over: Option<&str>) {
    println!("per simulated second (upper bounds):");
    println!("  record-hops      {:>12}", human(e.record_hops));
    println!("  events           {:>12}", human(e.events));
    println!("  network buffers  {:>12}", human(e.buffers));
    println!("  network bytes    {:>12}", human(e.bytes));
    println!("  subtasks         {:>12}", e.subtasks);
    println!(
        "  channels         {:>12}  (budget {})",
        e.channels,
        human(BUDGET_CHANNELS)
    );
    println!(
        "  work             {:>12}  (record-hops + events; budget {})",
        human(e.work_per_second()),
        human(BUDGET_WORK_PER_SECOND)
    );
    println!(
        "this run ({}): {} of work (budget {})",
        format_duration(until),
        human(e.work_for(until)),
        human(BUDGET_WORK_PER_RUN)
    );
    match over {
        Some(why) => println!("over budget: {why}; --force runs it anyway"),
        None => println!("within budget"),
    }
}

/// `--why N`: one sentence a line, or the answer as JSON.
fn print_why(sim: &Simulation, id: u64, format: Format) -> Result<(), String> {
    let why = explain(sim, id, str::to_string).ok_or_else(|| {
        format!(
            "checkpoint {id} is not in the statistics history or has no acknowledgement yet \
             (web.checkpoints.history keeps the last {}; `run` without --why lists them)",
            sim.graph.config.web_checkpoints_history
        )
    })?;
    match format {
        Format::Table => why.sentences.iter().for_each(|s| println!("{s}")),
        Format::Json => {
            let v = serde_json::json!({
                "id": why.id,
                "slow": why.slow,
                "dominant": why.dominant,
                "last_subtask": why.last_subtask,
                "phases": why.phases.iter().map(|(name, us)| serde_json::json!({ "phase": name, "us": us })).collect::<Vec<_>>(),
                "buffers_ahead": why.buffers_ahead,
                "persisted_data": why.persisted,
                "sentences": why.sentences,
            });
            println!(
                "{}",
                serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?
            );
        }
    }
    Ok(())
}

fn size(bytes: u64) -> String {
    if bytes < 1024 {
        format!("{bytes} B")
    } else if bytes < 1024 * 1024 {
        format!("{}.{} KB", bytes / 1024, (bytes % 1024) * 10 / 1024)
    } else {
        format!(
            "{}.{} MB",
            bytes >> 20,
            (bytes % (1 << 20)) * 10 / (1 << 20)
        )
    }
}

fn print_table(sim: &Simulation) {
    println!(
        "{} — {} s simulated, seed {}, fingerprint {}",
        sim.scenario.name,
        sim.now / 1_000_000,
        sim.scenario.seed,
        sim.fingerprint()
    );
    let rows: Vec<CheckpointRow> = sim.checkpoint_rows();
    if rows.is_empty() {
        println!("no checkpoints");
    }
    println!(
        "{:>4}  {:<11} {:>9} {:>10} {:>10} {:>7}  per vertex: max start delay / alignment / sync / async",
        "id", "status", "duration", "size", "persisted", "acked"
    );
    for r in rows {
        let kind = if r.savepoint {
            "savepoint "
        } else if r.unaligned {
            "unaligned "
        } else {
            ""
        };
        println!(
            "{:>4}  {:<11} {:>9} {:>10} {:>10} {:>7}  {}{}",
            r.id,
            r.status,
            r.duration
                .map(format_duration)
                .unwrap_or_else(|| "-".into()),
            size(r.checkpointed_size),
            size(r.persisted),
            format!("{}/{}", r.acknowledged, r.total),
            kind,
            r.vertices
                .iter()
                .map(|v| format!(
                    "{}: {} / {} / {} / {}",
                    v.vertex,
                    format_duration(v.max_start_delay),
                    format_duration(v.max_alignment),
                    format_duration(v.max_sync),
                    format_duration(v.max_async)
                ))
                .collect::<Vec<_>>()
                .join("; ")
        );
    }
    println!();
    println!("job status: {:?}", sim.status);
    let v = sim.verification();
    for s in &v.sinks {
        println!(
            "verification {} ({}, at {}): expected {}, committed {}, duplicates {}, missing {}",
            s.sink,
            if s.transactional {
                "two-phase commit"
            } else {
                "non-transactional"
            },
            s.basis,
            s.expected_records,
            s.committed_records,
            s.duplicates,
            s.missing
        );
    }
    for s in &v.state {
        println!(
            "verification {} state: counted {} for {} records",
            s.operator, s.counted, s.expected
        );
    }
    println!();
    // Flink's REST gauges: for up to a minute after a task starts they lag what it does.
    println!("backpressure (Flink's gauges: time per second over up to the last 60 s):");
    let report = sim.backpressure();
    for (id, vertex) in sim.job_vertex_ids().iter().zip(sim.vertex_names()) {
        let subtasks: Vec<String> = report
            .get(id)
            .into_iter()
            .flat_map(|info| &info.subtasks)
            .map(|s| {
                format!(
                    "#{} {} busy {:.0}% bp {:.0}% idle {:.0}% in {}",
                    s.subtask,
                    s.level.0.as_str(),
                    s.busy_ratio * 100.0,
                    s.ratio * 100.0,
                    s.idle_ratio * 100.0,
                    s.records_in
                )
            })
            .collect();
        println!("  {vertex}: {}", subtasks.join(" | "));
    }
}
