//! State time-to-live (`StateTtlConfig`, Flink's `runtime/state/ttl`), with the defaults of
//! `StateTtlConfig.newBuilder(ttl).build()` in Flink 2.3: `OnCreateAndWrite` (a write stamps
//! the entry), `NeverReturnExpired` (an expired value reads as absent), processing time, and
//! cleanup in background:
//! - heap (`TtlIncrementalCleanup`, cleanup size 5, not for every record): every state access
//!   (`value()`, `update()`, `add()`) advances a global visitor over the state's entries by 5,
//!   dropping what expired; the visitor starts over when it has seen every entry;
//! - RocksDB (`RocksDbTtlCompactFiltersManager`): a compaction filter drops expired entries, and
//!   a list's expired elements, from the files a compaction rewrites. Until then they stay in
//!   the SST files and every checkpoint carries them.
//!
//! Each entry's `TtlValue` timestamps are kept beside the table's `i64`s: one for a value, one
//! per element of a list (appended in time order, so the expired ones are a prefix).

use std::collections::VecDeque;

use rustc_hash::FxHashMap;

use super::key_group::StateKey;
use super::state_table::{Namespace, StateKind, StateTable};

/// `IncrementalCleanupStrategy`'s default cleanup size: entries visited per state access.
pub const INCREMENTAL_CLEANUP_SIZE: usize = 5;

/// `TtlUtils.expired`: the entry's expiration time (`timestamp + ttl`) has been reached.
pub fn expired(stamp_millis: i64, ttl_millis: u64, now_millis: i64) -> bool {
    stamp_millis.saturating_add(ttl_millis as i64) <= now_millis
}

/// The timestamps of one state's entries and the incremental-cleanup visitor's queue.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct TtlStamps {
    pub ttl_millis: u64,
    /// Per entry: its key group, and the value's last write or each list element's append,
    /// oldest first.
    #[serde(with = "crate::types::snapshot_forms::sorted_map")]
    stamps: FxHashMap<(StateKey, Namespace), (u32, Vec<i64>)>,
    /// Entries in the order the visitor reaches them (key group, key, namespace); an entry
    /// leaves it when it is removed, rejoins at the back when visited.
    visitor: VecDeque<(u32, StateKey, Namespace)>,
}

impl TtlStamps {
    pub fn new(ttl_millis: u64) -> Self {
        TtlStamps {
            ttl_millis,
            ..Default::default()
        }
    }
}

impl StateTable {
    /// The entry's TTL timestamps (empty without TTL).
    pub fn ttl_stamps(&self, key: &StateKey, namespace: &Namespace) -> &[i64] {
        self.ttl
            .as_ref()
            .and_then(|t| t.stamps.get(&(key.clone(), namespace.clone())))
            .map_or(&[], |(_, s)| s.as_slice())
    }

    /// Sets an entry's timestamps as restored from a snapshot.
    pub(super) fn restore_stamps(
        &mut self,
        key_group: u32,
        key: &StateKey,
        namespace: &Namespace,
        stamps: &[i64],
    ) {
        if let Some(t) = self.ttl.as_mut() {
            let address = (key.clone(), namespace.clone());
            if t.stamps
                .insert(address, (key_group, stamps.to_vec()))
                .is_none()
            {
                t.visitor
                    .push_back((key_group, key.clone(), namespace.clone()));
            }
        }
    }

    /// `value += delta` for a value state with TTL at `now_millis`: an expired value reads as
    /// absent (`NeverReturnExpired`), and the write stamps the entry (`OnCreateAndWrite`).
    pub(super) fn ttl_add(
        &mut self,
        key_group: u32,
        key: StateKey,
        namespace: Namespace,
        delta: i64,
        now_millis: i64,
    ) -> Result<i64, String> {
        let t = self.ttl.as_mut().ok_or("state has no TTL")?;
        let address = (key.clone(), namespace.clone());
        let live = t
            .stamps
            .get(&address)
            .and_then(|(_, s)| s.last())
            .is_some_and(|&s| !expired(s, t.ttl_millis, now_millis));
        if t.stamps
            .insert(address, (key_group, vec![now_millis]))
            .is_none()
        {
            t.visitor
                .push_back((key_group, key.clone(), namespace.clone()));
        }
        let map = self
            .map_mut(key_group)
            .ok_or("current key group not in range")?;
        Ok(map.transform(key, namespace, |v| {
            let old = if live { v.copied().unwrap_or(0) } else { 0 };
            old.wrapping_add(delta)
        }))
    }

