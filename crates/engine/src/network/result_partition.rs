//! Producer side: `ResultPartition` with one `PipelinedSubpartition` per consumer and a
//! `LocalBufferPool` of [N+1, 2N+8] buffers (flink-defaults §2). The pool is modelled at its
//! maximum, as on a TaskManager with spare network memory.

use std::collections::VecDeque;

use super::buffer::{NetBuffer, NetEvent, NetItem, Record};
use super::{GlobalChannelId, FLOATING_BUFFERS_PER_GATE, MAX_BUFFERS_PER_CHANNEL};
use super::{BARRIER_EVENT_BYTES, BUFFERS_PER_CHANNEL};

/// `PipelinedSubpartition`: finished buffers and events waiting for the consumer, plus the
/// buffer being written (`BufferBuilder`), whose fill level is kept in the partition's
/// [`OpenBuilder`] list.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Subpartition {
    pub(super) queue: VecDeque<NetItem>,
    /// Whether `queue[i]` is a priority event (an unaligned barrier at the head).
    priority_events: u32,
    /// The records of the buffer being written; whether it is open, and its bytes, are kept
    /// in [`OpenBuilder`].
    builder_records: Vec<Record>,
    /// Bytes of the builder already handed to the consumer as flushed slices.
    builder_read: u32,
    /// Buffers of this subpartition taken from the pool and not yet recycled: the builder, the
    /// queued ones and those a local consumer is still reading.
    pub(super) in_use: u32,
    /// `isBlocked`: an aligned barrier was handed over; no data until `resumeConsumption`.
    pub(super) blocked: bool,
    /// Remote channels: credit the consumer has announced and the sender not yet used.
    pub(super) credit: u32,
    /// Data buffers queued (`getBuffersInBacklog`).
    pub(super) backlog: u32,
    /// `bufferSize`: what each new buffer is trimmed to (the consumer's debloated size);
    /// `u32::MAX` without debloating, so buffers keep their segment size.
    pub(super) buffer_size: u32,
}

impl Subpartition {
    fn new() -> Self {
        Subpartition {
            queue: VecDeque::new(),
            priority_events: 0,
            builder_records: Vec::new(),
            builder_read: 0,
            in_use: 0,
            blocked: false,
            credit: BUFFERS_PER_CHANNEL,
            backlog: 0,
            buffer_size: u32::MAX,
        }
    }

    pub fn head_is_priority(&self) -> bool {
        self.priority_events > 0
    }

    /// Buffers and events waiting for the consumer.
    pub fn queue(&self) -> &VecDeque<NetItem> {
        &self.queue
    }

    /// Pool buffers this subpartition holds (builder, queue, a local consumer's).
    pub fn buffers_in_use(&self) -> u32 {
        self.in_use
    }

    /// `isBlocked`: an aligned barrier was handed over.
    pub fn is_blocked(&self) -> bool {
        self.blocked
    }

    /// Credit a remote consumer announced and the sender has not used.
    pub fn credit(&self) -> u32 {
        self.credit
    }

    /// `getBuffersInBacklog`.
    pub fn backlog(&self) -> u32 {
        self.backlog
    }

    /// The size new buffers are trimmed to, when debloating set one.
    pub fn buffer_size(&self) -> Option<u32> {
        (self.buffer_size != u32::MAX).then_some(self.buffer_size)
    }

    /// Bytes of data queued and not yet consumed (the in-flight data an unaligned barrier overtakes).
    pub fn queued_data_bytes(&self) -> u64 {
        self.queue.iter().map(|i| u64::from(i.data_bytes())).sum()
    }
}

/// In-flight data an unaligned barrier overtook in one subpartition: output channel state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Overtaken {
    pub bytes: u64,
    pub records: Vec<Record>,
}

impl Overtaken {
    pub fn of<'a>(items: impl Iterator<Item = &'a NetItem>) -> Overtaken {
        let mut o = Overtaken::default();
        for item in items {
            if let NetItem::Buffer(b) = item {
                o.bytes += u64::from(b.bytes);
                o.records.extend_from_slice(&b.records);
            }
        }
        o
    }
}

