//! The module dependency picture of ARCHITECTURE.md, checked against the sources: a `use crate::x`
//! outside tests that the table below does not allow fails here, so the document cannot drift and
//! a pure state machine cannot quietly start reaching into the event loop.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Each top-level module and the modules it may use (besides `types`, which all may use). A
/// sub-folder listed on its own (`stats/why`) has its own row; the rest of `stats` is its tracker.
const ALLOWED: &[(&str, &[&str])] = &[
    ("barrier", &[]),
    ("channel_state", &[]),
    ("state", &[]),
    ("trace", &[]),
    ("scenario", &[]),
    ("stats", &["coordinator"]),
    ("coordinator", &["stats"]),
    ("network", &["barrier", "state", "scenario"]),
    (
        "task",
        &[
            "network",
            "barrier",
            "coordinator",
            "state",
            "trace",
            "scenario",
        ],
    ),
    (
        "sim",
        &[
            "task",
            "network",
            "barrier",
            "coordinator",
            "state",
            "channel_state",
            "trace",
            "scenario",
            "stats",
        ],
    ),
    ("stats/why", &["sim", "network", "coordinator", "stats"]),
    (
        "storage",
        &["sim", "task", "network", "coordinator", "state", "scenario"],
    ),
    ("replay", &["barrier", "coordinator", "scenario", "stats"]),
    ("export", &["scenario"]),
    ("share", &["scenario"]),
    ("import", &["scenario", "state", "stats"]),
];

const MODULES: &[&str] = &[
    "barrier",
    "channel_state",
    "coordinator",
    "export",
    "import",
    "network",
    "replay",
    "scenario",
    "share",
    "sim",
    "state",
    "stats",
    "storage",
    "task",
    "trace",
];

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module named right after each `crate::` in `text` (also inside `crate::{a, b::c}`).
fn crate_uses(text: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for (i, _) in text.match_indices("crate::") {
        let rest = &text[i + "crate::".len()..];
        let names: Vec<&str> = if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            // Only the first segment of each item of the group: `{a::X, b}` → a, b.
            group[..end]
                .split(',')
                .map(|item| item.trim().split("::").next().unwrap_or(""))
                .collect()
        } else {
            vec![rest
                .split(|c: char| !c.is_alphanumeric() && c != '_')
                .next()
                .unwrap_or("")]
        };
        found.extend(
            names
                .into_iter()
                .filter(|n| !n.is_empty())
                .map(String::from),
        );
    }
    found
}

/// Source text without test code: `#[cfg(test)] mod x;` lines go, and an inline
/// `#[cfg(test)] mod x { … }` (always last in a file here) takes the rest of the file with it.
fn non_test(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..i]);
        let after = &rest[i + "#[cfg(test)]".len()..];
        let line_end = after
            .trim_start()
            .find('\n')
            .map_or(after.len(), |e| after.len() - after.trim_start().len() + e);
        let item = after[..line_end].trim();
        if item.starts_with("mod ") && item.ends_with(';') {
            rest = &after[line_end..];
        } else {
            return out;
        }
    }
    out.push_str(rest);
    out
}

/// The table's row for a file: its top-level folder, or `stats/why` for that sub-folder.
fn row_of(rel: &Path) -> Option<String> {
    let parts: Vec<_> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let top = parts.first()?.trim_end_matches(".rs").to_string();
    if !MODULES.contains(&top.as_str()) {
        return None;
    }
    if top == "stats" && parts.get(1).map(String::as_str) == Some("why") {
        return Some("stats/why".into());
    }
    Some(top)
}

fn is_test_file(rel: &Path) -> bool {
    let name = rel.file_name().unwrap().to_string_lossy();
    name == "tests.rs" || name.starts_with("tests_") || rel.iter().any(|p| p == "tests")
}

fn uses_by_row() -> BTreeMap<String, BTreeMap<String, Vec<String>>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut rows: BTreeMap<String, BTreeMap<String, Vec<String>>> = BTreeMap::new();
    for file in files {
        let rel = file.strip_prefix(&src).unwrap();
        let Some(row) = row_of(rel) else { continue };
        if is_test_file(rel) {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        let top = row.split('/').next().unwrap().to_string();
        for used in crate_uses(&non_test(&text)) {
            if used != top && used != "types" && MODULES.contains(&used.as_str()) {
                rows.entry(row.clone())
                    .or_default()
                    .entry(used)
                    .or_default()
                    .push(rel.display().to_string());
            }
        }
    }
    rows
}

#[test]
fn every_module_uses_only_what_architecture_md_allows() {
    let allowed: BTreeMap<&str, &[&str]> = ALLOWED.iter().copied().collect();
    let mut wrong = Vec::new();
    let rows = uses_by_row();
    for (row, used) in &rows {
        let ok = allowed
            .get(row.as_str())
            .unwrap_or_else(|| panic!("module {row} is missing from ALLOWED and ARCHITECTURE.md"));
        for (module, files) in used {
            if !ok.contains(&module.as_str()) {
                wrong.push(format!("{row} uses {module} (in {})", files.join(", ")));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "uses outside ARCHITECTURE.md's module dependencies (change the design or the document \
         and this table together):\n  {}",
        wrong.join("\n  ")
    );
    // The pure machines really are leaves: the scan sees their files at all.
    assert!(
        rows.contains_key("sim") && rows.contains_key("task"),
        "{rows:?}"
    );
}

#[test]
fn the_scan_reads_grouped_and_plain_uses() {
    let text = "use crate::sim::Simulation;\nuse crate::{network::Net, types::Micros, barrier};\n\
                #[cfg(test)]\nmod tests_x;\nfn f() { crate::trace::emit(); }\n\
                #[cfg(test)]\nmod tests { use crate::storage; }";
    let got = crate_uses(&non_test(text));
    let want: BTreeSet<String> = ["sim", "network", "types", "barrier", "trace"]
        .into_iter()
        .map(String::from)
        .collect();
    assert_eq!(got, want);
}
