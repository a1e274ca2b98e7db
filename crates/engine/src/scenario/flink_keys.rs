//! Every configuration key Flink 2.3 knows, so a pasted `config.yaml` can tell a valid key the
//! engine does not model (accepted, with a note) from a typo (refused).
//!
//! The list is generated from Flink's own jars by `tools/flink-keys/generate.sh` into
//! `flink_keys_2_3.txt`: one key a line, `old -> current` for a deprecated or fallback name, and
//! `<name>` placeholders for keys with a user-chosen part (`metrics.reporter.<name>.factory.class`).
//! File-system plugins, which are not in the jars, read whole prefixes: [`PLUGIN_PREFIXES`].

/// The generated list (see the file's header).
const FLINK_KEYS: &str = include_str!("flink_keys_2_3.txt");

/// Prefixes Flink's file-system plugins copy into their own (Hadoop or Presto) configuration, so
/// any key under them is valid: `FLINK_CONFIG_PREFIXES` of flink-s3-fs-hadoop's and
/// flink-s3-fs-presto's `S3FileSystemFactory`, flink-azure-fs-hadoop's `AzureFSFactory`,
/// flink-gs-fs-hadoop's `GSFileSystemFactory`, flink-oss-fs-hadoop's `OSSFileSystemFactory`; and the
/// environment variable prefixes of `ResourceManagerOptions` (`CONTAINERIZED_*_ENV_PREFIX`).
pub const PLUGIN_PREFIXES: &[&str] = &[
    "s3.",
    "s3a.",
    "fs.s3a.",
    "presto.s3.",
    "fs.azure.",
    "azure.",
    "gs.",
    "fs.gs.",
    "fs.oss.",
    "containerized.master.env.",
    "containerized.taskmanager.env.",
];

/// What Flink 2.3 makes of a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlinkKey {
    /// A current key (possibly a pattern such as `metrics.reporter.<name>.interval`).
    Current(&'static str),
    /// A deprecated or fallback name Flink still reads, and the key it stands for.
    Old {
        old: &'static str,
        current: &'static str,
    },
    /// A key under a prefix a file-system plugin or the resource manager passes on.
    Prefix(&'static str),
}

/// `(key, current key for an old name)` for every line of the list, in file order.
pub fn flink_keys() -> impl Iterator<Item = (&'static str, Option<&'static str>)> {
    FLINK_KEYS
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| match l.split_once(" -> ") {
            Some((old, current)) => (old.trim(), Some(current.trim())),
            None => (l, None),
        })
}

/// Whether `key` matches the listed `pattern`: `<...>` stands for one dotted segment, or for the
/// rest of the key when it ends the pattern.
fn matches(pattern: &str, key: &str) -> bool {
    if !pattern.contains('<') {
        return pattern == key;
    }
    let p: Vec<&str> = pattern.split('.').collect();
    let k: Vec<&str> = key.split('.').collect();
    let is_hole = |s: &str| s.starts_with('<') && s.ends_with('>');
    let trailing_hole = p.last().is_some_and(|s| is_hole(s));
    if k.len() < p.len() || (!trailing_hole && k.len() != p.len()) {
        return false;
    }
    p.iter()
        .zip(&k)
        .all(|(ps, ks)| !ks.is_empty() && (is_hole(ps) || ps == ks))
}

/// Looks `key` up among Flink 2.3's keys (exact spelling: Flink's keys are case-sensitive).
pub fn flink_key(key: &str) -> Option<FlinkKey> {
    // (literal segments, hit): an exact key beats a pattern, and a pattern naming more of the
    // key (`metrics.reporter.<name>.factory.class`) beats a vaguer one (`….<parameter>`).
    let mut found: Option<(usize, FlinkKey)> = None;
    for (listed, current) in flink_keys() {
        if matches(listed, key) {
            let hit = match current {
                None => FlinkKey::Current(listed),
                Some(current) => FlinkKey::Old {
                    old: listed,
                    current,
                },
            };
            if listed == key {
                return Some(hit);
            }
            let literal = listed.split('.').filter(|s| !s.starts_with('<')).count();
            if found.is_none_or(|(best, _)| literal > best) {
                found = Some((literal, hit));
            }
        }
    }
    found.map(|(_, hit)| hit).or_else(|| {
        PLUGIN_PREFIXES
            .iter()
            .find(|p| key.len() > p.len() && key.starts_with(*p))
            .map(|p| FlinkKey::Prefix(p))
    })
}

/// The listed key (or table key) closest to `key`, if one is close enough to be a likely typo:
/// at most a fifth of the key's length in edits (at least 2), ignoring case.
pub fn suggest_key(key: &str, extra: &[&'static str]) -> Option<&'static str> {
    let lower = key.to_ascii_lowercase();
    let limit = (key.len() / 5).max(2);
    let mut best: Option<(usize, &'static str)> = None;
    let candidates = flink_keys()
        .filter(|(k, _)| !k.contains('<'))
        .map(|(k, current)| current.unwrap_or(k))
        .chain(extra.iter().copied());
    for candidate in candidates {
        // Cheap bound first: the length difference is a lower bound of the distance.
        if candidate.len().abs_diff(key.len()) > limit {
            continue;
        }
        let d = super::config_keys::edit_distance(&lower, &candidate.to_ascii_lowercase());
        if d <= limit && best.is_none_or(|(b, _)| d < b) {
            best = Some((d, candidate));
        }
    }
    best.map(|(_, k)| k)
}
