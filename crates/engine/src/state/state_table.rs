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

/// Which keyed state primitive a descriptor registers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StateKind {
    /// `ValueState<Long>`: the entry's `i64` is the value.
    #[default]
    Value,
    /// `ListState<Long>`: the entry's `i64` is the list's length. The elements' content is not
    /// kept (nothing reads it back); their count, and with TTL their timestamps, are.
    List,
}

/// `ValueStateDescriptor` / `ListStateDescriptor` for values modelled as an `i64`, optionally
/// with `StateTtlConfig` (`enableTimeToLive`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ValueStateDescriptor {
    pub name: String,
    /// `VoidNamespace` or `TimeWindow`: only feeds the header's namespace-serializer entry.
    pub namespace_serializer: SerializerKind,
    /// Serialized bytes per value (per element of a list). 8 is `LongSerializer`; a larger
    /// figure stands for a richer value (say an aggregate POJO) whose content the simulation
    /// summarises as one `i64`.
    pub value_bytes: u32,
    #[serde(default, skip_serializing_if = "is_value")]
    pub kind: StateKind,
    /// `StateTtlConfig.newBuilder(ttl)` with Flink's defaults (`OnCreateAndWrite`,
    /// `NeverReturnExpired`, processing time, cleanup in background), in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_millis: Option<u64>,
}

fn is_value(kind: &StateKind) -> bool {
    *kind == StateKind::Value
}

/// `TtlValue`'s timestamp: a `long` before each value (`TtlSerializer`).
pub const TTL_TIMESTAMP_BYTES: u64 = 8;
/// `ListSerializer` writes the list's length as an `int` before its elements.
pub const LIST_LENGTH_BYTES: u64 = 4;

impl ValueStateDescriptor {
    /// `ValueState<Long>` outside windows, like the seed's per-key counter.
    pub fn long(name: &str) -> Self {
        ValueStateDescriptor {
            name: name.to_string(),
            namespace_serializer: SerializerKind::VoidNamespace,
            value_bytes: 8,
            kind: StateKind::Value,
            ttl_millis: None,
        }
    }

    /// `ValueState<Long>` per window, like a window operator's running sum.
    pub fn windowed_long(name: &str) -> Self {
        ValueStateDescriptor {
            namespace_serializer: SerializerKind::TimeWindow,
            ..Self::long(name)
        }
    }

    /// `ListState<Long>` outside windows.
    pub fn list_of_long(name: &str) -> Self {
        ValueStateDescriptor {
            kind: StateKind::List,
            ..Self::long(name)
        }
    }

    /// The same descriptor with `enableTimeToLive(StateTtlConfig.newBuilder(ttl).build())`.
    pub fn with_ttl(self, ttl_millis: Option<u64>) -> Self {
        ValueStateDescriptor { ttl_millis, ..self }
    }

    /// Serialized bytes of one value, or one list element: with TTL, `TtlValue` adds its
    /// timestamp.
    pub fn element_bytes(&self) -> u64 {
        u64::from(self.value_bytes) + self.ttl_millis.map_or(0, |_| TTL_TIMESTAMP_BYTES)
    }

    /// Serialized bytes of an entry's value part: `value` is the value (value state) or the
    /// list's length (list state).
    pub fn value_part_bytes(&self, value: i64) -> u64 {
        match self.kind {
            StateKind::Value => self.element_bytes(),
            StateKind::List => LIST_LENGTH_BYTES + value.max(0) as u64 * self.element_bytes(),
        }
    }

    /// `RegisteredKeyValueStateBackendMetaInfo.snapshot()`.
    pub fn meta_info(&self) -> StateMetaInfo {
        let ttl = self.ttl_millis.is_some();
        let (keyed_state_type, value_serializer) = match (self.kind, ttl) {
            (StateKind::Value, false) => ("VALUE", SerializerKind::Long),
            (StateKind::Value, true) => ("VALUE", SerializerKind::TtlLong),
            (StateKind::List, false) => ("LIST", SerializerKind::ListOfLong),
            (StateKind::List, true) => ("LIST", SerializerKind::ListOfTtlLong),
        };
        StateMetaInfo {
            name: self.name.clone(),
            backend_state_type: BackendStateType::KeyValue,
            options: vec![("KEYED_STATE_TYPE".into(), keyed_state_type.into())],
            serializers: vec![
                ("NAMESPACE_SERIALIZER".into(), self.namespace_serializer),
                ("VALUE_SERIALIZER".into(), value_serializer),
            ],
        }
    }
}

/// One state's maps, indexed by `key group - range.start`.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct StateTable {
    #[serde(with = "crate::types::snapshot_forms::json_when_compact")]
    pub descriptor: ValueStateDescriptor,
    pub(super) key_group_range: KeyGroupRange,
    pub(super) maps: Vec<CopyOnWriteStateMap<StateKey, Namespace, i64>>,
    /// With TTL: the entries' timestamps and the incremental-cleanup visitor.
    pub(super) ttl: Option<super::ttl::TtlStamps>,
    /// List state: elements appended since the last snapshot (RocksDB's merge operands in the
    /// memtable at the next flush).
    pub(super) appended_since_snapshot: u64,
}

impl StateTable {
    pub fn new(descriptor: ValueStateDescriptor, key_group_range: KeyGroupRange) -> Self {
        let maps = (0..key_group_range.len())
            .map(|_| CopyOnWriteStateMap::new())
            .collect();
        StateTable {
            ttl: descriptor.ttl_millis.map(super::ttl::TtlStamps::new),
            descriptor,
            key_group_range,
            maps,
            appended_since_snapshot: 0,
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

    /// Serialized bytes of one entry: namespace, key, value (the order Flink writes them);
    /// `value` is the entry's `i64` (a list's length).
    pub fn entry_bytes(&self, key: &StateKey, namespace: &Namespace, value: i64) -> u64 {
        namespace.serialized_size()
            + key.serialized_size()
            + self.descriptor.value_part_bytes(value)
    }

    /// [`Self::entry_bytes`] as RocksDB stores the entry: its TTL timestamps weigh
    /// [`super::rocksdb::TTL_TIMESTAMP_SST_BYTES`] each.
    pub fn sst_entry_bytes(&self, key: &StateKey, namespace: &Namespace, value: i64) -> u64 {
        let stamps = match (self.descriptor.ttl_millis, self.descriptor.kind) {
            (None, _) => 0,
            (Some(_), StateKind::Value) => 1,
            (Some(_), StateKind::List) => value.max(0) as u64,
        };
        self.entry_bytes(key, namespace, value)
            - stamps * (TTL_TIMESTAMP_BYTES - super::rocksdb::TTL_TIMESTAMP_SST_BYTES)
    }

    /// `stateSnapshot()`: snapshot every key group's map (ascending key group). All maps of a table
    /// advance together, so the one returned version identifies the snapshot for `release_snapshot`.
    pub fn snapshot(
        &mut self,
    ) -> (
        u64,
        Vec<CopyOnWriteStateMapSnapshot<StateKey, Namespace, i64>>,
    ) {
        self.appended_since_snapshot = 0;
        let snapshots: Vec<_> = self.maps.iter_mut().map(|m| m.snapshot()).collect();
        let version = snapshots.first().map_or(0, |s| s.version());
        (version, snapshots)
    }

    /// List state: elements appended since the last snapshot.
    pub fn appended_since_snapshot(&self) -> u64 {
        self.appended_since_snapshot
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
