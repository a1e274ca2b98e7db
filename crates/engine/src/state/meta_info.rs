//! Byte sizes of the headers Flink writes at the start of a state snapshot stream:
//! `KeyedBackendSerializationProxy` / `OperatorBackendSerializationProxy` and the
//! `StateMetaInfoSnapshot` of each registered state (`StateMetaInfoSnapshotReadersWriters`).
//!
//! Nothing is serialised; the sizes are summed from the same fields Flink writes, with class and
//! option names spelled as in Flink because they dominate the header (a `writeUTF` costs 2 + length).
//! The serializer snapshots assumed are Flink's built-in ones for the types the simulator models.

use serde::{Deserialize, Serialize};

/// `VersionedIOReadableWritable.write`: the proxy's `int` version (no magic; decoded from Flink
/// 2.3.0 checkpoints, keyed and operator state alike).
const VERSIONED_HEADER: u64 = 4;
/// `TypeSerializerSnapshotSerializationUtil.writeSerializerSnapshot` wraps each snapshot in a
/// versioned proxy: one `int`.
const SNAPSHOT_PROXY_VERSION: u64 = 4;

/// `DataOutput.writeUTF` of an ASCII string: a `short` length, then one byte per char.
pub fn utf_len(s: &str) -> u64 {
    2 + s.len() as u64
}

/// The serializers the simulator's states use, each standing for a Flink built-in serializer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum SerializerKind {
    Int,
    Long,
    String,
    VoidNamespace,
    TimeWindow,
    BytePrimitiveArray,
    /// `TimerSerializer` over a key and a namespace serializer (heap timers' element type).
    Timer,
    /// `TtlSerializer` over `Long`: a `TtlValue<Long>` (timestamp, value).
    TtlLong,
    /// `ListSerializer<Long>`.
    ListOfLong,
    /// `ListSerializer<TtlValue<Long>>`: a list state with TTL.
    ListOfTtlLong,
}

impl SerializerKind {
    /// Class name of the serializer's `TypeSerializerSnapshot`, which `writeVersionedSnapshot` writes.
    fn snapshot_class(self) -> &'static str {
        match self {
            SerializerKind::Int => {
                "org.apache.flink.api.common.typeutils.base.IntSerializer$IntSerializerSnapshot"
            }
            SerializerKind::Long => {
                "org.apache.flink.api.common.typeutils.base.LongSerializer$LongSerializerSnapshot"
            }
            SerializerKind::String => {
                "org.apache.flink.api.common.typeutils.base.StringSerializer$StringSerializerSnapshot"
            }
            SerializerKind::VoidNamespace => {
                "org.apache.flink.runtime.state.VoidNamespaceSerializer$VoidNamespaceSerializerSnapshot"
            }
            SerializerKind::TimeWindow => {
                "org.apache.flink.streaming.api.windowing.windows.TimeWindow$Serializer$TimeWindowSerializerSnapshot"
            }
            SerializerKind::BytePrimitiveArray => {
                "org.apache.flink.api.common.typeutils.base.array.BytePrimitiveArraySerializer$BytePrimitiveArraySerializerSnapshot"
            }
            SerializerKind::Timer => "org.apache.flink.streaming.api.operators.TimerSerializerSnapshot",
            SerializerKind::TtlLong => {
                "org.apache.flink.runtime.state.ttl.TtlStateFactory$TtlSerializerSnapshot"
            }
            SerializerKind::ListOfLong | SerializerKind::ListOfTtlLong => {
                "org.apache.flink.api.common.typeutils.base.ListSerializerSnapshot"
            }
        }
    }

    /// `TypeSerializerSnapshot.writeVersionedSnapshot`: class name, `int` version, then the body.
    /// Simple snapshots have an empty body; the timer one is a `CompositeTypeSerializerSnapshot`
    /// (magic + outer version, then nested snapshots: magic + version + count + each nested one).
    pub fn versioned_snapshot_len(self, timer_key: SerializerKind) -> u64 {
        // A `CompositeTypeSerializerSnapshot`: magic + outer version, then the nested
        // snapshots (magic + version + count + each).
        let composite = |nested: &[SerializerKind]| -> u64 {
            4 + 4
                + (4 + 4 + 4)
                + nested
                    .iter()
                    .map(|s| s.versioned_snapshot_len(timer_key))
                    .sum::<u64>()
        };
        let body = match self {
            SerializerKind::Timer => composite(&[timer_key, SerializerKind::VoidNamespace]),
            SerializerKind::TtlLong => composite(&[SerializerKind::Long, SerializerKind::Long]),
            SerializerKind::ListOfLong => composite(&[SerializerKind::Long]),
            SerializerKind::ListOfTtlLong => composite(&[SerializerKind::TtlLong]),
            _ => 0,
        };
        utf_len(self.snapshot_class()) + 4 + body
    }
}

