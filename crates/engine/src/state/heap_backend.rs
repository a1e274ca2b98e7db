//! `HeapKeyedStateBackend`: the keyed state of one subtask on the heap (HashMapStateBackend).
//!
//! It owns a `KeyGroupRange` of a job-wide max parallelism and a `StateTable` per registered state.
//! Like Flink's backend it has a *current key* that state accesses apply to; the namespace is passed
//! per call (Flink sets it on the state object). `snapshot` takes copy-on-write snapshots of all
//! tables and keeps them running until `release_snapshot`, which models the asynchronous part of a
//! checkpoint during which writes must copy shared entries. `restore` rebuilds a backend for a new
//! range from any set of old snapshots, keeping only the key groups inside the new range.

use std::collections::BTreeMap;

use super::cow_state_map::{CopyOnWriteStateMap, CowCounters};
use super::heap_snapshot_strategy::{layout, KeyGroupSnapshot, KeyedStateSnapshot, SnapshotEntry};
use super::key_group::{check_parallelism, KeyGroupRange, StateKey};
use super::meta_info::SerializerKind;
use super::state_table::{Namespace, StateKind, StateTable, ValueStateDescriptor};
use crate::types::CheckpointId;

/// A RocksDB memtable as the next flush finds it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Memtable {
    /// Memtable entries the flush goes through: a value's latest update per key (earlier ones
    /// count once: the flush's cost was measured per key written), each append to a list (a
    /// merge operand of its own).
    pub entries: u64,
    /// Keys (and namespaces) written: the L0 file's entries, a list's operands merged.
    pub keys: u64,
    /// The L0 file's bytes, before RocksDB's block encoding (see `rocksdb::SST_PERCENT_FLUSHED`).
    pub bytes: u64,
}

/// Handle of a registered value state: its index, which is also its id in the snapshot stream.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct StateId(pub usize);

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct HeapKeyedStateBackend {
    max_parallelism: u32,
    key_group_range: KeyGroupRange,
    /// The key type's serializer; every key must be of this type, as with a Java `KeyedStream<K>`.
    key_serializer: SerializerKind,
    tables: Vec<StateTable>,
    timer_services: Vec<String>,
    current_key: Option<(StateKey, u32)>,
    /// Copy-on-write snapshot version per table for each checkpoint whose async part is running.
    running: BTreeMap<CheckpointId, Vec<u64>>,
}

/// The serializer Flink would use for a key of this variant.
pub fn key_serializer_of(key: &StateKey) -> SerializerKind {
    match key {
        StateKey::Int(_) => SerializerKind::Int,
        StateKey::Long(_) => SerializerKind::Long,
        StateKey::Str(_) => SerializerKind::String,
    }
}

/// The value state names of the simulator's keyed operators, as the exported Java job's
/// descriptors name them.
pub const COUNT_STATE: &str = "count";
pub const WINDOW_SUM_STATE: &str = "window-sum";
pub const LIST_STATE: &str = "list";

impl HeapKeyedStateBackend {
    /// A keyed count's or window sum's state: int keys, one `ValueState<Long>` (per window when
    /// `windowed`) and Flink's user-timer service, which keyed process functions and windows
    /// register. The operators and `derive`'s size estimate share it.
    pub fn for_counter(
        max_parallelism: u32,
        range: KeyGroupRange,
        windowed: bool,
    ) -> Result<(Self, StateId), String> {
        let desc = if windowed {
            ValueStateDescriptor::windowed_long(WINDOW_SUM_STATE)
        } else {
            ValueStateDescriptor::long(COUNT_STATE)
        };
        Self::for_state(max_parallelism, range, desc)
    }

    /// A keyed process function's state: int keys, the one state `desc` registers and the
    /// user-timer service.
    pub fn for_state(
        max_parallelism: u32,
        range: KeyGroupRange,
        desc: ValueStateDescriptor,
    ) -> Result<(Self, StateId), String> {
        let mut backend = Self::new(max_parallelism, range, SerializerKind::Int)?;
        let state = backend.register_value_state(desc)?;
        backend.register_timer_service("user-timers");
        Ok((backend, state))
    }

