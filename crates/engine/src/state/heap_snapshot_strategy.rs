//! `HeapSnapshotStrategy`: what a heap keyed-state snapshot contains and how many bytes Flink's
//! writer would put in the checkpoint stream for it.
//!
//! The stream layout (`HeapSnapshotStrategy.asyncSnapshot`) is:
//! 1. `KeyedBackendSerializationProxy`: a versioned header, the key serializer's snapshot and one
//!    `StateMetaInfoSnapshot` per registered state (names and serializer class names; see
//!    [`super::meta_info`]). Key-value states get ids first, then priority-queue (timer) states.
//! 2. For every key group of the range, ascending, the offset is recorded in
//!    `KeyGroupRangeOffsets`, then: the key-group id (`int`, 4 bytes), and for every state in id
//!    order: the state id (`short`, 2), the entry count (`int`, 4) and each entry as namespace, key,
//!    value. Empty key groups still cost 4 + 6 per state, which is why small state is dominated by
//!    fixed overhead: 64 key groups × (4 + 6 × states) per subtask.
//!
//! Heap timers (`register_timer_service`) are two priority-queue states (`_timer_state/event_…`
//! and `_timer_state/processing_…`); the simulator keeps no timers in them, so they contribute
//! their meta info and 6 bytes per key group.

use serde::{Deserialize, Serialize};

use super::key_group::{KeyGroupRange, StateKey};
use super::key_group_range_offsets::KeyGroupRangeOffsets;
use super::meta_info::{keyed_backend_header_len, BackendStateType, SerializerKind, StateMetaInfo};
use super::state_table::{Namespace, ValueStateDescriptor};
use crate::types::CheckpointId;

/// Key-group id `int` that opens each key group's section.
const KEY_GROUP_ID_BYTES: u64 = 4;
/// Per state in a key group: state id `short` + entry count `int`.
const STATE_SECTION_BYTES: u64 = 2 + 4;

/// One `(key, namespace) → value` mapping as written to the snapshot.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct SnapshotEntry {
    pub key: StateKey,
    pub namespace: Namespace,
    /// The value, or a list's length.
    pub value: i64,
    /// With TTL: the `TtlValue` timestamps (one for a value, one per list element). Left out
    /// of JSON when empty (stored checkpoints), always written in a simulation snapshot's
    /// compact bytes, which have no field names to tell a missing field by.
    #[serde(default)]
    pub stamps: Vec<i64>,
}

impl Serialize for SnapshotEntry {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let with_stamps = !s.is_human_readable() || !self.stamps.is_empty();
        let mut st = s.serialize_struct("SnapshotEntry", 3 + usize::from(with_stamps))?;
        st.serialize_field("key", &self.key)?;
        st.serialize_field("namespace", &self.namespace)?;
        st.serialize_field("value", &self.value)?;
        if with_stamps {
            st.serialize_field("stamps", &self.stamps)?;
        } else {
            st.skip_field("stamps")?;
        }
        st.end()
    }
}

/// The entries of one key group, per value state (indexed like `KeyedStateSnapshot::value_states`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyGroupSnapshot {
    pub key_group: u32,
    pub states: Vec<Vec<SnapshotEntry>>,
}

/// `KeyGroupsStateHandle` plus its content: a subtask's keyed state at one checkpoint, exact enough
/// to restore from and sized like Flink's file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyedStateSnapshot {
    pub checkpoint_id: CheckpointId,
    pub max_parallelism: u32,
    pub key_group_range: KeyGroupRange,
    pub key_serializer: SerializerKind,
    #[serde(with = "crate::types::snapshot_forms::json_when_compact")]
    pub value_states: Vec<ValueStateDescriptor>,
    pub timer_services: Vec<String>,
    /// Only key groups holding at least one entry, ascending.
    pub key_groups: Vec<KeyGroupSnapshot>,
    pub offsets: KeyGroupRangeOffsets,
    /// Bytes of the serialization-proxy header (offset of the first key group).
    pub header_bytes: u64,
    /// Total bytes of the stream: `StreamStateHandle.getStateSize()`. 0 when no state is registered,
    /// as Flink then returns an empty result.
    pub state_size: u64,
}

