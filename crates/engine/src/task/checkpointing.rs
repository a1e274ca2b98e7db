//! `SubtaskCheckpointCoordinatorImpl`: a task taking a checkpoint (seed 000 §4.3–§4.5). All steps
//! of `checkpointState` run in one mailbox action; the sync phase blocks the task, the async
//! phase runs "off the task thread" and ends in an ack to the coordinator.

use std::collections::{BTreeMap, BTreeSet};

use super::operators::Operator;
use super::stream_task::StreamTask;
use super::{ColdPath, TaskCtx, TaskEffect};
use crate::barrier::{AbortReason, CheckpointBarrier};
use crate::coordinator::{CheckpointFailureReason, SubtaskCheckpointMetrics};
use crate::network::{NetEvent, Record};
use crate::state::rocksdb::RocksSnapshotKind;
use crate::state::{KeyedStateSnapshot, OperatorStateSnapshot, RocksCheckpoint};
use crate::trace::TraceKind;
use crate::types::{CheckpointId, Micros};

/// Fixed part of the sync phase: `takeSnapshotSync` bookkeeping and the state table's
/// copy-on-write snapshot (a version bump), independent of state size.
pub const SYNC_BASE: Micros = 120;
/// Copy-on-write snapshot cost grows with the number of state map entries (the snapshot shares
/// them, but `CopyOnWriteStateMap.snapshotMapArrays` copies the bucket array): one microsecond
/// per 256 entries. Real Flink 2.3, 480 k entries a subtask (harness `large-state`): 0-13 ms,
/// median 2.5.
pub const SYNC_ENTRIES_PER_MICRO: u64 = 256;
/// Serializing state in the async phase before it is written: bytes per microsecond...
pub const SERIALIZE_BYTES_PER_MICRO: u64 = 400;
/// ...plus a cost per state entry (`StateSnapshotWriter` writes key, namespace and value through
/// their serializers, one entry at a time): 250 ns. Real Flink 2.3, 480 k entries (5.4 MB) a
/// subtask: async 102-552 ms, median 210 (harness `large-state`, on a machine at ×1.6).
pub const SERIALIZE_NANOS_PER_ENTRY: u64 = 250;
/// ...and per `TtlValue` with a state TTL (a value's, or each list element's): `TtlSerializer`
/// is a `CompositeSerializer` that boxes the timestamp and writes both fields through their
/// serializers. Real Flink 2.3: the async phase of a TTL value state takes 2x a plain one's time
/// per entry (harness `state-ttl` against `large-state`: 200 k entries a subtask, 202 ms), and
/// a list of TTL elements ~400 ns more per element (harness `list-state`: 100 k elements and
/// 50 k lists a subtask, 80 ms against the 40 ms entries and bytes give).
pub const SERIALIZE_NANOS_PER_TTL_VALUE: u64 = 400;
/// ...and per key group of the subtask's range, empty or not: `HeapSnapshotStrategy` opens a
/// section for each (offset, compression decorator, key-group id, a writer call per state).
/// Real Flink 2.3, the seed job at `pipeline.max-parallelism: 4096` (2048 key groups a subtask,
/// 46 KB): keyed async 14.5-16 ms mean against 4.5 ms from bytes and file; a window operator
/// (value state and two timer queues) 18 ms; at the default 128, 64 key groups add 0.3 ms.
pub const SERIALIZE_NANOS_PER_KEY_GROUP: u64 = 5_000;
/// RocksDB, native checkpoints (full or incremental): the sync phase flushes the memtable, per
/// entry written since the last flush, after a fixed cost for the native checkpoint (flush
/// set-up, hard links, MANIFEST). The flushes of one TaskManager queue for its one flush
/// thread. Real Flink 2.3, ~200 k entries a subtask on one TaskManager: of the two keyed
/// subtasks one syncs in 110-145 ms, the other in 230-295 (it waited for the first), every
/// checkpoint (harness `rocksdb-full` and `rocksdb-incremental`; `forst` alike).
pub const ROCKSDB_NATIVE_CHECKPOINT_NANOS: u64 = 30_000_000;
pub const ROCKSDB_FLUSH_NANOS_PER_ENTRY: u64 = 480;
/// RocksDB, canonical savepoint: the async phase iterates every entry
/// (`RocksFullSnapshotStrategy`'s key-group-ordered iterator) and serializes it.
pub const ROCKSDB_ITERATE_NANOS_PER_ENTRY: u64 = 500;
/// `state.backend.rocksdb.checkpoint.transfer.thread.num`: files uploaded in parallel.
pub const ROCKSDB_TRANSFER_THREADS: usize = 4;
/// ForSt's async phase writes the keyed state's meta data (serializers, state names) and
/// RocksDB's CURRENT file (the MANIFEST's name) besides the misc files: real Flink 2.3 (harness
/// `forst`): async 12 ms [1-56] a keyed subtask, against 18 ms on RocksDB, which uploads a new
/// 2.35 MB SST file there.
pub const FORST_META_DATA_BYTES: u64 = 1024;
pub const FORST_CURRENT_BYTES: u64 = 16;
/// Fixed part of the async phase (`AsyncCheckpointRunnable` scheduling, handle bookkeeping).
pub const ASYNC_BASE: Micros = 200;