    pub fn new(
        max_parallelism: u32,
        key_group_range: KeyGroupRange,
        key_serializer: SerializerKind,
    ) -> Result<Self, String> {
        check_parallelism(max_parallelism, 1)?;
        if !key_group_range.is_empty() && key_group_range.end >= max_parallelism {
            return Err(format!(
                "key-group range {}..={} exceeds max parallelism {max_parallelism}",
                key_group_range.start, key_group_range.end
            ));
        }
        if !matches!(
            key_serializer,
            SerializerKind::Int | SerializerKind::Long | SerializerKind::String
        ) {
            return Err(format!("{key_serializer:?} is not a key type"));
        }
        Ok(HeapKeyedStateBackend {
            max_parallelism,
            key_group_range,
            key_serializer,
            tables: Vec::new(),
            timer_services: Vec::new(),
            current_key: None,
            running: BTreeMap::new(),
        })
    }

    pub fn max_parallelism(&self) -> u32 {
        self.max_parallelism
    }

    pub fn key_group_range(&self) -> KeyGroupRange {
        self.key_group_range
    }

    /// `getOrCreateKeyedState`: the same name returns the same state; a different descriptor under
    /// an existing name is an error (Flink's state-migration incompatibility).
    pub fn register_value_state(
        &mut self,
        descriptor: ValueStateDescriptor,
    ) -> Result<StateId, String> {
        if let Some(i) = self
            .tables
            .iter()
            .position(|t| t.descriptor.name == descriptor.name)
        {
            if self.tables[i].descriptor != descriptor {
                return Err(format!(
                    "state '{}' registered with a different descriptor",
                    descriptor.name
                ));
            }
            return Ok(StateId(i));
        }
        self.tables
            .push(StateTable::new(descriptor, self.key_group_range));
        Ok(StateId(self.tables.len() - 1))
    }

    /// `getInternalTimerService(name)`: registers its two timer queues (idempotent).
    pub fn register_timer_service(&mut self, name: &str) {
        if !self.timer_services.iter().any(|s| s == name) {
            self.timer_services.push(name.to_string());
        }
    }

    /// The descriptor `state` was registered with.
    pub fn descriptor(&self, state: StateId) -> Option<&ValueStateDescriptor> {
        self.tables.get(state.0).map(|t| &t.descriptor)
    }

    /// Entries and their bytes as RocksDB stores them now (no header): what a compaction's
    /// output holds.
    pub fn live_totals(&self) -> (u64, u64) {
        let mut entries = 0;
        let mut bytes = 0;
        for table in &self.tables {
            for kg in self.key_group_range.iter() {
                for (key, namespace, value) in table.map(kg).into_iter().flat_map(|m| m.iter()) {
                    entries += 1;
                    bytes += table.sst_entry_bytes(key, namespace, *value);
                }
            }
        }
        (entries, bytes)
    }

    pub fn state_id(&self, name: &str) -> Option<StateId> {
        self.tables
            .iter()
            .position(|t| t.descriptor.name == name)
            .map(StateId)
    }

    /// `setCurrentKey`: computes the key group once; a key this subtask does not own is an error
    /// (in Flink, a record routed to the wrong subtask fails on state access).
    pub fn set_current_key(&mut self, key: StateKey) -> Result<(), String> {
        let kg = self.key_group_of(&key)?;
        self.current_key = Some((key, kg));
        Ok(())
    }

    /// The key group of `key`, or why this subtask cannot hold it.
    #[inline]
    fn key_group_of(&self, key: &StateKey) -> Result<u32, String> {
        if key_serializer_of(key) != self.key_serializer {
            return Err(format!(
                "key {key:?} is not of the backend's key type {:?}",
                self.key_serializer
            ));
        }
        let kg = key.key_group(self.max_parallelism);
        if !self.key_group_range.contains(kg) {
            return Err(self.not_owned(key, kg));
        }
        Ok(kg)
    }

    #[cold]
    fn not_owned(&self, key: &StateKey, kg: u32) -> String {
        format!(
            "key {key:?} is in key group {kg}, outside {}..={}",
            self.key_group_range.start, self.key_group_range.end
        )
    }

    /// `setCurrentKey(key)` then [`Self::transform`], as a keyed operator does per record: the
    /// same checks, errors and current key afterwards, with the key group computed once and the
    /// current key not cloned back out.
    pub fn transform_for_key(
        &mut self,
        key: StateKey,
        state: StateId,
        namespace: Namespace,
        f: impl FnOnce(Option<i64>) -> i64,
    ) -> Result<i64, String> {
        let kg = self.key_group_of(&key)?;
        self.current_key = Some((key.clone(), kg));
        let map = self.state_map_mut(state, kg)?;
        Ok(map.transform(key, namespace, |v| f(v.copied())))
    }