    /// `ListState.add` at `now_millis`: the list grows by one element (stamped with TTL). An
    /// append reads nothing, so expired elements stay until a cleanup drops them.
    pub(super) fn list_append(
        &mut self,
        key_group: u32,
        key: StateKey,
        namespace: Namespace,
        now_millis: i64,
    ) -> Result<i64, String> {
        if let Some(t) = self.ttl.as_mut() {
            let address = (key.clone(), namespace.clone());
            match t.stamps.get_mut(&address) {
                Some((_, s)) => s.push(now_millis),
                None => {
                    t.stamps.insert(address, (key_group, vec![now_millis]));
                    t.visitor
                        .push_back((key_group, key.clone(), namespace.clone()));
                }
            }
        }
        self.appended_since_snapshot += 1;
        let map = self
            .map_mut(key_group)
            .ok_or("current key group not in range")?;
        Ok(map.transform(key, namespace, |v| v.copied().unwrap_or(0) + 1))
    }

    /// `TtlIncrementalCleanup.stateAccessed`: visits the next `INCREMENTAL_CLEANUP_SIZE`
    /// entries, removing an expired value or list and trimming a list's expired elements (a
    /// write, which copies the entry if a running snapshot shares it).
    pub(super) fn incremental_cleanup(&mut self, now_millis: i64) {
        let Some(t) = self.ttl.as_mut() else { return };
        let visits = INCREMENTAL_CLEANUP_SIZE.min(t.visitor.len());
        let mut changes = Vec::new();
        for _ in 0..visits {
            let Some((kg, key, ns)) = t.visitor.pop_front() else {
                break;
            };
            let address = (key, ns);
            let Some((_, stamps)) = t.stamps.get_mut(&address) else {
                continue;
            };
            let dropped = stamps.partition_point(|&s| expired(s, t.ttl_millis, now_millis));
            if dropped > 0 {
                stamps.drain(..dropped);
            }
            let left = stamps.len();
            if left == 0 {
                t.stamps.remove(&address);
            } else {
                t.visitor
                    .push_back((kg, address.0.clone(), address.1.clone()));
            }
            if dropped > 0 {
                changes.push((kg, address, left));
            }
        }
        self.apply_trims(changes);
    }

    /// The compaction filter: every expired value, and every list's expired elements, gone.
    pub(super) fn purge_expired(&mut self, now_millis: i64) {
        let Some(t) = self.ttl.as_mut() else { return };
        let ttl = t.ttl_millis;
        let mut changes = Vec::new();
        t.stamps.retain(|address, (kg, stamps)| {
            let dropped = stamps.partition_point(|&s| expired(s, ttl, now_millis));
            if dropped > 0 {
                stamps.drain(..dropped);
                changes.push((*kg, address.clone(), stamps.len()));
            }
            !stamps.is_empty()
        });
        t.visitor
            .retain(|(_, k, n)| t.stamps.contains_key(&(k.clone(), n.clone())));
        self.apply_trims(changes);
    }

    /// Writes what a cleanup left of each entry it trimmed: removed when nothing is left, a
    /// list's new length otherwise (a value that is not expired is never trimmed).
    fn apply_trims(&mut self, trims: Vec<(u32, (StateKey, Namespace), usize)>) {
        let list = self.descriptor.kind == StateKind::List;
        for (kg, (key, ns), left) in trims {
            let Some(map) = self.map_mut(kg) else {
                continue;
            };
            if left == 0 {
                map.remove(&key, &ns);
            } else if list {
                map.put(key, ns, left as i64);
            }
        }
    }
}