/// A record's identity: `(origin, seq)`.
pub type RecordId = (u32, u64);
/// A pre-committed transaction: (chained operator index, pre-committing checkpoint, records).
pub type Committable = (usize, CheckpointId, Vec<RecordId>);
/// Records per input channel.
pub type ChannelRecords = Vec<(u32, Vec<Record>)>;

/// Serialized size of one committable's payload: the exported job's `TxnSerializer`
/// (`export/java/Sinks.java`: subtask, attempt, transaction number and record count).
pub const COMMITTABLE_PAYLOAD_BYTES: u64 = 24;

/// The `CommitterOperator`'s operator state for one sink: the list state
/// `streaming_committer_raw_states` holding one `byte[]`, the `CommittableCollector` serialized
/// (`CommittableCollectorSerializer` v2). Decoded from Flink 2.3.0 checkpoints and checked against
/// its serializers: the byte array's length, the collector's version, length, magic, the checkpoint
/// list's version and count (24 bytes); per checkpoint its length, id, writer parallelism,
/// subtask list version and count (24); per writer subtask (one: the committer is chained to its
/// writer) its length, id, request list version and count, committable and failed counts (24);
/// per committable its length, serializer version, payload length, payload, retries and state.
pub fn committer_state_bytes(checkpoints: u64) -> u64 {
    let per_committable = 20 + COMMITTABLE_PAYLOAD_BYTES;
    crate::state::list_state_header_len(
        crate::task::operators::LEGACY_COMMITTER_STATE,
        crate::state::DistributionMode::SplitDistribute,
    ) + 24
        + checkpoints * (24 + 24 + per_committable)
}

/// What a subtask acknowledges for one checkpoint: its state handles, with content so a restore
/// is exact.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct TaskStateSnapshot {
    /// The subtask that took it.
    pub task: crate::types::SubtaskId,
    /// The subtask had FINISHED before the checkpoint (Flink's `FullyFinishedOperatorState`):
    /// restored, it finishes at once; a source keeps its final offset.
    pub finished: bool,
    /// Keyed state per chained operator index.
    pub keyed: Vec<(usize, KeyedStateSnapshot)>,
    /// Operator (list) state per chained operator index (source offsets).
    pub operator: Vec<(usize, OperatorStateSnapshot)>,
    /// Pre-committed, not yet committed two-phase-commit transactions:
    /// (chained operator index, pre-committing checkpoint, records).
    pub committables: Vec<Committable>,
    /// In-flight data written as channel state (bytes): output and input side.
    pub output_channel_state: u64,
    pub input_channel_state: u64,
    /// The channel state's records, replayed on restore before new data: output side per
    /// (output edge, subpartition), input side per input channel.
    pub output_channel_records: Vec<(usize, u32, Vec<Record>)>,
    pub input_channel_records: ChannelRecords,
    /// With the RocksDB backend, per chained operator index: the files its checkpoint holds and
    /// uploads. Its sizes replace the keyed snapshot's in `state_size` and `checkpointed_size`.
    pub rocksdb: Vec<(usize, RocksCheckpoint)>,
}

impl TaskStateSnapshot {
    /// `(state_size, checkpointed_size)` of operator and keyed state: the same for the heap
    /// backend; for RocksDB, what the checkpoint refers to and what it uploaded.
    pub fn state_sizes(&self) -> (u64, u64) {
        let base = self.operator_state_bytes() - self.rocksdb_keyed_bytes();
        let state = self.rocksdb.iter().map(|(_, r)| r.state_size).sum::<u64>();
        let uploaded = self
            .rocksdb
            .iter()
            .map(|(_, r)| r.checkpointed_size)
            .sum::<u64>();
        (base + state, base + uploaded)
    }

