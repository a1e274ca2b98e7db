//! `CopyOnWriteStateMap`: the heap backend's versioned map that lets a snapshot be written
//! asynchronously while the task keeps updating state.
//!
//! Flink keeps a hash table of entries stamped with `entryVersion` / `stateVersion`. `snapshot()`
//! bumps the map's `stateMapVersion`, shares the table with the snapshot and raises
//! `highestRequiredSnapshotVersion`; afterwards a writer touching an entry older than that version
//! copies it first, so the snapshot keeps seeing the old one. `releaseSnapshot` lowers the bar again.
//!
//! Here the table is a hash map (FxHash: fixed, platform-independent hashing) with entries held
//! inline; anything that iterates sorts by `(key, namespace)` first, so hash-table order never
//! leaks into results. A snapshot keeps its own copy of the table taken at `snapshot()` (the
//! simulator copies where Flink shares), so it can never observe a later write; the version
//! stamps still decide, exactly as in Flink, which writes count as copy-on-write copies.

use std::collections::BTreeSet;
use std::hash::Hash;

use rustc_hash::FxHashMap;

/// `StateMapEntry`: one value with the versions that decide whether a writer must copy it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StateMapEntry<V> {
    pub value: V,
    /// Map version when this entry object was created (or last copied).
    pub entry_version: u64,
    /// Map version when `value` was last written (or last copied).
    pub state_version: u64,
}

/// Counters for a UI: how big the map is and how much copy-on-write work the running snapshots cost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CowCounters {
    pub entries: u64,
    /// Entries copied because a live snapshot still shared them, since the last `snapshot()`.
    pub copies_since_snapshot: u64,
    pub copies_total: u64,
}

/// `CopyOnWriteStateMap<K, N, S>`: state of one key group of one registered state.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[serde(bound(
    serialize = "K: serde::Serialize + Ord, N: serde::Serialize + Ord, V: serde::Serialize",
    deserialize = "K: serde::Deserialize<'de> + Eq + Hash, N: serde::Deserialize<'de> + Eq + Hash, V: serde::Deserialize<'de>"
))]
pub struct CopyOnWriteStateMap<K, N, V> {
    #[serde(with = "crate::types::snapshot_forms::sorted_map")]
    entries: FxHashMap<(K, N), StateMapEntry<V>>,
    /// `stateMapVersion`: incremented by every snapshot.
    state_version: u64,
    /// `snapshotVersions`: versions of snapshots not yet released.
    snapshot_versions: BTreeSet<u64>,
    /// `highestRequiredSnapshotVersion`: 0 when no snapshot is running.
    highest_required_snapshot_version: u64,
    copies_since_snapshot: u64,
    copies_total: u64,
}

/// `CopyOnWriteStateMapSnapshot`: the entries as they were at `snapshot()`, unaffected by later writes.
#[derive(Clone, Debug)]
pub struct CopyOnWriteStateMapSnapshot<K, N, V> {
    version: u64,
    entries: FxHashMap<(K, N), StateMapEntry<V>>,
}