impl KeyedStateSnapshot {
    pub fn entry_count(&self) -> usize {
        self.key_groups
            .iter()
            .flat_map(|kg| kg.states.iter())
            .map(Vec::len)
            .sum()
    }

    /// `TtlValue`s the snapshot holds: a value's one, or each element of a list with TTL.
    pub fn ttl_values(&self) -> u64 {
        self.key_groups
            .iter()
            .flat_map(|kg| kg.states.iter().flatten())
            .map(|e| e.stamps.len() as u64)
            .sum()
    }

    /// Entries of `state` (index into `value_states`) in `key_group`, empty if none.
    pub fn entries(&self, state: usize, key_group: u32) -> &[SnapshotEntry] {
        self.key_groups
            .binary_search_by_key(&key_group, |kg| kg.key_group)
            .ok()
            .and_then(|i| self.key_groups[i].states.get(state))
            .map_or(&[], Vec::as_slice)
    }
}

/// `RegisteredPriorityQueueStateBackendMetaInfo.snapshot()` for the two queues of a timer service.
pub fn timer_meta_infos(service: &str) -> [StateMetaInfo; 2] {
    let queue = |domain: &str| StateMetaInfo {
        name: format!("_timer_state/{domain}_{service}"),
        backend_state_type: BackendStateType::PriorityQueue,
        options: Vec::new(),
        serializers: vec![("VALUE_SERIALIZER".into(), SerializerKind::Timer)],
    };
    [queue("event"), queue("processing")]
}

/// All meta infos in state-id order: key-value states first, then the timer queues.
pub fn meta_infos(
    value_states: &[ValueStateDescriptor],
    timer_services: &[String],
) -> Vec<StateMetaInfo> {
    let mut metas: Vec<StateMetaInfo> = value_states.iter().map(|d| d.meta_info()).collect();
    for service in timer_services {
        metas.extend(timer_meta_infos(service));
    }
    metas
}

/// Lays out the stream: returns (header bytes, per-key-group offsets, total bytes).
/// `entry_bytes(state, kg)` is the sum of serialized entry sizes of that state in that key group.
pub fn layout(
    key_group_range: KeyGroupRange,
    key_serializer: SerializerKind,
    value_states: &[ValueStateDescriptor],
    timer_services: &[String],
    entry_bytes: impl Fn(usize, u32) -> u64,
) -> (u64, KeyGroupRangeOffsets, u64) {
    let metas = meta_infos(value_states, timer_services);
    if metas.is_empty() {
        let offsets = vec![0; key_group_range.len() as usize];
        return (
            0,
            KeyGroupRangeOffsets {
                key_group_range,
                offsets,
            },
            0,
        );
    }
    let header = keyed_backend_header_len(key_serializer, &metas);
    let mut pos = header;
    let mut offsets = Vec::with_capacity(key_group_range.len() as usize);
    for kg in key_group_range.iter() {
        offsets.push(pos);
        pos += KEY_GROUP_ID_BYTES + STATE_SECTION_BYTES * metas.len() as u64;
        pos += (0..value_states.len())
            .map(|s| entry_bytes(s, kg))
            .sum::<u64>();
    }
    (
        header,
        KeyGroupRangeOffsets {
            key_group_range,
            offsets,
        },
        pos,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(stamps: Vec<i64>) -> SnapshotEntry {
        SnapshotEntry {
            key: StateKey::Int(7),
            namespace: Namespace::Void,
            value: 3,
            stamps,
        }
    }

    #[test]
    fn an_entry_leaves_empty_stamps_out_of_json_and_keeps_them_in_compact_bytes() {
        for e in [entry(vec![]), entry(vec![10, 20])] {
            let json = serde_json::to_string(&e).unwrap();
            assert_eq!(json.contains("stamps"), !e.stamps.is_empty(), "{json}");
            assert_eq!(serde_json::from_str::<SnapshotEntry>(&json).unwrap(), e);
            // Entries side by side, as a key group holds them: a field left out of one would
            // shift the next one's bytes.
            let bytes = postcard::to_allocvec(&[e.clone(), entry(vec![1])]).unwrap();
            let back: [SnapshotEntry; 2] = postcard::from_bytes(&bytes).unwrap();
            assert_eq!(back, [e, entry(vec![1])]);
        }
    }
}