    /// `value += delta` for an `int` key in `key_group` (its group under this backend's max
    /// parallelism, which the caller may have at hand), as a keyed count or sum does per record:
    /// the same checks, errors and current key afterwards as [`Self::transform_for_key`], on the
    /// path a record takes millions of times a second (no key enum to build, drop or re-hash).
    #[inline]
    pub fn add_int(
        &mut self,
        key: i32,
        kg: u32,
        state: StateId,
        namespace: Namespace,
        delta: i64,
    ) -> Result<i64, String> {
        if self.key_serializer != SerializerKind::Int {
            return self.transform_for_key(StateKey::Int(key), state, namespace, |v| {
                v.unwrap_or(0).wrapping_add(delta)
            });
        }
        debug_assert_eq!(kg, StateKey::Int(key).key_group(self.max_parallelism));
        if !self.key_group_range.contains(kg) {
            return Err(self.not_owned(&StateKey::Int(key), kg));
        }
        match &mut self.current_key {
            Some((StateKey::Int(k), g)) => (*k, *g) = (key, kg),
            other => *other = Some((StateKey::Int(key), kg)),
        }
        let map = self.state_map_mut(state, kg)?;
        // A Java long wraps.
        Ok(map.transform(StateKey::Int(key), namespace, |v| {
            v.copied().unwrap_or(0).wrapping_add(delta)
        }))
    }

    /// The map of `state` for key group `kg`.
    fn state_map_mut(
        &mut self,
        state: StateId,
        kg: u32,
    ) -> Result<&mut CopyOnWriteStateMap<StateKey, Namespace, i64>, String> {
        let table = self
            .tables
            .get_mut(state.0)
            .ok_or_else(|| format!("unknown state {state:?}"))?;
        table
            .map_mut(kg)
            .ok_or_else(|| "current key group not in range".to_string())
    }

    pub fn current_key(&self) -> Option<&StateKey> {
        self.current_key.as_ref().map(|(k, _)| k)
    }

    fn table_and_key(&self, state: StateId) -> Result<(&StateTable, &StateKey, u32), String> {
        let table = self
            .tables
            .get(state.0)
            .ok_or_else(|| format!("unknown state {state:?}"))?;
        let (key, kg) = self.current_key.as_ref().ok_or("no current key set")?;
        Ok((table, key, *kg))
    }

    /// `ValueState.value()` for the current key.
    pub fn value(&self, state: StateId, namespace: &Namespace) -> Result<Option<i64>, String> {
        let (table, key, kg) = self.table_and_key(state)?;
        Ok(table.map(kg).and_then(|m| m.get(key, namespace)).copied())
    }

    /// `ValueState.update()` for the current key.
    pub fn update(
        &mut self,
        state: StateId,
        namespace: Namespace,
        value: i64,
    ) -> Result<(), String> {
        let (key, kg) = self.current_key.clone().ok_or("no current key set")?;
        let map = self.state_map_mut(state, kg)?;
        map.put(key, namespace, value);
        Ok(())
    }

    /// `ValueState.value()` then `update()` for the current key, in one lookup: `f` maps the
    /// current value (if any) to the new one, which is returned.
    pub fn transform(
        &mut self,
        state: StateId,
        namespace: Namespace,
        f: impl FnOnce(Option<i64>) -> i64,
    ) -> Result<i64, String> {
        let (key, kg) = self.current_key.clone().ok_or("no current key set")?;
        let map = self.state_map_mut(state, kg)?;
        Ok(map.transform(key, namespace, |v| f(v.copied())))
    }

    /// `ValueState.clear()` for the current key.
    pub fn clear(&mut self, state: StateId, namespace: &Namespace) -> Result<(), String> {
        let (key, kg) = self.current_key.clone().ok_or("no current key set")?;
        let table = self
            .tables
            .get_mut(state.0)
            .ok_or_else(|| format!("unknown state {state:?}"))?;
        if let Some(map) = table.map_mut(kg) {
            map.remove(&key, namespace);
        }
        Ok(())
    }

    /// Entries of one state in one key group, in `(key, namespace)` order; empty outside the range.
    pub fn entries_in_key_group(
        &self,
        state: StateId,
        key_group: u32,
    ) -> impl Iterator<Item = (&StateKey, &Namespace, i64)> {
        self.tables
            .get(state.0)
            .and_then(|t| t.map(key_group))
            .into_iter()
            .flat_map(|m| m.iter().map(|(k, n, v)| (k, n, *v)))
    }

