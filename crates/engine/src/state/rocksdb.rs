//! `EmbeddedRocksDBStateBackend` as checkpoints see it (seed 000 §5's table, issue #14). Writes go
//! to a memtable; a checkpoint's sync phase flushes it into a new level-0 SST file and takes a
//! native checkpoint (hard links, `takeDBNativeCheckpoint`). The fourth L0 file starts a
//! compaction into level 1, which rewrites everything it merges and finishes in the background,
//! after the checkpoint listed its files; a level over its target size moves down the same way.
//! - incremental (`RocksIncrementalSnapshotStrategy`): uploads only the SST files the last
//!   completed checkpoint did not hold;
//! - full (`RocksNativeFullSnapshotStrategy`, Flink 2.x's default for checkpoints): the same
//!   native checkpoint, every file uploaded each time;
//! - a savepoint in the canonical format (`RocksFullSnapshotStrategy`): every entry iterated
//!   from a RocksDB snapshot into one stream, no flush.
//!
//! The entries themselves stay in the heap backend ([`super::HeapKeyedStateBackend`]), which
//! the simulator reads, verifies and restores; this module keeps the files and their sizes,
//! which decide what a RocksDB checkpoint costs and weighs.
//!
//! ForSt (`state.backend.type: forst`, Flink 2.x's disaggregated backend) keeps the same LSM
//! tree, but its primary directory is by default the checkpoint directory's `shared/`
//! (`state.backend.forst.primary-dir: checkpoint-dir`): a flush writes the new L0 file to
//! checkpoint storage during the sync phase, and the async phase references the files where
//! they are (`ReusableDataTransferStrategy`) instead of uploading them, copying only the
//! metadata files.
//!
//! Measured against Flink 2.3 (harness `rocksdb-incremental`: 100 000 records/s over 1 M keys,
//! two subtasks): one L0 file of ~2.35 MB a checkpoint and subtask, the whole compacted level
//! (~5 MB a subtask) uploaded again every fourth checkpoint.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::types::CheckpointId;

/// RocksDB's `level0_file_num_compaction_trigger`.
pub const LEVEL0_COMPACTION_TRIGGER: usize = 4;
/// `max_bytes_for_level_base` (Flink's `state.backend.rocksdb.compaction.level.max-size-level-base`).
pub const MAX_BYTES_FOR_LEVEL_BASE: u64 = 256 << 20;
/// `max_bytes_for_level_multiplier`.
pub const LEVEL_MULTIPLIER: u64 = 10;
/// `target_file_size_base` (`state.backend.rocksdb.compaction.level.target-file-size-base`):
/// compaction output is cut into files of about this size.
pub const TARGET_FILE_SIZE_BASE: u64 = 64 << 20;
/// Per SST file: footer, index and properties blocks.
pub const SST_FILE_OVERHEAD: u64 = 4 << 10;
/// SST bytes per 100 bytes of the entries as the heap backend serializes them. A flushed file
/// keeps every entry's sequence number; compaction into the bottommost level zeroes them, and
/// the compressed blocks shrink. Real Flink 2.3 (harness `rocksdb-incremental`, against the
/// simulator's heap bytes): an L0 file ~0.93 times the heap bytes of its entries, the compacted
/// level ~0.59 times.
pub const SST_PERCENT_FLUSHED: u64 = 93;
pub const SST_PERCENT_BOTTOMMOST: u64 = 59;
/// A `TtlValue`'s 8-byte timestamp as it weighs in an SST file, in heap serialization bytes
/// (before the percentages above): the big-endian epoch milliseconds of a block's entries share
/// their high bytes, which the block compression stores as back-references. Real Flink 2.3
/// (harness `state-ttl-rocksdb` against `rocksdb-incremental`, the same keys and writes): an L0
/// file is 1.19 times as large with a TTL, where a full 8 bytes would make it 1.6 times.
pub const TTL_TIMESTAMP_SST_BYTES: u64 = 2;
/// Reading and writing one keyed state value through RocksDB (JNI, serializing key and value)
/// instead of the heap, per record. Flink 2.3's keyed count at 50 000 records/s a subtask
/// (harness `rocksdb-*`, 2026-12-05) is 0.42-0.47 busy on RocksDB and 0.00 on the heap: 9 µs
/// over the heap chain's 1 µs gives that. The figure follows the machine: on 2026-12-03/04 the
/// same runs read 0.64-0.72 (a known gap, docs/fidelity.md).
pub const ACCESS_MICROS_PER_RECORD: u64 = 9;
/// The same on ForSt, on the task thread: its async state API runs the access on the state
/// executor, the task thread only issues the request and runs the callback (see
/// `Operator::state_access_micros`).
pub const FORST_ACCESS_MICROS_PER_RECORD: u64 = 2;
/// Files a checkpoint uploads besides the SSTs: MANIFEST, CURRENT and the ~21 KB OPTIONS file
/// Flink's options produce.
pub const MISC_FILES_BYTES: u64 = 22 << 10;