    /// The heap-format size of the keyed snapshots a RocksDB checkpoint stands in for.
    pub fn rocksdb_keyed_bytes(&self) -> u64 {
        self.keyed
            .iter()
            .filter(|(pos, _)| self.rocksdb.iter().any(|(p, _)| p == pos))
            .map(|(_, k)| k.state_size)
            .sum()
    }

    /// Bytes of operator and keyed state (not channel state). A committable is a transaction
    /// handle (its records live in the external system's open transaction), so it costs the same
    /// whatever the transaction holds.
    pub fn operator_state_bytes(&self) -> u64 {
        self.keyed.iter().map(|(_, k)| k.state_size).sum::<u64>()
            + self.operator.iter().map(|(_, o)| o.state_size).sum::<u64>()
            + self.committer_bytes()
    }

    /// The committers' state: one collector per sink, of the checkpoints it still holds (each
    /// pre-commits one transaction a checkpoint).
    pub fn committer_bytes(&self) -> u64 {
        let mut sinks: Vec<usize> = self.committables.iter().map(|(pos, _, _)| *pos).collect();
        sinks.sort_unstable();
        sinks.dedup();
        sinks
            .iter()
            .map(|pos| {
                let held = self
                    .committables
                    .iter()
                    .filter(|(p, _, _)| p == pos)
                    .count();
                committer_state_bytes(held as u64)
            })
            .sum()
    }
}

/// A checkpoint this subtask has started and not yet acknowledged.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct PendingSnapshot {
    pub barrier: CheckpointBarrier,
    pub metrics: SubtaskCheckpointMetrics,
    pub snapshot: TaskStateSnapshot,
    pub sync_end: Micros,
    pub async_done: bool,
    /// Unaligned input side: all barriers are in (always true for aligned checkpoints).
    pub input_complete: bool,
    /// Aligned-with-timeout output side: the barrier left every output queue or was promoted
    /// by the timeout, so the output channel state is known.
    pub output_settled: bool,
    /// Where this checkpoint's channel state stands in the shared channel-state file.
    pub channel_state: ChannelStateProgress,
}

/// A checkpoint's channel state in its TaskManager's shared file (`channel_state`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ChannelStateProgress {
    /// Aligned checkpoints without a timeout, or unaligned checkpoints off: nothing to write.
    NotNeeded,
    /// Started; input or output side still open.
    Collecting,
    /// Reported complete; the group's file is not closed yet.
    Reported,
    /// The file is closed: the async phase may finish.
    Written,
}

#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct SubtaskCheckpointCoordinator {
    pub last_checkpoint_id: CheckpointId,
    /// Checkpoints the coordinator aborted before this task got to them (`abortedCheckpointIds`).
    pub aborted: BTreeSet<CheckpointId>,
    pub pending: BTreeMap<CheckpointId, PendingSnapshot>,
    /// Checkpoints this subtask acknowledged (bounded, newest last), for inspectors.
    pub acknowledged: Vec<CheckpointId>,
    /// Input data an unaligned barrier overtook inside remote input channels, per checkpoint:
    /// bytes, and records per channel.
    pub overtaken_input: BTreeMap<CheckpointId, (u64, ChannelRecords)>,
}

/// Moves the input data an unaligned barrier overtook in remote channels (`overtaken`, filled
/// when the barrier arrived) into `id`'s snapshot; a second call finds nothing.
fn take_overtaken_input(
    overtaken: &mut BTreeMap<CheckpointId, (u64, ChannelRecords)>,
    id: CheckpointId,
    snapshot: &mut TaskStateSnapshot,
) {
    if let Some((bytes, records)) = overtaken.remove(&id) {
        snapshot.input_channel_state += bytes;
        snapshot.input_channel_records.extend(records);
    }
}

/// The barrier handler's reason to abort, as the decline the coordinator gets.
impl From<AbortReason> for CheckpointFailureReason {
    fn from(r: AbortReason) -> Self {
        match r {
            AbortReason::CheckpointDeclinedSubsumed => {
                CheckpointFailureReason::CHECKPOINT_DECLINED_SUBSUMED
            }
            AbortReason::CheckpointDeclinedOnCancellationBarrier => {
                CheckpointFailureReason::CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER
            }
            AbortReason::CheckpointDeclinedInputEndOfStream => {
                CheckpointFailureReason::CHECKPOINT_DECLINED_INPUT_END_OF_STREAM
            }
        }
    }
}

