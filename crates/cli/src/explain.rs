//! `barrierlab explain FILE [--checkpoint N]`: why a real job's checkpoints took as long as they
//! did, from a bundle `barrierlab collect` wrote (no simulation). The analysis is the engine's
//! (`import::explain`); this puts it in sentences, in the words of `run --why`.

use std::path::PathBuf;

use barrierlab_engine::import::explain::explain;
use barrierlab_engine::import::{read_bundle, JobBundle};
// The sentences are the engine's, so the playground says the same.
pub(crate) use barrierlab_engine::import::words::printable;
use barrierlab_engine::import::words::render;
use clap::Args;

#[derive(Args)]
pub struct ExplainArgs {
    /// The bundle: what `barrierlab collect` or scripts/collect.sh wrote.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Only this checkpoint (its id, as Flink numbers them); default: every checkpoint the bundle
    /// has details of.
    #[arg(long, value_name = "N")]
    pub checkpoint: Option<u64>,
}

/// Reads a bundle file, printing the reader's notes to stderr; errors name the file.
pub(crate) fn read_bundle_file(path: &std::path::Path) -> Result<JobBundle, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let text = String::from_utf8(bytes)
        .map_err(|e| format!("{}: not UTF-8 text ({e}); not a bundle", path.display()))?;
    let bundle = read_bundle(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    for n in &bundle.notes {
        eprintln!("note: {}", printable(n));
    }
    Ok(bundle)
}

pub fn run(args: ExplainArgs) -> Result<(), String> {
    let path = &args.file;
    let bundle = read_bundle_file(path)?;
    let e = explain(&bundle, args.checkpoint).map_err(|e| format!("{}: {e}", path.display()))?;
    print!("{}", render(&e));
    Ok(())
}