/// The fill level of a subpartition's open `BufferBuilder`. Emitting a record reads and writes
/// only this (twelve bytes per subpartition, side by side) and appends the record to the
/// partition's staging list; the records reach their builders in one pass when anything reads
/// a builder. The output flusher, and a consumer looking for flushed data, read only this too.
/// The simulator's own memory layout, not Flink's: a record into one of 128 subpartitions
/// would otherwise touch two cold cache lines.
#[derive(Debug, Clone, Copy, Default, serde::Serialize, serde::Deserialize)]
struct OpenBuilder {
    /// Bytes written into the buffer, including records still staged.
    bytes: u32,
    /// What the buffer holds: the segment, or less when debloating trimmed it (`trim`).
    capacity: u32,
    present: bool,
    /// `flushRequested`: the unread bytes may be read before the buffer is full.
    flush_requested: bool,
}

/// What emitting one record did to the partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EmitOutcome {
    /// Buffers finished (made available to the consumer) by this record.
    pub finished: u32,
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct ResultPartition {
    pub(super) subpartitions: Vec<Subpartition>,
    /// Per subpartition, its open builder's fill level.
    open: Vec<OpenBuilder>,
    /// Per subpartition, its consumer's channel, side by side for the notifications a flush
    /// sends to every consumer.
    consumers: Vec<GlobalChannelId>,
    /// Priority events queued over all subpartitions (usually none, so a notification need
    /// not look into the subpartition).
    priority_events: u32,
    /// Records written into open builders and not yet moved into them, oldest first, and
    /// beside them their subpartitions. Two lists, not one of pairs: in a pair the record sits
    /// off its alignment, and copying it there stalls on store forwarding.
    staged: Vec<Record>,
    staged_subs: Vec<u32>,
    /// `LocalBufferPool` size: 2N + 8 for a pipelined-bounded partition.
    pub(super) pool_size: u32,
    pub(super) in_use: u32,
    /// Subpartitions holding `MAX_BUFFERS_PER_CHANNEL` or more buffers.
    subpartitions_at_max: u32,
    pub(super) segment_size: u32,
    /// Producer task, as an index into the simulation's task list (to wake it on recycle).
    pub(super) producer: u32,
    /// Record vectors of consumed buffers, reused for new ones (the simulator's own memory,
    /// not Flink's: it keeps allocation out of the hot path).
    spare: Vec<Vec<Record>>,
}

impl ResultPartition {
    /// `getNumberOfSubpartitions`: one per consumer subtask.
    pub fn num_subpartitions(&self) -> u32 {
        self.subpartitions.len() as u32
    }

    /// The producing task, as an index into the simulation's task list.
    pub fn producer(&self) -> u32 {
        self.producer
    }

    /// Read-only: every change to a subpartition goes through `network/`.
    pub fn subpartitions(&self) -> &[Subpartition] {
        &self.subpartitions
    }

    /// Whether a barrier of `id` still waits in one of the subpartitions' queues.
    pub fn has_queued_barrier(&self, id: crate::types::CheckpointId) -> bool {
        self.subpartitions.iter().any(|s| {
            s.queue
                .iter()
                .any(|i| matches!(i, NetItem::Event(NetEvent::Barrier(b)) if b.id == id))
        })
    }

    /// Buffers taken from the `LocalBufferPool` and its size (for the live graph).
    pub fn pool_usage(&self) -> (u32, u32) {
        (self.in_use, self.pool_size)
    }

    pub fn new(producer: u32, consumers: Vec<GlobalChannelId>, segment_size: u32) -> Self {
        let n = consumers.len() as u32;
        let min = n + 1;
        let max = (n * BUFFERS_PER_CHANNEL + FLOATING_BUFFERS_PER_GATE).max(min);
        ResultPartition {
            open: vec![OpenBuilder::default(); consumers.len()],
            staged: Vec::new(),
            staged_subs: Vec::new(),
            subpartitions: consumers.iter().map(|_| Subpartition::new()).collect(),
            consumers,
            priority_events: 0,
            pool_size: max,
            in_use: 0,
            subpartitions_at_max: 0,
            segment_size,
            producer,
            spare: Vec::new(),
        }
    }

    /// Whether a consumer of `sub` may take something now: a priority event always, anything
    /// else unless blocked; with an empty queue, the flushed part of the builder.
    pub fn has_available(&self, sub: usize) -> bool {
        let s = &self.subpartitions[sub];
        if s.priority_events > 0 {
            return true;
        }
        if s.blocked {
            return false;
        }
        !s.queue.is_empty() || self.flushed_bytes(sub) > 0
    }