/// `StateMetaInfoSnapshot.BackendStateType`; the ordinal is written but only its size matters here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum BackendStateType {
    KeyValue,
    Operator,
    Broadcast,
    PriorityQueue,
}

/// `StateMetaInfoSnapshot`: what the header says about one registered state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StateMetaInfo {
    pub name: String,
    pub backend_state_type: BackendStateType,
    /// Options map, e.g. `KEYED_STATE_TYPE → VALUE` or `OPERATOR_STATE_DISTRIBUTION_MODE → SPLIT_DISTRIBUTE`.
    pub options: Vec<(String, String)>,
    /// Serializer map, e.g. `NAMESPACE_SERIALIZER`, `VALUE_SERIALIZER`.
    pub serializers: Vec<(String, SerializerKind)>,
}

impl StateMetaInfo {
    /// Bytes `StateMetaInfoSnapshotReadersWriters.CurrentWriterImpl` writes: name, type ordinal,
    /// options (count + pairs), serializers (count + key + proxied snapshot), and nothing after.
    pub fn serialized_len(&self, key_serializer: SerializerKind) -> u64 {
        let options: u64 = self
            .options
            .iter()
            .map(|(k, v)| utf_len(k) + utf_len(v))
            .sum();
        let serializers: u64 = self
            .serializers
            .iter()
            .map(|(k, s)| {
                utf_len(k) + SNAPSHOT_PROXY_VERSION + s.versioned_snapshot_len(key_serializer)
            })
            .sum();
        utf_len(&self.name) + 4 + 4 + options + 4 + serializers
    }
}

/// `KeyedBackendSerializationProxy.write`: versioned header, compression flag, the key serializer's
/// snapshot, a `short` state count, then every state's meta info.
pub fn keyed_backend_header_len(key_serializer: SerializerKind, states: &[StateMetaInfo]) -> u64 {
    let metas: u64 = states
        .iter()
        .map(|s| s.serialized_len(key_serializer))
        .sum();
    VERSIONED_HEADER
        + 1
        + SNAPSHOT_PROXY_VERSION
        + key_serializer.versioned_snapshot_len(key_serializer)
        + 2
        + metas
}

/// `OperatorBackendSerializationProxy.write`: versioned header, compression flag, `short` count and
/// meta infos of the operator states, then the same for broadcast states.
pub fn operator_backend_header_len(states: &[StateMetaInfo], broadcast: &[StateMetaInfo]) -> u64 {
    let len = |v: &[StateMetaInfo]| -> u64 {
        2 + v
            .iter()
            .map(|s| s.serialized_len(SerializerKind::Int))
            .sum::<u64>()
    };
    VERSIONED_HEADER + 1 + len(states) + len(broadcast)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_sizes_follow_the_written_fields() {
        assert_eq!(utf_len("VALUE"), 7);
        let value_state = StateMetaInfo {
            name: "count".into(),
            backend_state_type: BackendStateType::KeyValue,
            options: vec![("KEYED_STATE_TYPE".into(), "VALUE".into())],
            serializers: vec![
                ("NAMESPACE_SERIALIZER".into(), SerializerKind::VoidNamespace),
                ("VALUE_SERIALIZER".into(), SerializerKind::Long),
            ],
        };
        let one = value_state.serialized_len(SerializerKind::Int);
        // name 7 + type 4 + options 4+18+7 + serializers 4 + (22+4+88+4) + (18+4+82+4): the 270
        // bytes of `count`'s meta info in a Flink 2.3.0 checkpoint of the seed's job.
        assert_eq!(
            one,
            7 + 4 + 4 + 18 + 7 + 4 + (22 + 4 + 88 + 4) + (18 + 4 + 82 + 4)
        );
        assert_eq!(one, 270);
        let header = keyed_backend_header_len(SerializerKind::Int, &[value_state]);
        assert_eq!(header, 4 + 1 + 4 + (80 + 4) + 2 + one);
    }

    #[test]
    fn an_operator_state_header_is_the_one_flink_writes() {
        // Decoded from Flink 2.3.0 checkpoints: a source's `SourceReaderState` header is 234
        // bytes, a committing sink's `streaming_committer_raw_states` 247.
        let list = |name: &str| StateMetaInfo {
            name: name.into(),
            backend_state_type: BackendStateType::Operator,
            options: vec![(
                "OPERATOR_STATE_DISTRIBUTION_MODE".into(),
                "SPLIT_DISTRIBUTE".into(),
            )],
            serializers: vec![(
                "VALUE_SERIALIZER".into(),
                SerializerKind::BytePrimitiveArray,
            )],
        };
        assert_eq!(
            operator_backend_header_len(&[list("SourceReaderState")], &[]),
            234
        );
        assert_eq!(
            operator_backend_header_len(&[list("streaming_committer_raw_states")], &[]),
            247
        );
    }
}
