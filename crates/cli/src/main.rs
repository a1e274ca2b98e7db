//! `barrierlab`: the Barrier Lab engine on the command line.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[cfg(not(target_arch = "wasm32"))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `mi_option_set(mi_option_purge_delay, -1)`: mimalloc keeps the memory the simulation frees.
/// By default it hands pages unused for a second back to the kernel, which zeroes them again
/// (2 MiB at a time, under transparent huge pages) when the next buffers need them. On a busy
/// machine, where a run stretches past that second, bench-512 faulted in about 800 huge pages
/// instead of 310 and spent a fifth more CPU time; idle, it does so in one run out of six. A
/// simulation's resident memory is its peak anyway. (15 is `mi_option_purge_delay` in
/// `mi_option_e`, in mimalloc v2 and v3 alike.)
#[cfg(not(target_arch = "wasm32"))]
fn keep_freed_memory() {
    unsafe extern "C" {
        /// mimalloc.h's `mi_option_set`, in the library the `mimalloc` crate links. (Its Rust
        /// binding sits behind a feature that brings in a crate of C types for this one call.)
        fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
    }
    // SAFETY: sets one of mimalloc's global options, at the start of main, before any thread
    // exists; the value is one the header documents for this option.
    unsafe { mi_option_set(15, -1) };
}

mod bench;
mod bench_floor;
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
    #[cfg(not(target_arch = "wasm32"))]
    keep_freed_memory();
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