/// One SST file of the instance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SstFile {
    /// RocksDB's file number (`000042.sst`).
    pub number: u64,
    pub level: u8,
    pub entries: u64,
    pub bytes: u64,
}

impl SstFile {
    pub fn name(&self) -> String {
        format!("{:06}.sst", self.number)
    }
}

/// How a RocksDB snapshot is taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, serde::Deserialize)]
pub enum RocksSnapshotKind {
    /// `RocksIncrementalSnapshotStrategy`.
    #[default]
    Incremental,
    /// `RocksNativeFullSnapshotStrategy`: native files, all uploaded.
    NativeFull,
    /// `RocksFullSnapshotStrategy`: a canonical savepoint, entries iterated into a stream.
    Canonical,
}

/// What one checkpoint of an instance holds and writes.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, serde::Deserialize)]
pub struct RocksCheckpoint {
    pub kind: RocksSnapshotKind,
    /// Native snapshots: every live SST at the native checkpoint (`_metadata` lists a handle
    /// for each); canonical: none.
    pub files: Vec<SstFile>,
    /// Native snapshots: the numbers of the files this checkpoint uploaded (incremental: the
    /// rest are placeholders for files the last completed checkpoint holds).
    pub uploaded: Vec<u64>,
    /// For each of `files`, the checkpoint whose upload holds it: this one for what it
    /// uploaded, an earlier one for a placeholder (`PlaceholderStreamStateHandle`). With the
    /// subtask and file number it names the handle (see [`shared_handle_id`]).
    pub uploaded_in: Vec<CheckpointId>,
    /// Entries of the L0 file the sync phase flushed (native snapshots): the keys written
    /// since the last flush, a list's appends merged under their key.
    pub flushed_entries: u64,
    /// Bytes of the L0 file that flush wrote.
    pub flushed_bytes: u64,
    /// ForSt: the SST files already live on checkpoint storage; the async phase refers to them.
    pub reuses_files: bool,
    /// Entries a canonical snapshot iterates.
    pub iterated_entries: u64,
    /// `checkpointed_size`: what this checkpoint wrote.
    pub checkpointed_size: u64,
    /// `state_size`: everything the checkpoint refers to.
    pub state_size: u64,
}