    /// Whether the next available item of `sub` is a data buffer (it needs credit on a remote
    /// channel).
    pub fn next_is_buffer(&self, sub: usize) -> bool {
        match self.subpartitions[sub].queue.front() {
            Some(NetItem::Buffer(_)) => true,
            Some(NetItem::Event(_)) => false,
            None => self.flushed_bytes(sub) > 0,
        }
    }

    /// The channel consuming `sub`.
    pub fn consumer(&self, sub: usize) -> GlobalChannelId {
        self.consumers[sub]
    }

    /// Whether `sub`'s next item is a priority event (an unaligned barrier).
    pub fn head_is_priority(&self, sub: usize) -> bool {
        self.priority_events > 0 && self.subpartitions[sub].head_is_priority()
    }

    /// Whether `sub` has a buffer being written (it counts as one of the subpartition's buffers).
    pub fn has_open_builder(&self, sub: usize) -> bool {
        self.open[sub].present
    }

    /// Unread bytes of `sub`'s builder that a flush made readable.
    fn flushed_bytes(&self, sub: usize) -> u32 {
        if self.open[sub].flush_requested {
            self.unread_bytes(sub)
        } else {
            0
        }
    }

    /// Bytes written into `sub`'s builder and not yet handed to the consumer.
    fn unread_bytes(&self, sub: usize) -> u32 {
        let open = self.open[sub];
        if open.present {
            open.bytes - self.subpartitions[sub].builder_read
        } else {
            0
        }
    }

    /// Moves the staged records into their builders, in emit order.
    fn materialize(&mut self) {
        if self.staged.is_empty() {
            return;
        }
        for (&sub, &record) in self.staged_subs.iter().zip(&self.staged) {
            // A record is staged only into a present builder, and every operation that
            // finishes or reads a builder materializes first.
            self.subpartitions[sub as usize]
                .builder_records
                .push(record);
        }
        self.staged.clear();
        self.staged_subs.clear();
    }

    /// A new, empty builder for `sub`.
    fn open_builder(&mut self, sub: usize, capacity: usize) {
        self.request(sub);
        let records = self.fresh_records(capacity);
        let s = &mut self.subpartitions[sub];
        s.builder_records = records;
        s.builder_read = 0;
        // `BufferWritingResultPartition.addToSubpartition` trims a new builder to the size the
        // consumer announced.
        let capacity = self.segment_size.min(s.buffer_size).max(1);
        self.open[sub] = OpenBuilder {
            bytes: 0,
            capacity,
            present: true,
            flush_requested: false,
        };
    }

    /// `LocalBufferPool.isAvailable`: a free buffer in the pool and no subpartition at its cap.
    pub fn is_available(&self) -> bool {
        self.in_use < self.pool_size && self.subpartitions_at_max == 0
    }

    fn request(&mut self, sub: usize) {
        self.in_use += 1;
        let s = &mut self.subpartitions[sub];
        s.in_use += 1;
        if s.in_use == MAX_BUFFERS_PER_CHANNEL {
            self.subpartitions_at_max += 1;
        }
    }

    /// Returns a consumed buffer's record vector for reuse.
    pub fn give_back(&mut self, mut records: Vec<Record>) {
        if self.spare.len() < 256 && records.capacity() > 0 {
            records.clear();
            self.spare.push(records);
        }
    }

    fn fresh_records(&mut self, capacity: usize) -> Vec<Record> {
        match self.spare.pop() {
            Some(v) => v,
            None => Vec::with_capacity(capacity),
        }
    }

    /// A buffer of `sub` goes back to the pool (consumed locally, or written to the network).
    /// [`Self::recycle`], and the producer task to wake when that made the exhausted pool
    /// available again.
    pub fn recycle_waking(&mut self, sub: usize) -> Option<u32> {
        let was = self.is_available();
        self.recycle(sub);
        (!was && self.is_available()).then_some(self.producer)
    }

    pub fn recycle(&mut self, sub: usize) {
        let s = &mut self.subpartitions[sub];
        if s.in_use == 0 {
            return;
        }
        if s.in_use == MAX_BUFFERS_PER_CHANNEL {
            self.subpartitions_at_max -= 1;
        }
        s.in_use -= 1;
        self.in_use -= 1;
    }

