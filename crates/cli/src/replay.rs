//! `barrierlab replay SCRIPT.json`.

use std::path::PathBuf;

#[derive(clap::Args)]
pub struct ReplayArgs {
    /// The replay script (see docs/replay.md).
    pub script: PathBuf,
}

pub fn run(args: ReplayArgs) -> Result<(), String> {
    Err(format!(
        "replay of {} is not implemented yet",
        args.script.display()
    ))
}