impl RocksCheckpoint {
    /// The SST files an incremental checkpoint lists under `shared/`, each with its path there
    /// (its `SharedStateRegistryKey`) and the checkpoint whose upload holds it. A full native
    /// checkpoint's files are its own (`CheckpointedStateScope.EXCLUSIVE`), a canonical
    /// savepoint has none.
    pub fn shared_files(
        &self,
        task: crate::types::SubtaskId,
        position: usize,
    ) -> impl Iterator<Item = (String, &SstFile, CheckpointId)> + '_ {
        let shared = self.kind == RocksSnapshotKind::Incremental;
        self.files
            .iter()
            .zip(&self.uploaded_in)
            .filter(move |_| shared)
            .map(move |(f, by)| {
                let id = shared_handle_id(task, position, f.number, *by);
                (format!("shared/{id}"), f, *by)
            })
    }

    /// Sizes of the files the async phase writes, one per upload (or the one full stream).
    pub fn upload_sizes(&self) -> Vec<u64> {
        if self.kind == RocksSnapshotKind::Canonical {
            return vec![self.checkpointed_size];
        }
        if self.reuses_files {
            return vec![MISC_FILES_BYTES];
        }
        let mut sizes: Vec<u64> = self
            .files
            .iter()
            .filter(|f| self.uploaded.contains(&f.number))
            .map(|f| f.bytes)
            .collect();
        sizes.push(MISC_FILES_BYTES);
        sizes
    }
}

/// One subtask's RocksDB instance: its SST files by level, and which of them the last
/// completed checkpoint holds.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RocksDbInstance {
    incremental: bool,
    /// ForSt with its primary directory on checkpoint storage.
    forst: bool,
    next_file: u64,
    /// `levels[0]` is L0, newest file last.
    levels: Vec<Vec<SstFile>>,
    /// Files of the last completed checkpoint, each with the checkpoint whose upload holds it:
    /// an incremental checkpoint does not upload them again (`uploadedSstFiles` of
    /// `lastCompletedCheckpointId`).
    confirmed: BTreeMap<u64, CheckpointId>,
    /// Live files of checkpoints not yet completed, the same way.
    pending: BTreeMap<CheckpointId, BTreeMap<u64, CheckpointId>>,
}

impl RocksDbInstance {
    pub fn new(incremental: bool) -> Self {
        RocksDbInstance {
            incremental,
            forst: false,
            next_file: 1,
            levels: vec![Vec::new(), Vec::new()],
            confirmed: BTreeMap::new(),
            pending: BTreeMap::new(),
        }
    }

    /// ForSt's instance: the same files, written to checkpoint storage as they are made.
    pub fn forst(incremental: bool) -> Self {
        RocksDbInstance {
            forst: true,
            ..RocksDbInstance::new(incremental)
        }
    }

    pub fn incremental(&self) -> bool {
        self.incremental
    }

    pub fn is_forst(&self) -> bool {
        self.forst
    }

    /// The SST files by level.
    pub fn levels(&self) -> &[Vec<SstFile>] {
        &self.levels
    }

    /// The checkpoint whose upload of file `number` the next incremental checkpoint refers to.
    pub fn held_by(&self, number: u64) -> Option<CheckpointId> {
        self.confirmed.get(&number).copied()
    }

    fn live_bytes(&self) -> u64 {
        self.levels.iter().flatten().map(|f| f.bytes).sum()
    }

    /// A new SST file of `entries` whose heap serialization is `bytes`, at `percent` of it.
    fn new_file(&mut self, level: u8, entries: u64, bytes: u64, percent: u64) -> SstFile {
        let f = SstFile {
            number: self.next_file,
            level,
            entries,
            bytes: bytes * percent / 100 + SST_FILE_OVERHEAD,
        };
        self.next_file += 1;
        f
    }

    /// The memtable's `entries` (`bytes` serialized) become a new L0 file; its size.
    fn flush(&mut self, entries: u64, bytes: u64) -> u64 {
        if entries == 0 {
            return 0;
        }
        let f = self.new_file(0, entries, bytes, SST_PERCENT_FLUSHED);
        let size = f.bytes;
        self.levels[0].push(f);
        size
    }

    /// Whether the next native checkpoint's flush (`flushes`: it has entries to flush) starts a
    /// compaction of level 0: the moment a TTL compaction filter drops expired entries.
    pub fn compacts_after_flush(&self, flushes: bool) -> bool {
        self.levels[0].len() + usize::from(flushes) >= LEVEL0_COMPACTION_TRIGGER
    }