    /// What was written since the last snapshot: the RocksDB backend's memtable at the next
    /// checkpoint's flush, and the L0 file that flush makes.
    pub fn written_since_snapshot(&self) -> Memtable {
        let mut m = Memtable::default();
        for table in &self.tables {
            let list = table.descriptor.kind == StateKind::List;
            for kg in self.key_group_range.iter() {
                let Some(map) = table.map(kg) else { continue };
                for (key, namespace) in map.written_since_snapshot() {
                    m.keys += 1;
                    // A list's appends are merge operands, counted below: its new elements
                    // only, merged under their key by the flush.
                    m.entries += u64::from(!list);
                    m.bytes += if list {
                        table.sst_entry_bytes(key, namespace, 0)
                    } else {
                        let value = map.get(key, namespace).copied().unwrap_or(0);
                        table.sst_entry_bytes(key, namespace, value)
                    };
                }
            }
            if list {
                // Each appended element, with its TTL timestamp as the files weigh it.
                let one = table.sst_entry_bytes(&StateKey::Int(0), &Namespace::Void, 1)
                    - table.sst_entry_bytes(&StateKey::Int(0), &Namespace::Void, 0);
                m.bytes += table.appended_since_snapshot() * one;
                m.entries += table.appended_since_snapshot();
            }
        }
        m
    }

    /// `value += delta` for an `int` key of a value state with TTL, at `now_millis`
    /// (processing time): see [`super::ttl`]. Sets the current key as [`Self::add_int`] does.
    pub fn add_int_ttl(
        &mut self,
        key: i32,
        kg: u32,
        state: StateId,
        namespace: Namespace,
        delta: i64,
        now_millis: i64,
    ) -> Result<i64, String> {
        let key = self.enter_int_key(key, kg)?;
        self.table_mut(state)?
            .ttl_add(kg, key, namespace, delta, now_millis)
    }

    /// `ListState.add` for an `int` key at `now_millis`; returns the list's length.
    pub fn list_append_int(
        &mut self,
        key: i32,
        kg: u32,
        state: StateId,
        namespace: Namespace,
        now_millis: i64,
    ) -> Result<i64, String> {
        let key = self.enter_int_key(key, kg)?;
        self.table_mut(state)?
            .list_append(kg, key, namespace, now_millis)
    }

    /// The heap's incremental TTL cleanup after `accesses` state accesses (`value()` and
    /// `update()` are two).
    pub fn ttl_accessed(&mut self, state: StateId, accesses: u32, now_millis: i64) {
        if let Some(table) = self.tables.get_mut(state.0) {
            for _ in 0..accesses {
                table.incremental_cleanup(now_millis);
            }
        }
    }

    /// RocksDB's TTL compaction filter: expired entries and list elements dropped.
    pub fn purge_expired(&mut self, now_millis: i64) {
        for table in &mut self.tables {
            table.purge_expired(now_millis);
        }
    }

    /// `setCurrentKey` for an `int` key in `kg` (its group, which the caller has at hand): the
    /// key type and range checks of [`Self::set_current_key`]; the key, for the state access.
    fn enter_int_key(&mut self, key: i32, kg: u32) -> Result<StateKey, String> {
        let key = StateKey::Int(key);
        self.key_group_of(&key)?;
        self.current_key = Some((key.clone(), kg));
        Ok(key)
    }

    fn table_mut(&mut self, state: StateId) -> Result<&mut StateTable, String> {
        self.tables
            .get_mut(state.0)
            .ok_or_else(|| format!("unknown state {state:?}"))
    }

    /// Totals over all tables, for a UI.
    pub fn counters(&self) -> CowCounters {
        self.tables.iter().fold(CowCounters::default(), |a, t| {
            let c = t.counters();
            CowCounters {
                entries: a.entries + c.entries,
                copies_since_snapshot: a.copies_since_snapshot + c.copies_since_snapshot,
                copies_total: a.copies_total + c.copies_total,
            }
        })
    }

