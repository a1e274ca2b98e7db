//! A long `run` shows its progress on a terminal and nothing when its output is piped.

mod common;

use std::process::Command;

use common::barrierlab;

const RUN: [&str; 6] = ["run", "--preset", "seed-demo", "--seconds", "120", "--seed"];

#[test]
fn a_piped_run_prints_no_progress() {
    let (ok, stdout, stderr) = barrierlab(&[&RUN[..], &["3"]].concat());
    assert!(ok, "{stderr}");
    assert_eq!(stderr, "", "stderr is not a terminal: no progress bar");
    assert!(!stdout.contains("simulating"), "{stdout}");
    assert!(
        stdout.starts_with("seed-demo — 120 s simulated"),
        "{stdout}"
    );
}

/// `script` (util-linux) gives the run a pseudo-terminal as stderr; stdout goes to a file.
#[test]
fn a_run_on_a_terminal_shows_progress_on_stderr_and_the_same_report() {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: no `script` to make a terminal");
        return;
    }
    let dir = std::env::temp_dir().join(format!("barrierlab-progress-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let report = dir.join("report.txt");
    let command = format!(
        "stty cols 100 rows 30; '{}' {} 3 > '{}'",
        env!("CARGO_BIN_EXE_barrierlab"),
        RUN.join(" "),
        report.display()
    );
    let out = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .output()
        .expect("script runs");
    assert!(out.status.success(), "{out:?}");
    let terminal = String::from_utf8_lossy(&out.stdout);
    assert!(
        terminal.contains("simulating"),
        "no progress bar: {terminal:?}"
    );
    assert!(terminal.contains(" of 120.0 s"), "{terminal:?}");
    // The bar is cleared at the end: the last thing written erases its line.
    assert!(
        terminal
            .trim_end_matches(['\r', '\n'])
            .ends_with("\r\x1b[2K"),
        "{terminal:?}"
    );
    // Progress changes nothing in the report: the same as the piped run, byte for byte.
    let on_terminal = std::fs::read_to_string(&report).unwrap();
    let (_, piped, _) = barrierlab(&[&RUN[..], &["3"]].concat());
    assert_eq!(on_terminal, piped);
    std::fs::remove_dir_all(&dir).ok();
}