impl StreamTask {
    /// `checkpointState`, steps 0–5. Returns the sync phase's duration (the task is busy for it).
    pub(super) fn perform_checkpoint(
        &mut self,
        barrier: CheckpointBarrier,
        start_delay: Micros,
        alignment_duration: Micros,
        processed_bytes: u64,
        ctx: &mut TaskCtx,
    ) -> Micros {
        let now = ctx.now;
        let id = barrier.id;
        // Step 0: remember the id; an already aborted checkpoint only forwards a cancel marker.
        if self.checkpointing.aborted.contains(&id) || id <= self.checkpointing.last_checkpoint_id {
            self.broadcast_to_outputs(NetEvent::CancelCheckpointMarker(id), ctx);
            ctx.trace
                .record(now, Some(self.id), TraceKind::CancelMarkerEmitted { id });
            return 0;
        }
        self.checkpointing.last_checkpoint_id = id;
        if self.end_of_data_sent && self.final_checkpoint.is_none() {
            self.final_checkpoint = Some(id);
        }

        // Step 1: prepareSnapshotPreBarrier: the two-phase-commit writer pre-commits its
        // transaction, so the committable is part of this checkpoint.
        for op in &mut self.operators {
            if let Operator::TwoPhaseCommitSink(t) = op {
                let txn = std::mem::take(&mut t.open);
                let records = txn.len() as u64;
                t.pending.insert(id, txn);
                ctx.trace
                    .record(now, Some(self.id), TraceKind::PreCommit { id, records });
            }
        }

        // Step 2: broadcast the barrier before snapshotting, so downstream can start aligning.
        let unaligned = barrier.options.is_unaligned();
        let mut output_persisted = 0;
        let mut output_records = Vec::new();
        for o in 0..self.outputs.len() {
            let pid = self.outputs[o].partition;
            let p = &mut ctx.net.partitions[pid as usize];
            if unaligned {
                let overtaken = p.broadcast_priority_event(NetEvent::Barrier(barrier));
                let bytes: u64 = overtaken.iter().map(|x| x.bytes).sum();
                output_persisted += bytes;
                for (sub, x) in overtaken.into_iter().enumerate() {
                    if !x.records.is_empty() {
                        output_records.push((o, sub as u32, x.records));
                    }
                }
                if bytes > 0 {
                    ctx.trace.record(
                        now,
                        Some(self.id),
                        TraceKind::BarrierOvertaking { id, bytes },
                    );
                }
            } else {
                p.broadcast_event(NetEvent::Barrier(barrier));
            }
            ctx.barrier_log
                .barrier_emitted(ctx.net, pid, id, unaligned, now);
            for sub in 0..ctx.net.partitions[pid as usize].num_subpartitions() {
                super::notify_consumer(pid, sub, ctx);
            }
        }
        if !self.outputs.is_empty() {
            ctx.trace.record(
                now,
                Some(self.id),
                TraceKind::BarrierEmitted { id, unaligned },
            );
        }

        // Step 3: the output side's alignment timer (aligned with timeout only).
        if !self.outputs.is_empty() && barrier.options.is_timeoutable() {
            if let Some(at) = barrier.timeout_at() {
                ctx.effects.push(TaskEffect::AlignmentTimer {
                    task: self.index,
                    id,
                    at: at.max(now),
                });
            }
        }

        // Step 5: the sync snapshot (copy-on-write), then hand the rest to the async phase.
        ctx.trace
            .record(now, Some(self.id), TraceKind::SyncStart { id });
        let mut snapshot = TaskStateSnapshot {
            task: self.id,
            output_channel_state: output_persisted,
            output_channel_records: output_records,
            ..Default::default()
        };
        // Heap backend: entries in copy-on-write snapshots (sync) and serialized (async).
        let mut entries = 0u64;
        let mut ttl_values = 0u64;
        let mut key_groups = 0u64;
        // RocksDB: the memtable flush of an incremental checkpoint (sync).
        let mut flush_nanos = 0u64;
        for (i, op) in self.operators.iter_mut().enumerate() {
            let written = op
                .keyed_ref()
                .filter(|k| k.rocksdb.is_some())
                .map(|k| k.backend.written_since_snapshot());
            if let Some(k) = op.snapshot_keyed(id) {
                let savepoint = barrier.options.checkpoint_type.is_savepoint();
                // With a state TTL, the compaction this flush starts runs the compaction filter:
                // what expired leaves the state (the checkpoint's files still hold it).
                let mut live = (k.entry_count() as u64, k.state_size);
                if let Some(keyed) = op.keyed().filter(|k| k.ttl_millis.is_some()) {
                    let compacts = keyed.rocksdb.as_ref().is_some_and(|r| {
                        !savepoint && r.compacts_after_flush(written.is_some_and(|w| w.keys > 0))
                    });
                    if compacts {
                        keyed.backend.purge_expired((now / 1_000) as i64);
                    }
                    // Timestamps weigh less in the files than in the heap's serialization.
                    if keyed.rocksdb.is_some() {
                        live = keyed.backend.live_totals();
                    }
                }
                match (written, op.keyed().and_then(|k| k.rocksdb.as_mut())) {
                    (Some(memtable), Some(r)) => {
                        let written = (memtable.keys, memtable.bytes);
                        let cp = r.checkpoint(id, savepoint, written, live.0, live.1);
                        if cp.kind != RocksSnapshotKind::Canonical {
                            flush_nanos += ROCKSDB_NATIVE_CHECKPOINT_NANOS
                                + memtable.entries * ROCKSDB_FLUSH_NANOS_PER_ENTRY;
                        }
                        // ForSt's flush writes its L0 file to checkpoint storage.
                        if cp.reuses_files && cp.flushed_bytes > 0 {
                            flush_nanos += ctx.params.file_write(cp.flushed_bytes) * 1_000;
                        }
                        snapshot.rocksdb.push((i, cp));
                    }
                    _ => {
                        entries += k.entry_count() as u64;
                        ttl_values += k.ttl_values();
                        // No registered state, no stream and no key-group sections.
                        if k.state_size > 0 {
                            key_groups += u64::from(k.key_group_range.len());
                        }
                    }
                }
                snapshot.keyed.push((i, k));
            }
            match op {
                Operator::Datagen(dg) => {
                    dg.snapshot_offset();
                    snapshot.operator.push((i, dg.state.snapshot(id)));
                }
                Operator::TwoPhaseCommitSink(t) => {
                    snapshot
                        .committables
                        .extend(t.pending.iter().map(|(cid, recs)| (i, *cid, recs.clone())));
                    let writer = t.writer_state.snapshot(id);
                    if writer.state_size > 0 {
                        snapshot.operator.push((i, writer));
                    }
                }
                _ => {}
            }
        }
        // A cold JVM first loads the snapshot classes (`warm_up.rs`).
        let (sync_paths, async_paths): (&[ColdPath], &[ColdPath]) = if snapshot.keyed.is_empty() {
            (&[ColdPath::Sync], &[ColdPath::Async])
        } else {
            (
                &[ColdPath::Sync, ColdPath::KeyedSync],
                &[ColdPath::Async, ColdPath::KeyedAsync],
            )
        };
        let cold = ctx
            .warm_up
            .wait_all(sync_paths, now, &ctx.params.warm_up, id);
        // The flush runs on the TaskManager's one flush thread: after any other subtask's flush
        // queued there, while this task waits.
        let flush = if flush_nanos > 0 {
            ctx.flush_thread.flush(now + cold, flush_nanos / 1_000)
        } else {
            0
        };
        let sync = SYNC_BASE + cold + entries / SYNC_ENTRIES_PER_MICRO + flush;
        let state_bytes = snapshot.operator_state_bytes();
        // What the heap and operator state write; RocksDB's uploads are timed on their own.
        let rocks_keyed = snapshot.rocksdb_keyed_bytes();
        ctx.trace.record(
            now + sync,
            Some(self.id),
            TraceKind::SyncEnd {
                id,
                state_bytes,
                sync,
            },
        );
        // Unaligned: the rest of a buffer being read when the barrier overtook it is pre-barrier
        // data the snapshot does not contain: it is input channel state (Flink persists the
        // deserializer's unconsumed buffer).
        if unaligned {
            if let Some(cur) = self.current.as_ref() {
                let rest = &cur.buffer.records[cur.pos..];
                if !rest.is_empty() {
                    snapshot.input_channel_state +=
                        rest.iter().map(|r| u64::from(r.bytes)).sum::<u64>();
                    snapshot
                        .input_channel_records
                        .push((cur.channel, rest.to_vec()));
                }
            }
            // FLIP-547: recovered channel state not consumed yet is this checkpoint's channel
            // state again (only while checkpointing during recovery can it still be queued).
            for (channel, buffer) in &self.recovered_input {
                snapshot.input_channel_state += u64::from(buffer.bytes);
                snapshot
                    .input_channel_records
                    .push((*channel, buffer.records.clone()));
            }
        }
        let input_complete = !unaligned || self.handler.is_none() || self.is_source();
        let barrier_timeoutable = !self.outputs.is_empty() && barrier.options.is_timeoutable();
        // `CheckpointOptions.needsChannelState`: unaligned, or aligned that may time out.
        let channel_state = if ctx.params.shared_channel_state_files
            && (unaligned || barrier.options.is_timeoutable())
        {
            ctx.effects.push(TaskEffect::ChannelStateStarted {
                task: self.index,
                id,
            });
            ChannelStateProgress::Collecting
        } else {
            ChannelStateProgress::NotNeeded
        };
        // Channel state in a shared file is written by the group's executor, not by this
        // subtask's async phase.
        let own_bytes = if channel_state == ChannelStateProgress::NotNeeded {
            state_bytes - rocks_keyed + output_persisted
        } else {
            state_bytes - rocks_keyed
        };
        let metrics = SubtaskCheckpointMetrics {
            sync_duration: sync,
            async_duration: 0,
            alignment_duration,
            start_delay,
            processed_bytes,
            persisted_bytes: output_persisted,
            state_size: 0,
            checkpointed_size: 0,
            unaligned,
        };
        let cold = ctx
            .warm_up
            .wait_all(async_paths, now + sync, &ctx.params.warm_up, id);
        let async_duration = cold
            + ctx.params.async_duration(own_bytes)
            + entries * SERIALIZE_NANOS_PER_ENTRY / 1_000
            + ttl_values * SERIALIZE_NANOS_PER_TTL_VALUE / 1_000
            + key_groups * SERIALIZE_NANOS_PER_KEY_GROUP / 1_000
            + snapshot
                .rocksdb
                .iter()
                .map(|(_, cp)| rocksdb_async(ctx.params, cp))
                .sum::<Micros>();
        ctx.effects.push(TaskEffect::AsyncDone {
            task: self.index,
            id,
            at: now + sync + async_duration,
        });
        self.checkpointing.pending.insert(
            id,
            PendingSnapshot {
                barrier,
                metrics,
                snapshot,
                sync_end: now + sync,
                async_done: false,
                input_complete,
                output_settled: !barrier_timeoutable,
                channel_state,
            },
        );
        self.maybe_report_channel_state(id, ctx);
        sync
    }