    /// Checkpoints whose snapshot is still held (async part running), ascending.
    pub fn running_snapshots(&self) -> impl Iterator<Item = CheckpointId> + '_ {
        self.running.keys().copied()
    }

    /// The synchronous part of a checkpoint: copy-on-write snapshots of every table (held until
    /// `release_snapshot`) and the stream's content and layout. Re-snapshotting a checkpoint id
    /// releases its previous snapshot first.
    pub fn snapshot(&mut self, checkpoint_id: CheckpointId) -> KeyedStateSnapshot {
        self.release_snapshot(checkpoint_id);
        let mut versions = Vec::with_capacity(self.tables.len());
        let mut per_kg: BTreeMap<u32, Vec<Vec<SnapshotEntry>>> = BTreeMap::new();
        let n = self.tables.len();
        for (s, table) in self.tables.iter_mut().enumerate() {
            let (version, maps) = table.snapshot();
            versions.push(version);
            for (kg, map) in self.key_group_range.iter().zip(maps.iter()) {
                for (key, namespace, value) in map.iter() {
                    let slot = per_kg.entry(kg).or_insert_with(|| vec![Vec::new(); n]);
                    slot[s].push(SnapshotEntry {
                        key: key.clone(),
                        namespace: namespace.clone(),
                        value: *value,
                        stamps: table.ttl_stamps(key, namespace).to_vec(),
                    });
                }
            }
        }
        self.running.insert(checkpoint_id, versions);

        let value_states: Vec<ValueStateDescriptor> =
            self.tables.iter().map(|t| t.descriptor.clone()).collect();
        let tables = &self.tables;
        let (header_bytes, offsets, state_size) = layout(
            self.key_group_range,
            self.key_serializer,
            &value_states,
            &self.timer_services,
            |s, kg| {
                per_kg.get(&kg).map_or(0, |states| {
                    states[s]
                        .iter()
                        .map(|e| tables[s].entry_bytes(&e.key, &e.namespace, e.value))
                        .sum()
                })
            },
        );
        KeyedStateSnapshot {
            checkpoint_id,
            max_parallelism: self.max_parallelism,
            key_group_range: self.key_group_range,
            key_serializer: self.key_serializer,
            value_states,
            timer_services: self.timer_services.clone(),
            key_groups: per_kg
                .into_iter()
                .map(|(key_group, states)| KeyGroupSnapshot { key_group, states })
                .collect(),
            offsets,
            header_bytes,
            state_size,
        }
    }

    /// The async part finished (or was aborted): writers stop copying for this snapshot.
    /// Unknown ids are ignored.
    pub fn release_snapshot(&mut self, checkpoint_id: CheckpointId) {
        if let Some(versions) = self.running.remove(&checkpoint_id) {
            for (table, version) in self.tables.iter_mut().zip(versions) {
                table.release_snapshot(version);
            }
        }
    }

    /// `HeapRestoreOperation`: a backend for `key_group_range` holding exactly the key groups of
    /// `snapshots` inside that range (rescaling hands each new owner its groups). Every snapshot
    /// must share the max parallelism and key type; states and timer services are the union. With no
    /// snapshots at all (a subtask that gets no state) the key type defaults to `Int`.
    pub fn restore(
        max_parallelism: u32,
        key_group_range: KeyGroupRange,
        snapshots: &[KeyedStateSnapshot],
    ) -> Result<Self, String> {
        let key_serializer = snapshots
            .first()
            .map_or(SerializerKind::Int, |s| s.key_serializer);
        let mut backend =
            HeapKeyedStateBackend::new(max_parallelism, key_group_range, key_serializer)?;
        for snap in snapshots {
            if snap.max_parallelism != max_parallelism {
                return Err(format!(
                    "snapshot has max parallelism {}, job has {max_parallelism}; key groups cannot be remapped",
                    snap.max_parallelism
                ));
            }
            if snap.key_serializer != key_serializer {
                return Err("snapshots disagree on the key type".to_string());
            }
            let ids = snap
                .value_states
                .iter()
                .map(|d| backend.register_value_state(d.clone()))
                .collect::<Result<Vec<_>, _>>()?;
            for service in &snap.timer_services {
                backend.register_timer_service(service);
            }
            for kg in snap
                .key_groups
                .iter()
                .filter(|kg| key_group_range.contains(kg.key_group))
            {
                for (s, entries) in kg.states.iter().enumerate() {
                    let id = ids
                        .get(s)
                        .ok_or("key group lists more states than the snapshot declares")?;
                    let table = &mut backend.tables[id.0];
                    for e in entries {
                        table.restore_stamps(kg.key_group, &e.key, &e.namespace, &e.stamps);
                        table
                            .map_mut(kg.key_group)
                            .ok_or("key group outside range")?
                            .put(e.key.clone(), e.namespace.clone(), e.value);
                    }
                }
            }
        }
        Ok(backend)
    }
}

#[cfg(test)]
#[path = "heap_backend_tests.rs"]
mod tests;
