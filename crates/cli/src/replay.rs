//! `barrierlab replay SCRIPT.json`: runs the engine's replay driver and prints the report, as a
//! per-step listing (default) or as the report's JSON (`--format json`).

mod effects;
mod text;

use std::io::Write;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct ReplayArgs {
    /// The replay script (see docs/replay.md).
    pub script: PathBuf,
    /// `text`: a readable per-step listing; `json`: the full ReplayReport.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Json,
}

pub fn run(args: ReplayArgs) -> Result<(), String> {
    let path = args.script.display();
    let script = std::fs::read_to_string(&args.script)
        .map_err(|e| format!("cannot read replay script {path}: {e}"))?;
    let report = barrierlab_engine::replay::replay(&script).map_err(|e| format!("{path}: {e}"))?;
    let output = match args.format {
        Format::Text => text::render(&path.to_string(), &report),
        Format::Json => serde_json::to_string_pretty(&report)
            .map_err(|e| format!("cannot encode the report as JSON: {e}"))?,
    };
    // A closed pipe (`| head`) is the reader's choice, not an error worth a panic.
    let mut stdout = std::io::stdout().lock();
    match writeln!(stdout, "{output}") {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            return Err(format!("cannot write the report: {e}"));
        }
        _ => {}
    }
    // A script's `expect` steps are its test: one that does not hold fails the command.
    match report.failed_expectations().count() {
        0 => Ok(()),
        n => Err(format!(
            "{path}: {n} of {} expectation(s) failed{}",
            report.expectations.len(),
            if report.differs.is_some() {
                " (the script says the machine differs from Flink here)"
            } else {
                ""
            }
        )),
    }
}