    /// Once both sides of `id`'s channel state are known, hands it to the shared file.
    pub(super) fn maybe_report_channel_state(&mut self, id: CheckpointId, ctx: &mut TaskCtx) {
        let Some(p) = self.checkpointing.pending.get_mut(&id) else {
            return;
        };
        if p.channel_state != ChannelStateProgress::Collecting
            || !p.input_complete
            || !p.output_settled
        {
            return;
        }
        take_overtaken_input(&mut self.checkpointing.overtaken_input, id, &mut p.snapshot);
        p.channel_state = ChannelStateProgress::Reported;
        let bytes = p.snapshot.output_channel_state + p.snapshot.input_channel_state;
        ctx.effects.push(TaskEffect::ChannelStateComplete {
            task: self.index,
            id,
            bytes,
        });
    }

    /// The shared channel-state file holding `id`'s channel state is closed.
    pub fn channel_state_written(&mut self, id: CheckpointId, ctx: &mut TaskCtx) {
        if let Some(p) = self.checkpointing.pending.get_mut(&id) {
            p.channel_state = ChannelStateProgress::Written;
        }
        self.maybe_acknowledge(id, ctx);
    }

    /// The async phase of `id` finished writing.
    pub fn async_done(&mut self, id: CheckpointId, ctx: &mut TaskCtx) {
        let queued = self.barrier_still_queued(id, ctx);
        if let Some(p) = self.checkpointing.pending.get_mut(&id) {
            p.async_done = true;
            if !queued {
                p.output_settled = true;
            }
        }
        self.maybe_report_channel_state(id, ctx);
        self.maybe_acknowledge(id, ctx);
    }

