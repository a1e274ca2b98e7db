//! `barrierlab bench`: its options and what each line reports (figures themselves vary by machine).

mod common;

use common::barrierlab;

#[test]
fn taskmanager_counts_out_of_range_are_refused_before_anything_runs() {
    let (ok, stdout, stderr) = barrierlab(&["bench", "--taskmanagers", "1,0"]);
    assert!(!ok);
    assert!(stdout.is_empty(), "{stdout}");
    assert!(
        stderr.contains("--taskmanagers 0: the large job runs on 1 to 128 TaskManagers"),
        "{stderr}"
    );
}

#[test]
fn each_line_reports_hops_events_speed_and_the_run_fingerprint() {
    // No simulated time for the large job keeps the (debug-built) test quick.
    let (ok, stdout, stderr) = barrierlab(&[
        "bench",
        "--large-seconds",
        "0",
        "--repeat",
        "1",
        "--taskmanagers",
        "1",
    ]);
    assert!(ok, "{stderr}");
    let runs: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains("record-hops,"))
        .collect();
    assert_eq!(runs.len(), 4, "three presets and one large run:\n{stdout}");
    assert!(
        runs[3].starts_with("bench-512 on 1 TaskManager(s)"),
        "{stdout}"
    );
    for line in runs {
        let fingerprint = line.rsplit("fingerprint ").next().unwrap();
        assert_eq!(fingerprint.len(), 16, "{line}");
        assert!(fingerprint.chars().all(|c| c.is_ascii_hexdigit()), "{line}");
    }
}
