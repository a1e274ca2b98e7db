//! What travels on a channel: buffers of records, and events that need no credit.

use crate::barrier::CheckpointBarrier;
use crate::types::CheckpointId;

/// One record. `origin`/`seq` identify it job-wide (source subtask and its sequence number), so
/// exactly-once can be verified; `bytes` is its serialized size including the length header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record {
    pub key: i32,
    pub value: i64,
    pub origin: u32,
    pub seq: u64,
    pub bytes: u32,
}

/// A network buffer (`Buffer` / `BufferConsumer`). `bytes` counts every byte written into it,
/// including the head of a record that spans into the next buffer; the record itself travels with
/// the buffer it completes in, where the deserializer can read it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NetBuffer {
    pub records: Vec<Record>,
    pub bytes: u32,
    /// A flushed slice of a buffer the producer is still writing: it shares that buffer's
    /// memory segment, so reading it returns nothing to the pool.
    pub slice: bool,
}

/// Events (`AbstractEvent`s): serialized into their own buffers, sent without credit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NetEvent {
    Barrier(CheckpointBarrier),
    CancelCheckpointMarker(CheckpointId),
    /// `EndOfData`: the producer has no more records; barriers may still follow (final checkpoint).
    EndOfData,
    EndOfPartition,
}

#[derive(Debug, Clone, PartialEq, Eq)]
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