    /// Whether a barrier of `id` still waits in one of this task's output queues.
    fn barrier_still_queued(&self, id: CheckpointId, ctx: &TaskCtx) -> bool {
        self.outputs
            .iter()
            .any(|o| ctx.net.partitions[o.partition as usize].has_queued_barrier(id))
    }

    /// The unaligned input side of `id` is complete: all barriers are in.
    pub(super) fn input_state_complete(
        &mut self,
        id: CheckpointId,
        alignment_duration: Micros,
        processed: u64,
        persisted: u64,
        ctx: &mut TaskCtx,
    ) {
        let now = ctx.now;
        let Some(p) = self.checkpointing.pending.get_mut(&id) else {
            return;
        };
        p.metrics.alignment_duration = alignment_duration;
        p.metrics.processed_bytes = processed;
        // Adds to the rest of the buffer being read when the barrier overtook it (counted in
        // `perform_checkpoint`): both are input channel state.
        p.snapshot.input_channel_state += persisted;
        p.input_complete = true;
        if p.channel_state != ChannelStateProgress::NotNeeded {
            self.maybe_report_channel_state(id, ctx);
        } else if p.async_done {
            // The input channel state is written after the last barrier came in.
            let extra = ctx.params.async_duration(persisted);
            p.async_done = false;
            ctx.effects.push(TaskEffect::AsyncDone {
                task: self.index,
                id,
                at: now + extra,
            });
        }
    }