    /// Background compaction until no level is over its trigger. `live_*` is the whole state:
    /// a compaction's output holds each key once.
    fn compact_as_needed(&mut self, live_entries: u64, live_bytes: u64) {
        if self.levels[0].len() >= LEVEL0_COMPACTION_TRIGGER {
            self.compact(0, live_entries, live_bytes);
        }
        let mut level = 1;
        while level < self.levels.len() {
            let target = MAX_BYTES_FOR_LEVEL_BASE * LEVEL_MULTIPLIER.pow(level as u32 - 1);
            let size: u64 = self.levels[level].iter().map(|f| f.bytes).sum();
            if size > target {
                self.compact(level, live_entries, live_bytes);
            }
            level += 1;
        }
    }

    /// Merges all of `level` with the next level into new files there. Keys are spread over
    /// the whole key range, so every file overlaps every other: the merge takes the whole next
    /// level, and its output holds each live key once.
    fn compact(&mut self, level: usize, live_entries: u64, live_bytes: u64) {
        if self.levels.len() <= level + 1 {
            self.levels.push(Vec::new());
        }
        let mut inputs = std::mem::take(&mut self.levels[level]);
        inputs.append(&mut self.levels[level + 1]);
        let entries_in: u64 = inputs.iter().map(|f| f.entries).sum();
        let entries = entries_in.min(live_entries);
        let bytes = if live_entries == 0 {
            0
        } else {
            (u128::from(live_bytes) * u128::from(entries) / u128::from(live_entries)) as u64
        };
        let bottommost = self.levels[level + 2..].iter().all(Vec::is_empty);
        let percent = if bottommost {
            SST_PERCENT_BOTTOMMOST
        } else {
            SST_PERCENT_FLUSHED
        };
        let files = (bytes * percent / 100)
            .div_ceil(TARGET_FILE_SIZE_BASE)
            .max(1);
        for i in 0..files {
            let share = |total: u64| total / files + u64::from(i < total % files);
            let f = self.new_file(level as u8 + 1, share(entries), share(bytes), percent);
            self.levels[level + 1].push(f);
        }
    }

    /// The sync phase of checkpoint `id` (a savepoint when `savepoint`). Native: flush the
    /// memtable (`written_*`: the entries written since the last flush), link the live files,
    /// upload all of them or (incremental) those the last completed checkpoint does not hold;
    /// a compaction the flush started runs after. Canonical savepoint: a RocksDB snapshot now,
    /// every entry iterated into one stream in the async phase (`live_bytes` serialized).
    pub fn checkpoint(
        &mut self,
        id: CheckpointId,
        savepoint: bool,
        written: (u64, u64),
        live_entries: u64,
        live_bytes: u64,
    ) -> RocksCheckpoint {
        if savepoint {
            return RocksCheckpoint {
                kind: RocksSnapshotKind::Canonical,
                iterated_entries: live_entries,
                checkpointed_size: live_bytes,
                state_size: live_bytes,
                ..RocksCheckpoint::default()
            };
        }
        let kind = if self.incremental {
            RocksSnapshotKind::Incremental
        } else {
            RocksSnapshotKind::NativeFull
        };
        let flushed_bytes = self.flush(written.0, written.1);
        let files: Vec<SstFile> = self.levels.iter().flatten().cloned().collect();
        let held = |f: &SstFile| match kind {
            RocksSnapshotKind::Incremental => self.confirmed.get(&f.number).copied(),
            _ => None,
        };
        let uploaded_in: Vec<CheckpointId> = files.iter().map(|f| held(f).unwrap_or(id)).collect();
        let uploaded: Vec<u64> = files
            .iter()
            .filter(|f| held(f).is_none())
            .map(|f| f.number)
            .collect();
        let new_bytes: u64 = files
            .iter()
            .filter(|f| held(f).is_none())
            .map(|f| f.bytes)
            .sum();
        self.pending.insert(
            id,
            files
                .iter()
                .zip(&uploaded_in)
                .map(|(f, by)| (f.number, *by))
                .collect(),
        );
        let cp = RocksCheckpoint {
            kind,
            flushed_entries: written.0,
            flushed_bytes,
            reuses_files: self.forst,
            checkpointed_size: new_bytes + MISC_FILES_BYTES,
            state_size: self.live_bytes() + MISC_FILES_BYTES,
            uploaded,
            uploaded_in,
            files,
            iterated_entries: 0,
        };
        self.compact_as_needed(live_entries, live_bytes);
        cp
    }