    /// `RecordWriter.emit`: serializes the record into `sub`'s current buffer. A record that does
    /// not fit spans into the next buffer and travels with it.
    pub fn emit(&mut self, sub: usize, record: Record) -> EmitOutcome {
        self.emit_remembering(sub, &record, record.key_group_memo)
    }

    /// [`Self::emit`] of a copy of `record` that carries `key_group_memo`. The memo is written
    /// into the copy where it lands: set on a copy on the stack first, the copy's read back
    /// stalled on store forwarding (a tenth of a bench-512 profile's samples sat there).
    #[inline]
    pub fn emit_remembering(
        &mut self,
        sub: usize,
        record: &Record,
        key_group_memo: u32,
    ) -> EmitOutcome {
        // The common case, kept small enough to inline: the record fits and leaves room.
        let open = &mut self.open[sub];
        if open.present && record.bytes < open.capacity - open.bytes {
            open.bytes += record.bytes;
            self.staged.push(*record);
            if let Some(staged) = self.staged.last_mut() {
                staged.key_group_memo = key_group_memo;
            }
            self.staged_subs.push(sub as u32);
            return EmitOutcome::default();
        }
        let mut record = *record;
        record.key_group_memo = key_group_memo;
        self.emit_spanning(sub, record)
    }

    /// `emit` for a record that needs a new builder, fills the current one or spans into the next.
    #[inline(never)]
    fn emit_spanning(&mut self, sub: usize, record: Record) -> EmitOutcome {
        let seg = self.segment_size;
        let mut outcome = EmitOutcome::default();
        // Small to start: under a buffer timeout most buffers leave with a few records.
        let capacity = ((seg / record.bytes.max(1)) as usize + 1).min(8);
        // The record goes straight into a builder: earlier ones first.
        self.materialize();
        if !self.open[sub].present {
            self.open_builder(sub, capacity);
        }
        let mut remaining = record.bytes;
        loop {
            let size = self.open[sub].capacity;
            let room = size - self.open[sub].bytes;
            if remaining <= room {
                self.open[sub].bytes += remaining;
                self.subpartitions[sub].builder_records.push(record);
                if self.open[sub].bytes == size {
                    self.finish_builder(sub);
                    outcome.finished += 1;
                }
                return outcome;
            }
            self.open[sub].bytes = size;
            remaining -= room;
            self.finish_builder(sub);
            outcome.finished += 1;
            self.open_builder(sub, capacity);
        }
    }

    /// Finishes the builder: its unread part is queued as a buffer that owns the segment. When
    /// flushed slices already carried everything, the segment goes straight back to the pool.
    fn finish_builder(&mut self, sub: usize) {
        self.materialize();
        let open = std::mem::take(&mut self.open[sub]);
        if !open.present {
            return;
        }
        let s = &mut self.subpartitions[sub];
        let b = NetBuffer {
            records: std::mem::take(&mut s.builder_records),
            bytes: open.bytes - s.builder_read,
            slice: false,
        };
        s.builder_read = 0;
        if b.bytes == 0 && b.records.is_empty() {
            self.recycle(sub);
        } else {
            s.queue.push_back(NetItem::Buffer(b));
            s.backlog += 1;
        }
    }

    /// `flushAll` (the output flusher's buffer timeout): what the builders hold so far becomes
    /// readable, without finishing them (`PipelinedSubpartition.flush`). Returns the subpartitions
    /// that got new data.
    pub fn flush_all(&mut self) -> Vec<usize> {
        let mut flushed = Vec::new();
        for sub in 0..self.subpartitions.len() {
            if self.unread_bytes(sub) > 0 && !self.open[sub].flush_requested {
                self.open[sub].flush_requested = true;
                flushed.push(sub);
            }
        }
        flushed
    }

    /// `broadcastEvent`: finishes every builder and queues the event behind the data.
    pub fn broadcast_event(&mut self, event: NetEvent) {
        for sub in 0..self.subpartitions.len() {
            self.finish_builder(sub);
            self.subpartitions[sub]
                .queue
                .push_back(NetItem::Event(event.clone()));
        }
    }