    /// `AsyncCheckpointRunnable` → `reportCompletedSnapshotStates` → `acknowledgeCheckpoint`.
    pub(super) fn maybe_acknowledge(&mut self, id: CheckpointId, ctx: &mut TaskCtx) {
        let now = ctx.now;
        let ready = self.checkpointing.pending.get(&id).is_some_and(|p| {
            p.async_done
                && p.input_complete
                && p.output_settled
                && matches!(
                    p.channel_state,
                    ChannelStateProgress::NotNeeded | ChannelStateProgress::Written
                )
        });
        if !ready {
            return;
        }
        let Some(mut p) = self.checkpointing.pending.remove(&id) else {
            return;
        };
        take_overtaken_input(&mut self.checkpointing.overtaken_input, id, &mut p.snapshot);
        let persisted = p.snapshot.output_channel_state + p.snapshot.input_channel_state;
        let (state, uploaded) = p.snapshot.state_sizes();
        p.metrics.async_duration = now.saturating_sub(p.sync_end);
        p.metrics.persisted_bytes = persisted;
        p.metrics.state_size = state + persisted;
        p.metrics.checkpointed_size = uploaded + persisted;
        ctx.trace.record(
            now,
            Some(self.id),
            TraceKind::AsyncEnd {
                id,
                async_duration: p.metrics.async_duration,
            },
        );
        self.checkpointing.acknowledged.push(id);
        if self.checkpointing.acknowledged.len() > 32 {
            self.checkpointing.acknowledged.remove(0);
        }
        ctx.effects.push(TaskEffect::Ack {
            task: self.index,
            id,
            metrics: p.metrics,
            snapshot: Box::new(p.snapshot),
        });
    }

    /// `abortCheckpointOnBarrier`: decline and tell downstream with a cancel marker.
    pub(super) fn abort_on_barrier(
        &mut self,
        id: CheckpointId,
        reason: AbortReason,
        ctx: &mut TaskCtx,
    ) {
        let now = ctx.now;
        self.checkpointing.pending.remove(&id);
        self.broadcast_to_outputs(NetEvent::CancelCheckpointMarker(id), ctx);
        ctx.trace
            .record(now, Some(self.id), TraceKind::CancelMarkerEmitted { id });
        ctx.effects.push(TaskEffect::Decline {
            task: self.index,
            id,
            reason: reason.into(),
        });
    }

    /// `PipelinedSubpartition.alignedBarrierTimeout` on every output subpartition.
    pub(super) fn promote_output_barriers(&mut self, id: CheckpointId, ctx: &mut TaskCtx) {
        let mut total = 0;
        let mut records = Vec::new();
        for o in 0..self.outputs.len() {
            let pid = self.outputs[o].partition;
            let n = ctx.net.partitions[pid as usize].num_subpartitions() as usize;
            for sub in 0..n {
                if let Some(x) = ctx.net.partitions[pid as usize].promote_barrier(sub, id) {
                    total += x.bytes;
                    if !x.records.is_empty() {
                        records.push((o, sub as u32, x.records));
                    }
                    super::notify_consumer(pid, sub as u32, ctx);
                }
            }
        }
        if let Some(p) = self.checkpointing.pending.get_mut(&id) {
            p.snapshot.output_channel_state += total;
            p.snapshot.output_channel_records.extend(records);
            p.output_settled = true;
            if total > 0 {
                p.metrics.unaligned = true;
            }
        }
        if total > 0 {
            ctx.trace.record(
                ctx.now,
                Some(self.id),
                TraceKind::BarrierPromoted { id, bytes: total },
            );
        }
    }
}