    /// `notifyCheckpointComplete`: the next incremental checkpoint reuses this one's files.
    pub fn complete(&mut self, id: CheckpointId) {
        if let Some(files) = self.pending.remove(&id) {
            // A full checkpoint's files are its own: the next one uploads everything again.
            if self.incremental {
                self.confirmed = files;
            }
        }
        self.pending.retain(|&p, _| p > id);
    }

    /// `notifyCheckpointAborted`: its uploads are not confirmed.
    pub fn abort(&mut self, id: CheckpointId) {
        self.pending.remove(&id);
    }

    /// Restored. From a native checkpoint at the same parallelism the downloaded files are the
    /// instance's, as they were; `claimed` (a failover inside the job, whose
    /// `SharedStateRegistry` holds them) lets the next incremental checkpoint refer to them
    /// instead of uploading them again. A new job restored from a retained checkpoint
    /// (`execution.state-recovery.claim-mode: NO_CLAIM`, the default) does not own them, so its
    /// first checkpoint uploads everything. From a canonical savepoint, or rescaled, the
    /// entries (`bytes` serialized) are ingested into one new compacted file.
    pub fn restored(
        &mut self,
        from: Option<&RocksCheckpoint>,
        claimed: bool,
        entries: u64,
        bytes: u64,
    ) {
        *self = RocksDbInstance {
            forst: self.forst,
            ..RocksDbInstance::new(self.incremental)
        };
        match from.filter(|cp| cp.kind != RocksSnapshotKind::Canonical && !cp.files.is_empty()) {
            Some(cp) => {
                for (f, by) in cp.files.iter().zip(&cp.uploaded_in) {
                    let level = usize::from(f.level);
                    if self.levels.len() <= level {
                        self.levels.resize(level + 1, Vec::new());
                    }
                    self.levels[level].push(f.clone());
                    self.next_file = self.next_file.max(f.number + 1);
                    if claimed && cp.kind == RocksSnapshotKind::Incremental {
                        self.confirmed.insert(f.number, *by);
                    }
                }
            }
            None if entries > 0 => {
                let f = self.new_file(1, entries, bytes, SST_PERCENT_BOTTOMMOST);
                self.levels[1].push(f);
            }
            None => {}
        }
    }

    /// Bytes a restore downloads: the files a native checkpoint lists (and its misc files), or
    /// the canonical stream.
    pub fn download_sizes(cp: &RocksCheckpoint) -> Vec<u64> {
        if cp.kind == RocksSnapshotKind::Canonical {
            return vec![cp.checkpointed_size];
        }
        let mut sizes: Vec<u64> = cp.files.iter().map(|f| f.bytes).collect();
        sizes.push(MISC_FILES_BYTES);
        sizes
    }
}

