//! The `barrierlab share` and `fuzz-links` contract.

mod common;

use common::barrierlab;

fn share(args: &[&str]) -> String {
    let (ok, stdout, stderr) = barrierlab(args);
    assert!(ok, "{stderr}");
    stdout.trim().to_string()
}

fn decoded(link: &str) -> serde_json::Value {
    let (ok, stdout, stderr) = barrierlab(&["share", "--decode", link]);
    assert!(ok, "{stderr}");
    serde_json::from_str(&stdout).expect("--decode prints JSON")
}

#[test]
fn share_prints_a_link_that_decode_accepts() {
    let link = share(&[
        "share",
        "--preset",
        "seed-demo",
        "--seed",
        "7",
        "--set",
        "execution.checkpointing.interval=3s",
        "--fail",
        "count-per-key#1@12s",
        "--until",
        "12",
        "--embed",
    ]);
    assert!(link.starts_with("/#v1."), "{link}");
    assert!(link.ends_with("&until=12s&embed=1"), "{link}");
    assert!(link.len() < 1_500, "{}", link.len());
    let v = decoded(&link);
    assert_eq!(v["version"], 1);
    assert_eq!(v["options"]["until"], 12_000_000);
    assert_eq!(v["options"]["embed"], true);
    assert_eq!(v["scenario"]["name"], "seed-demo");
    assert_eq!(v["scenario"]["seed"], 7);
    assert_eq!(
        v["scenario"]["config"]["execution.checkpointing.interval"],
        "3s"
    );
    assert_eq!(
        v["scenario"]["faults"][0]["kill"]["task"],
        "count-per-key#1"
    );
}

#[test]
fn every_option_flag_reaches_the_link() {
    let link = share(&[
        "share",
        "--preset",
        "seed-2pc",
        "--until",
        "1500ms",
        "--autoplay",
        "--speed",
        "0.5",
        "--theme",
        "dark",
        "--panel",
        "timeline",
        "--checkpoint",
        "3",
    ]);
    assert!(
        link.ends_with("&until=1500ms&autoplay=1&speed=0.5&theme=dark&panel=timeline&checkpoint=3"),
        "{link}"
    );
    let v = decoded(&format!("https://example.org{link}"));
    assert_eq!(v["options"]["speed"], "0.5");
    assert_eq!(v["options"]["checkpoint"], 3);
}

#[test]
fn garbage_links_fail_with_a_message() {
    for (link, needle) in [
        ("#v1.not*base64", "position 3"),
        ("#v9.abc", "v9 links need a newer Barrier Lab"),
        ("no fragment", "no '#'"),
    ] {
        let (ok, stdout, stderr) = barrierlab(&["share", "--decode", link]);
        assert!(!ok, "{link} decoded: {stdout}");
        assert!(stdout.is_empty());
        assert!(stderr.contains(needle), "{link}: {stderr}");
    }
}

#[test]
fn share_refuses_a_scenario_that_would_not_load() {
    let (ok, stdout, stderr) = barrierlab(&[
        "share",
        "--preset",
        "seed-demo",
        "--fail",
        "count-per-key#9@1s",
    ]);
    assert!(!ok && stdout.is_empty(), "{stdout}");
    assert!(stderr.contains("count-per-key#9"), "{stderr}");
    let (ok, _, stderr) = barrierlab(&["share", "--preset", "seed-demo", "--theme", "very dark"]);
    assert!(!ok);
    assert!(stderr.contains("theme=very dark"), "{stderr}");
}

#[test]
fn fuzz_links_reports_outcomes() {
    let (ok, stdout, stderr) = barrierlab(&["fuzz-links", "--inputs", "2000", "--seed", "3"]);
    assert!(ok, "{stderr}");
    for needle in [
        "2000 inputs",
        "inputs/s",
        "by outcome:",
        "ok ",
        "bad-base64",
        "no panics",
    ] {
        assert!(stdout.contains(needle), "{needle}: {stdout}");
    }
}

#[test]
fn an_until_past_the_playgrounds_bound_gets_a_note() {
    let (ok, stdout, stderr) = barrierlab(&["share", "--preset", "seed-demo", "--until", "2h"]);
    assert!(ok, "{stderr}");
    assert!(stdout.trim().ends_with("&until=7200s"), "{stdout}");
    assert!(
        stderr.contains("--until 2h: the playground opens a link at most 600 s into its run, so this one stops at 600 s"),
        "{stderr}"
    );
    let (ok, _, stderr) = barrierlab(&["share", "--preset", "seed-demo", "--until", "10min"]);
    assert!(ok);
    assert_eq!(stderr, "", "10 min is within the bound");
}
