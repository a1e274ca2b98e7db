//! `barrierlab`: the Barrier Lab engine on the command line.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[cfg(not(target_arch = "wasm32"))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod bench;
#[cfg(not(target_arch = "wasm32"))]
mod collect;
mod derive;
mod explain;
mod export;
mod fuzz;
mod fuzz_scenarios;
mod progress;
mod replay;
mod run;
mod scenario_args;
mod share;

#[derive(Parser)]
#[command(
    name = "barrierlab",
    version,
    about = "Simulate Apache Flink 2.3 checkpointing"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Drive one barrier handler or the checkpoint coordinator from a JSON script, step by step.
    Replay(replay::ReplayArgs),
    /// Simulate a scenario and print its checkpoint history (or Flink REST JSON).
    Run(run::RunArgs),
    /// Measure simulation speed (record-hops per wall second) and the presets' wall time.
    Bench(bench::BenchArgs),
    /// Print a playground link for a scenario (`/#v1.…`), or decode one with `--decode LINK`.
    Share(share::ShareArgs),
    /// Run the link decoder on N deterministic hostile inputs; fails on any panic.
    FuzzLinks(fuzz::FuzzArgs),
    /// Run mutated presets through validation, the cost estimate and a short run; fails on a
    /// panic, a run beyond its estimate, or a refusal without a message.
    FuzzScenarios(fuzz_scenarios::FuzzScenariosArgs),
    /// Write a scenario as a runnable Flink 2.3 DataStream job (Java, config.yaml, run.sh).
    Export(export::ExportArgs),
    /// Read a running Flink 2.x job's checkpoint statistics, metrics and plan from its REST API
    /// into one bundle (docs/collect.md); `--check FILE` reads a bundle back.
    #[cfg(not(target_arch = "wasm32"))]
    Collect(collect::CollectArgs),
    /// Explain a real job's checkpoints from a bundle `collect` wrote: for each, the critical
    /// subtask, the phase that dominated and Flink's figures behind it (no simulation).
    Explain(explain::ExplainArgs),
    /// Derive a scenario from a bundle ("Simulate this job"): the real job's vertices, edges,
    /// measured rates and costs and checkpoint settings, for `barrierlab run`; notes on stderr.
    Derive(derive::DeriveArgs),
}

fn main() -> ExitCode {
    // A reader that stops early (`| head`) ends the process as it ends `cat`, not in a panic.
    #[cfg(unix)]
    // SAFETY: at the start of main, before any thread exists; SIG_DFL is a valid action.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Replay(args) => replay::run(args),
        Command::Run(args) => run::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Share(args) => share::run(args),
        Command::FuzzLinks(args) => fuzz::run(args),
        Command::FuzzScenarios(args) => fuzz_scenarios::run(args),
        #[cfg(not(target_arch = "wasm32"))]
        Command::Collect(args) => collect::run(args),
        Command::Explain(args) => explain::run(args),
        Command::Derive(args) => derive::run(args),
        Command::Export(args) => {
            return match export::run(args) {
                Ok(()) => ExitCode::SUCCESS,
                // A scenario Flink cannot express is the user's to change: a distinct exit code.
                Err(export::ExportError::Refused(message)) => {
                    eprintln!("barrierlab: {message}");
                    ExitCode::from(2)
                }
                Err(export::ExportError::Failed(message)) => {
                    eprintln!("barrierlab: {message}");
                    ExitCode::FAILURE
                }
            };
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("barrierlab: {message}");
            ExitCode::FAILURE
        }
    }
}
