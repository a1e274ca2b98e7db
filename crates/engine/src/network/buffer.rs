//! What travels on a channel: buffers of records, and events that need no credit.

use crate::barrier::CheckpointBarrier;
use crate::scenario::UPPER_BOUND_MAX_PARALLELISM;
use crate::state::{assign_to_key_group, java_hash_i32};
use crate::types::CheckpointId;

/// One record. `origin`/`seq` identify it job-wide (source subtask and its sequence number), so
/// exactly-once can be verified; `bytes` is its serialized size including the length header.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
pub struct Record {
    pub key: i32,
    pub value: i64,
    pub origin: u32,
    pub seq: u64,
    pub bytes: u32,
    /// The key's group, once a hash partitioner or keyed operator computed it, as
    /// `max_parallelism << 16 | key_group` (0: not yet). A cache of a pure function of `key`
    /// that lives in the struct's padding: a record keyed twice by the same max parallelism
    /// (keyBy, then a keyed operator or another keyBy) hashes its key once.
    pub(crate) key_group_memo: u32,
}

impl Record {
    pub fn new(key: i32, value: i64, origin: u32, seq: u64, bytes: u32) -> Record {
        Record {
            key,
            value,
            origin,
            seq,
            bytes,
            key_group_memo: 0,
        }
    }

    /// `KeyGroupRangeAssignment.assignToKeyGroup(key, maxParallelism)`.
    #[inline]
    pub fn key_group(&self, max_parallelism: u32) -> u32 {
        self.remembered_key_group(max_parallelism)
            .unwrap_or_else(|| assign_to_key_group(java_hash_i32(self.key), max_parallelism))
    }

    /// [`Self::key_group`], and the memo a copy of this record should carry to remember it for
    /// the next keyBy or keyed operator of the same max parallelism (Flink's bound keeps both
    /// halves of the memo in range; a larger one is simply not cached).
    #[inline]
    pub fn key_group_with_memo(&self, max_parallelism: u32) -> (u32, u32) {
        if let Some(kg) = self.remembered_key_group(max_parallelism) {
            return (kg, self.key_group_memo);
        }
        let kg = assign_to_key_group(java_hash_i32(self.key), max_parallelism);
        let memo = if (1..=UPPER_BOUND_MAX_PARALLELISM).contains(&max_parallelism) {
            max_parallelism << 16 | kg
        } else {
            self.key_group_memo
        };
        (kg, memo)
    }

    #[inline]
    fn remembered_key_group(&self, max_parallelism: u32) -> Option<u32> {
        (self.key_group_memo != 0 && self.key_group_memo >> 16 == max_parallelism)
            .then_some(self.key_group_memo & 0xffff)
    }
}

/// Equal records are the same record with the same content; whether a key group is remembered
/// is not part of it.
impl PartialEq for Record {
    fn eq(&self, other: &Record) -> bool {
        (self.key, self.value, self.origin, self.seq, self.bytes)
            == (other.key, other.value, other.origin, other.seq, other.bytes)
    }
}

impl Eq for Record {}

/// A network buffer (`Buffer` / `BufferConsumer`). `bytes` counts every byte written into it,
/// including the head of a record that spans into the next buffer; the record itself travels with
/// the buffer it completes in, where the deserializer can read it.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct NetBuffer {
    pub records: Vec<Record>,
    pub bytes: u32,
    /// A flushed slice of a buffer the producer is still writing: it shares that buffer's
    /// memory segment, so reading it returns nothing to the pool.
    pub slice: bool,
}

/// Events (`AbstractEvent`s): serialized into their own buffers, sent without credit.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum NetEvent {
    Barrier(CheckpointBarrier),
    CancelCheckpointMarker(CheckpointId),
    /// `EndOfData`: the producer has no more records; barriers may still follow (final checkpoint).
    EndOfData,
    EndOfPartition,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum NetItem {
    Buffer(NetBuffer),
    Event(NetEvent),
}

impl NetItem {
    pub fn data_bytes(&self) -> u32 {
        match self {
            NetItem::Buffer(b) => b.bytes,
            NetItem::Event(_) => 0,
        }
    }
}
