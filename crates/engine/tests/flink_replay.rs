//! Flink's own checkpointing unit tests, ported as replay fixtures
//! (`tests/fixtures/replay/flink/<ClassName>/<method>.json`): every fixture runs, states what its
//! test asserts, and holds, except those that say `"differs"`, which must still fail (so a fix
//! shows up as a fixture to un-mark). Prints the count per class.

use std::fs;
use std::path::{Path, PathBuf};

use barrierlab_engine::replay::replay;

/// The nine Flink test classes issue #13 asks for.
const CLASSES: [&str; 9] = [
    "AlignedCheckpointsTest",
    "UnalignedCheckpointsTest",
    "AlternatingCheckpointsTest",
    "CheckpointedInputGateTest",
    "CheckpointBarrierTrackerTest",
    "CheckpointCoordinatorTest",
    "CheckpointCoordinatorTriggeringTest",
    "CheckpointRequestDeciderTest",
    "CheckpointFailureManagerTest",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/replay/flink")
}

#[derive(Default)]
struct Count {
    held: usize,
    differs: usize,
    not_ported: usize,
}

#[test]
fn flink_test_fixtures_state_what_flink_asserts() {
    let mut problems = Vec::new();
    let mut table = Vec::new();
    for class in CLASSES {
        let dir = root().join(class);
        let readme = fs::read_to_string(dir.join("README.md")).unwrap_or_default();
        if readme.is_empty() {
            problems.push(format!(
                "{class}: no README.md listing ported and not ported tests"
            ));
        }
        let mut count = Count {
            not_ported: not_ported(&readme),
            ..Count::default()
        };
        let mut files: Vec<PathBuf> = fs::read_dir(&dir)
            .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        files.retain(|p| p.extension().is_some_and(|e| e == "json"));
        files.sort();
        for path in files {
            let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
            let name = format!("{class}/{stem}");
            match check(class, &stem, &path, &readme) {
                Ok(true) => count.differs += 1,
                Ok(false) => count.held += 1,
                Err(e) => problems.push(format!("{name}: {e}")),
            }
        }
        table.push((class, count));
    }
    println!(
        "{:<38} {:>8} {:>8} {:>11}",
        "Flink test class", "hold", "differ", "not ported"
    );
    for (class, c) in &table {
        println!(
            "{class:<38} {:>8} {:>8} {:>11}",
            c.held, c.differs, c.not_ported
        );
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// `Ok(differs)` when the fixture behaves as it says it does.
fn check(class: &str, stem: &str, path: &Path, readme: &str) -> Result<bool, String> {
    let text = fs::read_to_string(path).map_err(|e| e.to_string())?;
    let report = replay(&text)?;
    let from = report.from.as_deref().unwrap_or("");
    let method = from
        .strip_prefix(class)
        .and_then(|m| m.strip_prefix('#'))
        .ok_or_else(|| format!("\"from\" must be \"{class}#<method>\", got {from:?}"))?;
    if method.is_empty() || !stem.starts_with(method) {
        return Err(format!(
            "the file name must start with the method name {method:?}"
        ));
    }
    if !readme.contains(stem) {
        return Err("not listed in the class's README.md".into());
    }
    if report.expectations.is_empty() {
        return Err("no expect step: a fixture that asserts nothing cannot fail".into());
    }
    let failed: Vec<String> = report
        .failed_expectations()
        .flat_map(|e| {
            e.failures
                .iter()
                .map(move |f| format!("step {}: {f}", e.step))
        })
        .collect();
    match (&report.differs, failed.is_empty()) {
        (None, true) => Ok(false),
        (None, false) => Err(failed.join("\n    ")),
        (Some(_), false) => Ok(true),
        (Some(d), true) => Err(format!(
            "says it differs ({d}), but every expectation holds: remove \"differs\""
        )),
    }
}

/// Lines of the README's "## Not ported" section that name a method.
fn not_ported(readme: &str) -> usize {
    readme
        .split("## Not ported")
        .nth(1)
        .map(|rest| rest.split("\n## ").next().unwrap_or(""))
        .map_or(0, |section| {
            section
                .lines()
                .filter(|l| l.trim_start().starts_with("- "))
                .count()
        })
}
