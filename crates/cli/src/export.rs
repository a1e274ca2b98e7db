//! `barrierlab export`: write a scenario as a runnable Flink 2.3 DataStream job (Java) into a
//! directory.

use std::path::{Path, PathBuf};

use barrierlab_engine::export::{export_flink_job_with, ExportOptions};

use crate::scenario_args::ScenarioArgs;

#[derive(clap::Args, Debug)]
pub struct ExportArgs {
    #[command(flatten)]
    pub scenario: ScenarioArgs,
    /// The directory to write the job into (created if missing; files it writes are replaced).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

/// A failed export: refusals exit with 2, everything else (unreadable scenario, IO) with 1.
pub enum ExportError {
    Refused(String),
    Failed(String),
}

fn write(path: &Path, contents: &str, executable: bool) -> Result<(), String> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    std::fs::write(path, contents).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    #[cfg(unix)]
    if executable {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
            .map_err(|e| format!("cannot make {} executable: {e}", path.display()))?;
    }
    #[cfg(not(unix))]
    let _ = executable;
    Ok(())
}

pub fn run(args: ExportArgs) -> Result<(), ExportError> {
    let scenario = args.scenario.load().map_err(ExportError::Failed)?;
    // Absolute, so config.yaml's checkpoint URI works from any working directory; nothing is
    // created before the export is known to succeed.
    let out = std::path::absolute(&args.out)
        .map_err(|e| ExportError::Failed(format!("cannot resolve {}: {e}", args.out.display())))?;
    // Checkpoints go next to the job, so one directory holds everything of a run.
    let options = ExportOptions {
        checkpoint_dir: Some(format!("file://{}/checkpoints", out.display())),
    };
    let files = export_flink_job_with(&scenario, &options).map_err(ExportError::Refused)?;
    for f in &files {
        write(&out.join(&f.path), &f.contents, f.executable).map_err(ExportError::Failed)?;
        println!("wrote {}", out.join(&f.path).display());
    }
    println!();
    println!(
        "Flink 2.3 job '{}' exported. Run it (REST API on http://127.0.0.1:8081):",
        scenario.name
    );
    println!("  {}/run.sh --seconds 30", args.out.display());
    Ok(())
}
