//! Shared by the CLI's integration tests: run the built binary.

use std::process::Command;

/// Runs `barrierlab ARGS…`: (success, stdout, stderr).
pub fn barrierlab(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_barrierlab"))
        .args(args)
        .output()
        .expect("the binary runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