/// The async phase of one RocksDB checkpoint. Native: the files to upload, spread over the
/// transfer threads (largest first, each to the thread that frees up first), each a file on
/// checkpoint storage. Canonical savepoint: every entry iterated and serialized into one stream.
fn rocksdb_async(params: &super::TaskParams, cp: &RocksCheckpoint) -> Micros {
    if cp.kind == RocksSnapshotKind::Canonical {
        return cp.iterated_entries * ROCKSDB_ITERATE_NANOS_PER_ENTRY / 1_000
            + cp.checkpointed_size / SERIALIZE_BYTES_PER_MICRO
            + params.file_write(cp.checkpointed_size);
    }
    if cp.reuses_files {
        // ForSt (`ForStIncrementalSnapshotOperation`): the state meta data stream, then the
        // SST handles (reused in place) with the misc files, then CURRENT, one after another.
        return params.file_write(FORST_META_DATA_BYTES)
            + transfer(params, cp.upload_sizes())
            + params.file_write(FORST_CURRENT_BYTES);
    }
    transfer(params, cp.upload_sizes())
}

/// Files moved to or from checkpoint storage over the transfer threads
/// (`state.backend.rocksdb.checkpoint.transfer.thread.num`): largest first, each to the thread
/// that frees up first; the last thread to finish ends it.
fn transfer(params: &super::TaskParams, mut sizes: Vec<u64>) -> Micros {
    sizes.sort_unstable_by(|a, b| b.cmp(a));
    let mut threads = [0 as Micros; ROCKSDB_TRANSFER_THREADS];
    for bytes in sizes {
        if let Some(t) = threads.iter_mut().min() {
            *t += params.file_write(bytes);
        }
    }
    threads.into_iter().max().unwrap_or(0)
}

/// Restoring the heap backend, per entry: reading it back into the state table. Far slower
/// than writing it (the restore code runs cold in the restarted task): real Flink 2.3
/// (harness `large-state` killed at 17 s and 32 s) keeps the keyed subtask INITIALIZING
/// 2.4-2.7 s for ~375 000 entries and 3.2-4.2 s for ~475 000.
pub const HEAP_RESTORE_NANOS_PER_ENTRY: u64 = 7_000;
/// Restoring a RocksDB instance besides downloading its files: opening the database on them
/// (column families, options, the block cache and write buffers from managed memory). Real
/// Flink 2.3 (harness `rocksdb-incremental` killed at 17 s and 32 s): 263-323 ms INITIALIZING,
/// whether the checkpoint held ~7 or ~12 MB a subtask, on a local disk.
pub const ROCKSDB_OPEN_MICROS: Micros = 250_000;

/// What one subtask reads back when it is restored (`StreamTaskStateInitializerImpl`, while
/// the task is INITIALIZING).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RestoreWork {
    /// Heap keyed and operator state: bytes read.
    pub heap_bytes: u64,
    /// Heap keyed state: entries put back into state tables.
    pub heap_entries: u64,
    /// RocksDB files downloaded (`RocksDBStateDownloader`).
    pub rocksdb_files: Vec<u64>,
    /// Entries ingested into a new RocksDB instance (rescaled, or from a canonical savepoint).
    pub rocksdb_ingested: u64,
    /// Channel state read back (unaligned checkpoints).
    pub channel_bytes: u64,
}

impl RestoreWork {
    /// Checkpoint storage reads as fast as it writes (the storage profiles are symmetric).
    pub fn duration(&self, params: &super::TaskParams) -> Micros {
        let mut t = 0;
        if self.heap_bytes > 0 {
            t += params.file_write(self.heap_bytes);
        }
        t += self.heap_entries * HEAP_RESTORE_NANOS_PER_ENTRY / 1_000;
        if !self.rocksdb_files.is_empty() {
            t += transfer(params, self.rocksdb_files.clone()) + ROCKSDB_OPEN_MICROS;
        }
        if self.rocksdb_ingested > 0 {
            t += ROCKSDB_OPEN_MICROS
                + self.rocksdb_ingested * ROCKSDB_ITERATE_NANOS_PER_ENTRY / 1_000;
        }
        if self.channel_bytes > 0 {
            t += params.file_write(self.channel_bytes);
        }
        t
    }
}