impl<K: Ord + Hash + Clone, N: Ord + Hash + Clone, V: Clone> Default
    for CopyOnWriteStateMap<K, N, V>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<K: Ord + Hash + Clone, N: Ord + Hash + Clone, V: Clone> CopyOnWriteStateMap<K, N, V> {
    pub fn new() -> Self {
        CopyOnWriteStateMap {
            entries: FxHashMap::default(),
            state_version: 0,
            snapshot_versions: BTreeSet::new(),
            highest_required_snapshot_version: 0,
            copies_since_snapshot: 0,
            copies_total: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn state_version(&self) -> u64 {
        self.state_version
    }

    pub fn highest_required_snapshot_version(&self) -> u64 {
        self.highest_required_snapshot_version
    }

    /// Versions of snapshots taken and not yet released, ascending.
    pub fn running_snapshot_versions(&self) -> impl Iterator<Item = u64> + '_ {
        self.snapshot_versions.iter().copied()
    }

    /// Entries written since the last snapshot (stamped with the current version): what a
    /// RocksDB memtable would hold since its last flush.
    pub fn written_since_snapshot(&self) -> impl Iterator<Item = (&K, &N)> {
        let version = self.state_version;
        self.entries
            .iter()
            .filter(move |(_, e)| e.state_version == version)
            .map(|((k, n), _)| (k, n))
    }

    pub fn counters(&self) -> CowCounters {
        CowCounters {
            entries: self.entries.len() as u64,
            copies_since_snapshot: self.copies_since_snapshot,
            copies_total: self.copies_total,
        }
    }

    pub fn get(&self, key: &K, namespace: &N) -> Option<&V> {
        // A read-only lookup never copies; Flink's `get` copies only because callers may mutate.
        self.entries
            .get(&(key.clone(), namespace.clone()))
            .map(|e| &e.value)
    }

    pub fn contains(&self, key: &K, namespace: &N) -> bool {
        self.entries.contains_key(&(key.clone(), namespace.clone()))
    }

    /// `put`: a new entry is stamped with the current version; an existing one shared with a live
    /// snapshot is replaced by a fresh entry (the copy), otherwise its value is overwritten in place.
    pub fn put(&mut self, key: K, namespace: N, value: V) {
        let version = self.state_version;
        let required = self.highest_required_snapshot_version;
        match self.entries.get_mut(&(key.clone(), namespace.clone())) {
            Some(slot) if slot.entry_version < required => {
                *slot = StateMapEntry {
                    value,
                    entry_version: version,
                    state_version: version,
                };
                self.copies_since_snapshot += 1;
                self.copies_total += 1;
            }
            Some(slot) => {
                // No live snapshot can hold this entry; make_mut clones only if a clone of the
                // whole map still shares it, which keeps clones independent.
                let e = slot;
                e.value = value;
                e.state_version = version;
            }
            None => {
                self.entries.insert(
                    (key, namespace),
                    StateMapEntry {
                        value,
                        entry_version: version,
                        state_version: version,
                    },
                );
            }
        }
    }

    /// Read-modify-write in one lookup (`StateMap.transform`): `f` gets the current value (if
    /// any) and returns the new one, which is stored with `put`'s copy-on-write rule.
    pub fn transform(&mut self, key: K, namespace: N, f: impl FnOnce(Option<&V>) -> V) -> V {
        let version = self.state_version;
        let required = self.highest_required_snapshot_version;
        let address = (key, namespace);
        // Most calls update an existing entry: a plain lookup is cheaper than the entry API,
        // which moves the key in and out.
        if let Some(slot) = self.entries.get_mut(&address) {
            let new = f(Some(&slot.value));
            if slot.entry_version < required {
                *slot = StateMapEntry {
                    value: new.clone(),
                    entry_version: version,
                    state_version: version,
                };
                self.copies_since_snapshot += 1;
                self.copies_total += 1;
            } else {
                slot.value = new.clone();
                slot.state_version = version;
            }
            return new;
        }
        let new = f(None);
        self.entries.insert(
            address,
            StateMapEntry {
                value: new.clone(),
                entry_version: version,
                state_version: version,
            },
        );
        new
    }

    /// Mutable access as Flink's `get` gives it for in-place updates: a value older than the highest
    /// running snapshot is copied first (Flink deep-copies it with the state serializer).
    pub fn get_mut(&mut self, key: &K, namespace: &N) -> Option<&mut V> {
        let version = self.state_version;
        let required = self.highest_required_snapshot_version;
        let slot = self.entries.get_mut(&(key.clone(), namespace.clone()))?;
        if slot.state_version < required {
            *slot = StateMapEntry {
                value: slot.value.clone(),
                entry_version: version,
                state_version: version,
            };
            self.copies_since_snapshot += 1;
            self.copies_total += 1;
        }
        Some(&mut slot.value)
    }

    /// `remove`: the snapshot keeps its own pointer, so removal never needs a copy here.
    pub fn remove(&mut self, key: &K, namespace: &N) -> Option<V> {
        self.entries
            .remove(&(key.clone(), namespace.clone()))
            .map(|e| e.value.clone())
    }

    /// Entries in `(key, namespace)` order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &N, &V)> {
        sorted(&self.entries).into_iter()
    }

    /// `stateSnapshot()`: bump the version, register it as running and share the entries.
    pub fn snapshot(&mut self) -> CopyOnWriteStateMapSnapshot<K, N, V> {
        // u64 cannot realistically overflow (one snapshot per checkpoint); saturate rather than panic.
        self.state_version = self.state_version.saturating_add(1);
        self.snapshot_versions.insert(self.state_version);
        self.highest_required_snapshot_version = self.state_version;
        self.copies_since_snapshot = 0;
        CopyOnWriteStateMapSnapshot {
            version: self.state_version,
            entries: self.entries.clone(),
        }
    }

    /// `releaseSnapshot`: the snapshot with `version` is written; only older running ones still
    /// force copies. Unknown versions are ignored (release is idempotent).
    pub fn release_snapshot(&mut self, version: u64) {
        self.snapshot_versions.remove(&version);
        self.highest_required_snapshot_version =
            self.snapshot_versions.last().copied().unwrap_or(0);
    }
}