    /// `broadcastEvent(barrier, isPriorityEvent=true)` (`PipelinedSubpartition.processPriorityBuffer`):
    /// the barrier jumps ahead of every queued buffer; the buffers it overtook are output channel
    /// state. Returns, per subpartition, the overtaken bytes and records.
    pub fn broadcast_priority_event(&mut self, event: NetEvent) -> Vec<Overtaken> {
        let mut overtaken = Vec::with_capacity(self.subpartitions.len());
        for sub in 0..self.subpartitions.len() {
            self.finish_builder(sub);
            let s = &mut self.subpartitions[sub];
            overtaken.push(Overtaken::of(s.queue.iter()));
            // Behind earlier priority events, ahead of everything else.
            let at = s.priority_events as usize;
            s.queue.insert(at, NetItem::Event(event.clone()));
            s.priority_events += 1;
            self.priority_events += 1;
        }
        overtaken
    }

    /// `PipelinedSubpartition.alignedBarrierTimeout`: a barrier of checkpoint `id` still queued in
    /// `sub` becomes a priority event at the head; the data ahead of it is output channel state.
    /// Returns what it overtook, or `None` when the barrier had already been consumed.
    pub fn promote_barrier(
        &mut self,
        sub: usize,
        id: crate::types::CheckpointId,
    ) -> Option<Overtaken> {
        let s = &mut self.subpartitions[sub];
        let pos = s
            .queue
            .iter()
            .position(|i| matches!(i, NetItem::Event(NetEvent::Barrier(b)) if b.id == id))?;
        if pos < s.priority_events as usize {
            return None;
        }
        let ahead = Overtaken::of(s.queue.iter().take(pos));
        let Some(NetItem::Event(NetEvent::Barrier(b))) = s.queue.remove(pos) else {
            return None;
        };
        let at = s.priority_events as usize;
        s.queue
            .insert(at, NetItem::Event(NetEvent::Barrier(b.as_unaligned())));
        s.priority_events += 1;
        self.priority_events += 1;
        Some(ahead)
    }

    /// Restore: channel state of this subpartition goes back ahead of any new data.
    pub fn restore_channel_state(&mut self, sub: usize, records: Vec<Record>, bytes: u32) {
        self.request(sub);
        let s = &mut self.subpartitions[sub];
        s.queue.push_front(NetItem::Buffer(NetBuffer {
            records,
            bytes,
            slice: false,
        }));
        s.backlog += 1;
    }

    /// The consumer takes the next available item of `sub`. A data buffer stays in use until
    /// [`ResultPartition::recycle`] (a flushed slice owns no buffer and is not recycled).
    pub fn take(&mut self, sub: usize) -> Option<NetItem> {
        if !self.has_available(sub) {
            return None;
        }
        if self.subpartitions[sub].queue.is_empty() {
            // The flushed part of the builder, as a slice; the builder keeps being written.
            if !self.open[sub].present {
                return None;
            }
            self.materialize();
            let fresh = self.spare.pop().unwrap_or_default();
            let written = self.open[sub].bytes;
            let s = &mut self.subpartitions[sub];
            let slice = NetBuffer {
                records: std::mem::replace(&mut s.builder_records, fresh),
                bytes: written - s.builder_read,
                slice: true,
            };
            s.builder_read = written;
            self.open[sub].flush_requested = false;
            return Some(NetItem::Buffer(slice));
        }
        let s = &mut self.subpartitions[sub];
        let item = s.queue.pop_front()?;
        if s.priority_events > 0 {
            s.priority_events -= 1;
            self.priority_events -= 1;
        }
        match &item {
            NetItem::Buffer(_) => s.backlog = s.backlog.saturating_sub(1),
            NetItem::Event(NetEvent::Barrier(b)) if !b.options.is_unaligned() => {
                // `isBlockingUpstream`: an aligned barrier stops the subpartition (seed 000 §5.4);
                // at-least-once barriers do not block.
                if b.options.is_exactly_once() {
                    s.blocked = true;
                }
            }
            NetItem::Event(_) => {}
        }
        Some(item)
    }

    /// Serialized bytes of an event on the wire.
    pub fn event_bytes(_event: &NetEvent) -> u32 {
        BARRIER_EVENT_BYTES
    }