/// The name of an uploaded SST file on checkpoint storage, which is also its
/// `SharedStateRegistryKey`: Flink names uploads with random UUIDs; here a UUID-shaped hash of
/// what makes the upload unique (the subtask, its chained operator, the file, the checkpoint
/// that uploaded it), so a run names its files the same way every time.
pub fn shared_handle_id(
    task: crate::types::SubtaskId,
    position: usize,
    file: u64,
    uploaded_in: CheckpointId,
) -> String {
    let words = [
        u64::from(task.vertex),
        u64::from(task.subtask),
        position as u64,
        file,
        uploaded_in,
    ];
    let fnv = |seed: u64| {
        words
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .fold(seed, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
            })
    };
    let (hi, lo) = (fnv(0xcbf2_9ce4_8422_2325), fnv(0x8422_2325_cbf2_9ce4));
    format!(
        "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        hi >> 32,
        (hi >> 16) & 0xffff,
        hi & 0xffff,
        lo >> 48,
        lo & 0xffff_ffff_ffff
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const MB: u64 = 1 << 20;

    #[test]
    fn every_checkpoint_flushes_one_l0_file_and_uploads_only_what_is_new() {
        let mut r = RocksDbInstance::new(true);
        let a = r.checkpoint(1, false, (1000, MB), 1000, MB);
        assert_eq!(a.files.len(), 1);
        assert_eq!(a.uploaded, [1]);
        assert_eq!(
            a.checkpointed_size,
            MB * 93 / 100 + SST_FILE_OVERHEAD + MISC_FILES_BYTES
        );
        r.complete(1);
        let b = r.checkpoint(2, false, (500, MB / 2), 1200, MB + MB / 5);
        assert_eq!(b.files.len(), 2);
        assert_eq!(b.uploaded, [2], "file 1 is held by checkpoint 1");
        assert_eq!(
            b.checkpointed_size,
            MB / 2 * 93 / 100 + SST_FILE_OVERHEAD + MISC_FILES_BYTES
        );
        assert_eq!(
            b.state_size,
            MB * 93 / 100 + MB / 2 * 93 / 100 + 2 * SST_FILE_OVERHEAD + MISC_FILES_BYTES
        );
    }

    #[test]
    fn an_unconfirmed_checkpoint_s_files_are_uploaded_again() {
        let mut r = RocksDbInstance::new(true);
        r.checkpoint(1, false, (1000, MB), 1000, MB);
        r.abort(1);
        let b = r.checkpoint(2, false, (10, 10_000), 1000, MB);
        assert_eq!(b.uploaded, [1, 2]);
    }

    #[test]
    fn the_fourth_l0_file_compacts_everything_into_level_1() {
        let mut r = RocksDbInstance::new(true);
        let mut uploads = Vec::new();
        for id in 1..=9 {
            let cp = r.checkpoint(id, false, (200_000, 2 * MB), 480_000, 5 * MB);
            r.complete(id);
            uploads.push((
                cp.uploaded.len(),
                cp.files.len(),
                cp.checkpointed_size == cp.state_size,
            ));
        }
        // Checkpoint 4 lists four L0 files and starts a compaction that ends after it:
        // checkpoint 5 uploads the new level 1 whole, with its own L0 file. Again at 8 and 9.
        assert_eq!(uploads[0], (1, 1, true));
        assert_eq!(uploads[3], (1, 4, false));
        assert_eq!(uploads[4], (2, 2, true));
        assert_eq!(uploads[5], (1, 3, false));
        assert_eq!(uploads[7], (1, 5, false));
        assert_eq!(uploads[8], (2, 2, true));
        let l1 = &r.levels()[1];
        assert_eq!(l1.len(), 1);
        assert_eq!(
            l1[0].entries, 480_000,
            "the compaction holds each live key once"
        );
        assert_eq!(l1[0].bytes, 5 * MB * 59 / 100 + SST_FILE_OVERHEAD);
    }

    #[test]
    fn a_level_over_its_target_moves_down_in_target_sized_files() {
        let mut r = RocksDbInstance::new(true);
        for id in 1..=4 {
            r.checkpoint(id, false, (10_000_000, 200 * MB), 30_000_000, 600 * MB);
        }
        // The compacted L1 (354 MB: 59 % of 600) is over the 256 MB base: it moves to L2,
        // cut into 64 MB files.
        assert!(r.levels()[1].is_empty());
        assert_eq!(r.levels()[2].len(), 6);
        assert_eq!(
            r.levels()[2].iter().map(|f| f.entries).sum::<u64>(),
            30_000_000
        );
    }

    #[test]
    fn a_full_checkpoint_uploads_every_native_file_and_a_savepoint_iterates() {
        let mut r = RocksDbInstance::new(false);
        r.checkpoint(1, false, (1000, MB), 1000, MB);
        r.complete(1);
        let cp = r.checkpoint(2, false, (500, MB / 2), 1200, MB);
        assert_eq!(cp.kind, RocksSnapshotKind::NativeFull);
        assert_eq!(cp.uploaded, [1, 2], "nothing is reused");
        assert_eq!(cp.checkpointed_size, cp.state_size);
        let sp = r.checkpoint(3, true, (0, 0), 1200, 10_000);
        assert_eq!(sp.kind, RocksSnapshotKind::Canonical);
        assert!(sp.files.is_empty());
        assert_eq!((sp.checkpointed_size, sp.iterated_entries), (10_000, 1200));
        assert_eq!(sp.upload_sizes(), [10_000]);
    }

    #[test]
    fn placeholders_name_the_checkpoint_whose_upload_holds_them() {
        let mut r = RocksDbInstance::new(true);
        r.checkpoint(1, false, (1000, MB), 1000, MB);
        r.complete(1);
        r.checkpoint(2, false, (10, 10_000), 1000, MB);
        r.complete(2);
        let c = r.checkpoint(3, false, (10, 10_000), 1000, MB);
        assert_eq!(c.uploaded_in, [1, 2, 3]);
        let mut full = RocksDbInstance::new(false);
        full.checkpoint(1, false, (1000, MB), 1000, MB);
        full.complete(1);
        assert_eq!(
            full.checkpoint(2, false, (1, 1), 1000, MB).uploaded_in,
            [2, 2]
        );
    }

    #[test]
    fn a_claimed_restore_keeps_the_files_and_their_uploads() {
        let mut r = RocksDbInstance::new(true);
        r.checkpoint(1, false, (1000, MB), 1000, MB);
        r.complete(1);
        let cp = r.checkpoint(2, false, (10, 10_000), 1010, MB);
        let mut restored = RocksDbInstance::new(true);
        restored.restored(Some(&cp), true, 1010, MB);
        assert_eq!(restored.levels(), r.levels());
        let next = restored.checkpoint(3, false, (5, 5000), 1010, MB);
        assert_eq!(next.uploaded, [3], "only the new L0 file: 1 and 2 are held");
        assert_eq!(next.uploaded_in, [1, 2, 3]);
        // A new job restored from the checkpoint (NO_CLAIM) does not own the files.
        let mut unclaimed = RocksDbInstance::new(true);
        unclaimed.restored(Some(&cp), false, 1010, MB);
        assert_eq!(
            unclaimed.checkpoint(3, false, (0, 0), 1010, MB).uploaded,
            [1, 2]
        );
        // Rescaled or from a savepoint: one ingested file, uploaded by the next checkpoint.
        let mut rescaled = RocksDbInstance::new(true);
        rescaled.restored(None, true, 1010, MB);
        let first = rescaled.checkpoint(7, false, (0, 0), 1010, MB);
        assert_eq!(first.uploaded.len(), 1);
        assert_eq!(first.files[0].level, 1);
    }

    #[test]
    fn handle_ids_differ_by_subtask_file_and_upload() {
        use crate::types::SubtaskId;
        let t = |subtask| SubtaskId { vertex: 1, subtask };
        let a = shared_handle_id(t(0), 0, 3, 5);
        assert_eq!(a.len(), 36);
        assert_eq!(a, shared_handle_id(t(0), 0, 3, 5));
        for other in [
            shared_handle_id(t(1), 0, 3, 5),
            shared_handle_id(t(0), 1, 3, 5),
            shared_handle_id(t(0), 0, 4, 5),
            shared_handle_id(t(0), 0, 3, 6),
        ] {
            assert_ne!(a, other);
        }
    }
}
