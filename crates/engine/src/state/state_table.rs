//! `StateTable` (`CopyOnWriteStateTable`): one registered keyed state of one subtask, split into one
//! `CopyOnWriteStateMap` per key group of the subtask's range, so a snapshot can be written (and a
//! restore read) key group by key group.

use serde::{Deserialize, Serialize};

use super::cow_state_map::{CopyOnWriteStateMap, CopyOnWriteStateMapSnapshot, CowCounters};
use super::key_group::{KeyGroupRange, StateKey};
use super::meta_info::{BackendStateType, SerializerKind, StateMetaInfo};

/// The namespace half of a state entry's `(key, namespace)` address.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Namespace {
    /// `VoidNamespace`: plain keyed state outside windows.
    Void,
    /// `TimeWindow`: window state, e.g. a windowed sum per (key, window).
    TimeWindow { start: i64, end: i64 },
}

/// `VoidNamespace` adds nothing to an address's hash (it is the only namespace of plain keyed
/// state), so a per-key counter hashes just its key.
impl std::hash::Hash for Namespace {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        if let Namespace::TimeWindow { start, end } = self {
            state.write_i64(*start);
            state.write_i64(*end);
        }
    }
}

impl Namespace {
    /// Bytes the namespace serializer writes: `VoidNamespaceSerializer` writes one byte so the stream
    /// makes progress; `TimeWindow.Serializer` writes start and end as two longs.
    pub fn serialized_size(&self) -> u64 {
        match self {
            Namespace::Void => 1,
            Namespace::TimeWindow { .. } => 16,
        }
    }
}

/// `ValueStateDescriptor` for a value modelled as an `i64`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ValueStateDescriptor {
    pub name: String,
    /// `VoidNamespace` or `TimeWindow`: only feeds the header's namespace-serializer entry.
    pub namespace_serializer: SerializerKind,
    /// Serialized bytes per value. 8 is `LongSerializer`; a larger figure stands for a richer value
    /// (say an aggregate POJO) whose content the simulation summarises as one `i64`.
    pub value_bytes: u32,
}

impl ValueStateDescriptor {
    /// `ValueState<Long>` outside windows, like the seed's per-key counter.
    pub fn long(name: &str) -> Self {
        ValueStateDescriptor {
            name: name.to_string(),
            namespace_serializer: SerializerKind::VoidNamespace,
            value_bytes: 8,
        }
    }

    /// `ValueState<Long>` per window, like a window operator's running sum.
    pub fn windowed_long(name: &str) -> Self {
        ValueStateDescriptor {
            namespace_serializer: SerializerKind::TimeWindow,
            ..Self::long(name)
        }
    }

    /// `RegisteredKeyValueStateBackendMetaInfo.snapshot()`.
    pub fn meta_info(&self) -> StateMetaInfo {
        StateMetaInfo {
            name: self.name.clone(),
            backend_state_type: BackendStateType::KeyValue,
            options: vec![("KEYED_STATE_TYPE".into(), "VALUE".into())],
            serializers: vec![
                ("NAMESPACE_SERIALIZER".into(), self.namespace_serializer),
                ("VALUE_SERIALIZER".into(), SerializerKind::Long),
            ],
        }
    }
}

/// One state's maps, indexed by `key group - range.start`.
#[derive(Clone, Debug)]
pub struct StateTable {
    pub descriptor: ValueStateDescriptor,
    key_group_range: KeyGroupRange,
    maps: Vec<CopyOnWriteStateMap<StateKey, Namespace, i64>>,
}

impl StateTable {
    pub fn new(descriptor: ValueStateDescriptor, key_group_range: KeyGroupRange) -> Self {
        let maps = (0..key_group_range.len())
            .map(|_| CopyOnWriteStateMap::new())
            .collect();
        StateTable {
            descriptor,
            key_group_range,
            maps,
        }
    }

    pub fn map(&self, key_group: u32) -> Option<&CopyOnWriteStateMap<StateKey, Namespace, i64>> {
        if !self.key_group_range.contains(key_group) {
            return None;
        }
        self.maps
            .get((key_group - self.key_group_range.start) as usize)
    }

    pub fn map_mut(
        &mut self,
        key_group: u32,
    ) -> Option<&mut CopyOnWriteStateMap<StateKey, Namespace, i64>> {
        if !self.key_group_range.contains(key_group) {
            return None;
        }
        self.maps
            .get_mut((key_group - self.key_group_range.start) as usize)
    }

    /// Serialized bytes of one entry: namespace, key, value (the order Flink writes them).
    pub fn entry_bytes(&self, key: &StateKey, namespace: &Namespace) -> u64 {
        namespace.serialized_size() + key.serialized_size() + u64::from(self.descriptor.value_bytes)
    }

    /// `stateSnapshot()`: snapshot every key group's map (ascending key group). All maps of a table
    /// advance together, so the one returned version identifies the snapshot for `release_snapshot`.
    pub fn snapshot(
        &mut self,
    ) -> (
        u64,
        Vec<CopyOnWriteStateMapSnapshot<StateKey, Namespace, i64>>,
    ) {
        let snapshots: Vec<_> = self.maps.iter_mut().map(|m| m.snapshot()).collect();
        let version = snapshots.first().map_or(0, |s| s.version());
        (version, snapshots)
    }

    pub fn release_snapshot(&mut self, version: u64) {
        for m in &mut self.maps {
            m.release_snapshot(version);
        }
    }

    pub fn counters(&self) -> CowCounters {
        self.maps.iter().fold(CowCounters::default(), |acc, m| {
            let c = m.counters();
            CowCounters {
                entries: acc.entries + c.entries,
                copies_since_snapshot: acc.copies_since_snapshot + c.copies_since_snapshot,
                copies_total: acc.copies_total + c.copies_total,
            }
        })
    }
}