    /// Total queued data buffers across subpartitions (for the UI's buffer fill).
    pub fn queued_buffers(&self) -> u32 {
        self.subpartitions.iter().map(|s| s.backlog).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::barrier::{CheckpointBarrier, CheckpointOptions, CheckpointType};

    fn rec(bytes: u32) -> Record {
        Record::new(1, 0, 0, 0, bytes)
    }

    fn partition(n: u32) -> ResultPartition {
        ResultPartition::new(0, (0..n).collect(), 32 * 1024)
    }

    #[test]
    fn each_subpartition_knows_its_consumer() {
        let p = ResultPartition::new(0, vec![7, 3, 9], 32 * 1024);
        assert_eq!((0..3).map(|s| p.consumer(s)).collect::<Vec<_>>(), [7, 3, 9]);
    }

    #[test]
    fn pool_is_two_n_plus_eight() {
        assert_eq!(partition(2).pool_size, 12);
        assert_eq!(partition(1).pool_size, 10);
        assert_eq!(partition(128).pool_size, 264);
    }

    #[test]
    fn records_span_buffers_and_travel_with_the_buffer_they_complete_in() {
        let mut p = partition(1);
        let mut finished = 0;
        for _ in 0..32 {
            finished += p.emit(0, rec(1028)).finished;
        }
        // 31 records fill 31_868 bytes; the 32nd spans: 900 bytes here, 128 in the next buffer.
        assert_eq!(finished, 1);
        let NetItem::Buffer(b) = &p.subpartitions[0].queue[0] else {
            panic!()
        };
        assert_eq!(b.bytes, 32768);
        assert_eq!(b.records.len(), 31);
        assert_eq!(p.open[0].bytes, 128);
        assert_eq!(p.in_use, 2);
    }

    #[test]
    fn a_debloated_size_trims_new_buffers_only() {
        let mut p = partition(1);
        p.emit(0, rec(1000));
        // The consumer announces 4 KiB: the open builder keeps its 32 KiB.
        p.subpartitions[0].buffer_size = 4096;
        for _ in 0..32 {
            p.emit(0, rec(1000));
        }
        let sizes = |p: &ResultPartition| -> Vec<u32> {
            p.subpartitions[0]
                .queue
                .iter()
                .map(|i| i.data_bytes())
                .collect()
        };
        assert_eq!(sizes(&p), [32768]);
        // From the next builder on, each buffer holds 4096 bytes.
        for _ in 0..10 {
            p.emit(0, rec(1000));
        }
        assert_eq!(sizes(&p), [32768, 4096, 4096]);
        assert_eq!(p.subpartitions[0].buffer_size(), Some(4096));
    }

    #[test]
    fn a_subpartition_at_ten_buffers_makes_the_pool_unavailable() {
        let mut p = partition(2);
        for _ in 0..9 {
            p.emit(0, rec(32768));
        }
        assert!(p.is_available());
        p.emit(0, rec(100));
        assert_eq!(p.subpartitions[0].in_use, 10);
        assert!(!p.is_available());
        p.take(0);
        p.recycle(0);
        assert!(p.is_available());
    }

    #[test]
    fn aligned_barrier_blocks_and_priority_barrier_overtakes() {
        let mut p = partition(1);
        p.emit(0, rec(32768));
        p.emit(0, rec(32768));
        let aligned = CheckpointBarrier {
            id: 1,
            timestamp: 0,
            options: CheckpointOptions::for_config(CheckpointType::Checkpoint, true, false, 0),
        };
        p.broadcast_event(NetEvent::Barrier(aligned));
        assert!(matches!(p.take(0), Some(NetItem::Buffer(_))));
        assert!(matches!(p.take(0), Some(NetItem::Buffer(_))));
        assert!(matches!(p.take(0), Some(NetItem::Event(_))));
        assert!(p.subpartitions[0].blocked);
        p.emit(0, rec(32768));
        assert_eq!(p.take(0), None, "blocked until resumeConsumption");

        let unaligned = CheckpointBarrier {
            id: 2,
            timestamp: 0,
            options: CheckpointOptions::for_config(CheckpointType::Checkpoint, true, true, 0),
        };
        assert!(!p.head_is_priority(0));
        let overtaken = p.broadcast_priority_event(NetEvent::Barrier(unaligned));
        assert_eq!(overtaken[0].bytes, 32768);
        assert_eq!(overtaken[0].records.len(), 1);
        assert!(p.head_is_priority(0));
        assert!(
            matches!(p.take(0), Some(NetItem::Event(_))),
            "priority passes a block"
        );
        assert!(!p.head_is_priority(0));
    }
}