impl<K: Ord, N: Ord, V> CopyOnWriteStateMapSnapshot<K, N, V> {
    /// The map version this snapshot was taken at; pass it to `release_snapshot`.
    pub fn version(&self) -> u64 {
        self.version
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&K, &N, &V)> {
        sorted(&self.entries).into_iter()
    }
}

/// Entries in `(key, namespace)` order, whatever the hash table's order.
fn sorted<K: Ord, N: Ord, V>(entries: &FxHashMap<(K, N), StateMapEntry<V>>) -> Vec<(&K, &N, &V)> {
    let mut all: Vec<(&K, &N, &V)> = entries.iter().map(|((k, n), e)| (k, n, &e.value)).collect();
    all.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    type Map = CopyOnWriteStateMap<i32, (), i64>;

    fn values(s: &CopyOnWriteStateMapSnapshot<i32, (), i64>) -> Vec<(i32, i64)> {
        s.iter().map(|(k, _, v)| (*k, *v)).collect()
    }

    #[test]
    fn snapshot_is_stable_while_writes_go_on() {
        let mut m = Map::new();
        m.put(1, (), 10);
        m.put(2, (), 20);
        let snap = m.snapshot();
        m.put(1, (), 11);
        *m.get_mut(&2, &()).unwrap() += 5;
        m.put(3, (), 30);
        m.remove(&1, &());
        assert_eq!(values(&snap), vec![(1, 10), (2, 20)]);
        assert_eq!(
            m.iter().map(|(k, _, v)| (*k, *v)).collect::<Vec<_>>(),
            vec![(2, 25), (3, 30)]
        );
        assert_eq!(snap.version(), 1);
    }

    #[test]
    fn copies_only_entries_shared_with_a_live_snapshot() {
        let mut m = Map::new();
        m.put(1, (), 1);
        m.put(1, (), 2);
        assert_eq!(m.counters().copies_total, 0, "no snapshot yet: in place");
        let snap = m.snapshot();
        m.put(1, (), 3); // shared: copied
        m.put(1, (), 4); // now our own entry: in place
        m.put(2, (), 5); // new entry: never a copy
        *m.get_mut(&2, &()).unwrap() += 1;
        let c = m.counters();
        assert_eq!(
            (c.entries, c.copies_since_snapshot, c.copies_total),
            (2, 1, 1)
        );
        assert_eq!(values(&snap), vec![(1, 2)]);
        // A second snapshot resets the since-snapshot counter and shares both entries again.
        let snap2 = m.snapshot();
        assert_eq!(m.counters().copies_since_snapshot, 0);
        *m.get_mut(&1, &()).unwrap() += 100;
        *m.get_mut(&1, &()).unwrap() += 100;
        assert_eq!(m.counters().copies_since_snapshot, 1);
        assert_eq!(values(&snap2), vec![(1, 4), (2, 6)]);
        assert_eq!(values(&snap), vec![(1, 2)]);
    }

    #[test]
    fn release_stops_copying() {
        let mut m = Map::new();
        m.put(1, (), 1);
        m.put(2, (), 2);
        let s1 = m.snapshot();
        let s2 = m.snapshot();
        m.release_snapshot(s2.version());
        // s1 is still running, so entries from before it are still copied.
        assert_eq!(m.highest_required_snapshot_version(), s1.version());
        m.put(1, (), 10);
        assert_eq!(m.counters().copies_since_snapshot, 1);
        m.release_snapshot(s1.version());
        assert_eq!(m.highest_required_snapshot_version(), 0);
        m.put(2, (), 20);
        assert_eq!(m.counters().copies_since_snapshot, 1);
        assert_eq!(m.running_snapshot_versions().count(), 0);
        m.release_snapshot(99); // unknown: ignored
    }

    #[test]
    fn clones_are_independent() {
        let mut a = Map::new();
        a.put(1, (), 1);
        let b = a.clone();
        a.put(1, (), 2);
        assert_eq!(b.get(&1, &()), Some(&1));
        assert_eq!(a.get(&1, &()), Some(&2));
    }
}
