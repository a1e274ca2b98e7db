//! `barrierlab derive FILE [--out scenario.json]`: "Simulate this job". A scenario derived from a
//! bundle `barrierlab collect` wrote (the engine's `import::derive`): the real job's vertices,
//! edges, measured rates and costs and its checkpoint settings, runnable with `barrierlab run`.
//! The notes (what the bundle did not say and was assumed) go to stderr.

use std::path::PathBuf;

use barrierlab_engine::import::derive::derive;
use clap::Args;

use barrierlab_engine::import::words::printable;

#[derive(Args)]
pub struct DeriveArgs {
    /// The bundle: what `barrierlab collect` or scripts/collect.sh wrote.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Where to write the scenario JSON (default: stdout).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

pub fn run(args: DeriveArgs) -> Result<(), String> {
    let path = &args.file;
    let bundle = crate::explain::read_bundle_file(path)?;
    let derived = derive(&bundle).map_err(|e| format!("{}: {e}", path.display()))?;
    for n in &derived.notes {
        eprintln!("note: {}", printable(n));
    }
    let json = derived.scenario.to_json_pretty() + "\n";
    match &args.out {
        Some(out) => {
            std::fs::write(out, json)
                .map_err(|e| format!("cannot write {}: {e}", out.display()))?;
            eprintln!(
                "wrote {} (barrierlab run {} simulates it)",
                out.display(),
                out.display()
            );
        }
        None => print!("{json}"),
    }
    Ok(())
}
