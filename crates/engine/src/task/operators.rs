//! The operators a chain can hold, each with its state: the engine's counterparts of the seed
//! job's `DataGeneratorSource`, `KeyedProcessFunction` with a `ValueState<Long>` counter,
//! `CheckpointListener` map and the sinks (Sink V2 writer + committer for two-phase commit).

use std::collections::BTreeMap;

use crate::network::Record;
use crate::scenario::{KeyDistribution, OperatorKind};
use crate::state::{
    heap_backend, DistributionMode, HeapKeyedStateBackend, KeyGroupRange, KeyedStateSnapshot,
    ListElement, Namespace, OperatorStateBackend, OperatorStateSnapshot, StateId, StateKey,
};
use crate::types::{CheckpointId, Micros};

/// Serialized size of a `(key, count)` / `(key, sum)` output record: int key, long value, header.
pub const KEYED_OUTPUT_BYTES: u32 = 4 + 8 + crate::network::RECORD_HEADER_BYTES;

/// SplitMix64: a stateless mixer, so a datagen's record `seq` always has the same key, value and
/// filter decision, also when it is replayed after a restore.
pub fn mix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Whether the filter keeping `keep_percent` % lets record `seq` of source `origin` through: a
/// pure function of the record, so a replay after restore and the verifier decide alike (the
/// exported Java job computes the same, docs/export.md).
pub fn filter_passes(keep_percent: u32, origin: u32, seq: u64) -> bool {
    mix64(u64::from(origin) << 40 ^ seq ^ 0xf117) % 100 < u64::from(keep_percent)
}

/// `DataGeneratorSource` with a rate limiter: subtask `index` of `parallelism` emits its share of
/// `rate` records per second. Its operator state is its read position (the split's offset).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Datagen {
    pub rate_per_subtask: u64,
    pub record_bytes: u32,
    pub keys: u32,
    #[serde(with = "crate::types::snapshot_forms::json_when_compact")]
    pub distribution: KeyDistribution,
    /// Records this subtask emits in total (`None`: unbounded).
    pub bounded: Option<u64>,
    pub origin: u32,
    /// The split's id: `NumberSequenceSource.splitNumberRange` numbers the splits "1" to "P"
    /// (which reader gets which is the enumerator's choice; the bytes are the same).
    pub split_id: String,
    pub seed: u64,
    /// Next sequence number (the split offset).
    pub next_seq: u64,
    /// Rate-limiter anchor: record `base_seq` was due at `base_time`.
    pub base_time: Micros,
    pub base_seq: u64,
    pub state: OperatorStateBackend,
}

pub const SPLIT_STATE: &str = "SourceReaderState";

impl Datagen {
    /// When record `seq` is due (integer math; no catch-up after a stall).
    pub fn due(&self, seq: u64) -> Micros {
        if self.rate_per_subtask == 0 {
            return Micros::MAX;
        }
        let n = seq - self.base_seq;
        // The same quotient as in u128, without the slow 128-bit division when u64 suffices.
        let offset = match n.checked_mul(1_000_000) {
            Some(scaled) => scaled / self.rate_per_subtask,
            None => (u128::from(n) * 1_000_000 / u128::from(self.rate_per_subtask)) as Micros,
        };
        self.base_time + offset
    }

    /// The first sequence number from `next_seq` on that is not due by `now`: the records
    /// `next_seq..` below it are exactly those with `due(seq) <= now`, found with one division.
    pub fn first_not_due(&self, now: Micros) -> u64 {
        if self.rate_per_subtask == 0 {
            return if now == Micros::MAX {
                u64::MAX
            } else {
                self.next_seq
            };
        }
        if now < self.base_time {
            return self.next_seq;
        }
        // due(base_seq + n) <= now  ⟺  n * 1e6 / rate <= now - base_time
        //                          ⟺  n * 1e6 < (now - base_time + 1) * rate.
        let limit = (u128::from(now - self.base_time) + 1) * u128::from(self.rate_per_subtask);
        let count = limit.div_ceil(1_000_000);
        let first = u128::from(self.base_seq) + count;
        u64::try_from(first).unwrap_or(u64::MAX).max(self.next_seq)
    }

    pub fn exhausted(&self) -> bool {
        self.bounded.is_some_and(|b| self.next_seq >= b)
    }

    /// The record with sequence number `seq`: a pure function of (seed, origin, seq).
    pub fn record(&self, seq: u64) -> Record {
        let r = mix64(self.seed ^ (u64::from(self.origin) << 40) ^ seq);
        let keys = u64::from(self.keys.max(1));
        let key = match self.distribution {
            KeyDistribution::Uniform => r % keys,
            KeyDistribution::Skewed {
                hot_keys,
                hot_percent,
            } => {
                let hot = u64::from(hot_keys.clamp(1, self.keys.max(1)));
                if (r >> 32) % 100 < u64::from(hot_percent) {
                    r % hot
                } else {
                    r % keys
                }
            }
        };
        Record::new(key as i32, 1, self.origin, seq, self.record_bytes)
    }

    /// Restores the read position from the split state of `snapshot` (0 without one) and
    /// emits from `now` on, as a restored `DataGeneratorSource` reader resumes its split.
    pub fn restore_offset(&mut self, snapshot: Option<&OperatorStateSnapshot>, now: Micros) {
        let offset = snapshot
            .and_then(|o| o.states.first())
            .and_then(|l| l.elements.first())
            .map(|e| e.value.max(0) as u64)
            .unwrap_or(0);
        self.next_seq = offset;
        self.base_seq = offset;
        self.base_time = now;
        self.snapshot_offset();
    }

    /// Stores the offset into the split state (done at every snapshot).
    pub fn snapshot_offset(&mut self) {
        // The list state holds exactly one split; update cannot fail for a registered state.
        let _ = self.state.update(
            SPLIT_STATE,
            vec![ListElement::source_split(
                &self.split_id,
                self.next_seq as i64,
            )],
        );
    }
}

/// Keyed state of a keyed operator, with the id of its one value state.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Keyed {
    pub backend: HeapKeyedStateBackend,
    pub state: StateId,
    /// With `state.backend.type: rocksdb`: the instance's files. The entries stay in `backend`.
    pub rocksdb: Option<crate::state::RocksDbInstance>,
    /// The state's TTL (`state-ttl`), if any.
    pub ttl_millis: Option<u64>,
}

impl Keyed {
    pub fn new(max_parallelism: u32, range: KeyGroupRange, windowed: bool) -> Result<Self, String> {
        let (backend, state) =
            HeapKeyedStateBackend::for_counter(max_parallelism, range, windowed)?;
        Ok(Keyed {
            backend,
            state,
            rocksdb: None,
            ttl_millis: None,
        })
    }

    /// A keyed process function's state registered by `desc` (a list, a TTL).
    pub fn with_state(
        max_parallelism: u32,
        range: KeyGroupRange,
        desc: crate::state::ValueStateDescriptor,
    ) -> Result<Self, String> {
        let ttl_millis = desc.ttl_millis;
        let (backend, state) = HeapKeyedStateBackend::for_state(max_parallelism, range, desc)?;
        Ok(Keyed {
            backend,
            state,
            rocksdb: None,
            ttl_millis,
        })
    }

    /// The heap's incremental TTL cleanup runs on state access; RocksDB's TTL cleanup is its
    /// compaction filter.
    fn cleanup_on_access(&mut self, accesses: u32, now_millis: i64) {
        if self.rocksdb.is_none() {
            self.backend.ttl_accessed(self.state, accesses, now_millis);
        }
    }

    /// The keyed count's `value()` then `update(value + 1)` at processing time `now`.
    pub fn count(&mut self, rec: &Record, now: Micros) -> Result<i64, String> {
        if self.ttl_millis.is_none() {
            return self.add(rec, Namespace::Void, 1);
        }
        let now_millis = (now / 1_000) as i64;
        let kg = rec.key_group(self.backend.max_parallelism());
        let count =
            self.backend
                .add_int_ttl(rec.key, kg, self.state, Namespace::Void, 1, now_millis)?;
        self.cleanup_on_access(2, now_millis);
        Ok(count)
    }

    /// `ListState.add(value)` at processing time `now`; the list's length.
    pub fn append(&mut self, rec: &Record, now: Micros) -> Result<i64, String> {
        let now_millis = (now / 1_000) as i64;
        let kg = rec.key_group(self.backend.max_parallelism());
        let len =
            self.backend
                .list_append_int(rec.key, kg, self.state, Namespace::Void, now_millis)?;
        if self.ttl_millis.is_some() {
            self.cleanup_on_access(1, now_millis);
        }
        Ok(len)
    }

    /// Replaces the state with the key groups of `range` from `snapshots` (of the operator's
    /// previous subtasks), re-finding its value state by the name `Keyed::new` registered.
    /// `rocksdb`: the native checkpoint of this same subtask when nothing was rescaled, and
    /// whether the job owns its files (see [`crate::state::RocksDbInstance::restored`]).
    pub fn restore(
        &mut self,
        max_parallelism: u32,
        range: KeyGroupRange,
        snapshots: &[KeyedStateSnapshot],
        rocksdb: (Option<&crate::state::RocksCheckpoint>, bool),
    ) -> Result<(), String> {
        self.backend = HeapKeyedStateBackend::restore(max_parallelism, range, snapshots)?;
        if let Some(r) = self.rocksdb.as_mut() {
            // Not rescaled: one of the handles is exactly this subtask's key groups.
            let rescaled = !snapshots.iter().any(|s| s.key_group_range == range);
            let counters = self.backend.counters();
            let bytes: u64 = snapshots.iter().map(|s| s.state_size).sum();
            let from = rocksdb.0.filter(|_| !rescaled);
            r.restored(from, rocksdb.1, counters.entries, bytes);
        }
        self.state = [
            heap_backend::COUNT_STATE,
            heap_backend::WINDOW_SUM_STATE,
            heap_backend::LIST_STATE,
        ]
        .into_iter()
        .find_map(|name| self.backend.state_id(name))
        .ok_or("restored keyed state has no value state")?;
        Ok(())
    }

    /// `value += delta` for the record's key in `namespace`; returns the new value.
    pub fn add(&mut self, rec: &Record, namespace: Namespace, delta: i64) -> Result<i64, String> {
        let kg = rec.key_group(self.backend.max_parallelism());
        self.backend
            .add_int(rec.key, kg, self.state, namespace, delta)
    }
}

/// A two-phase-commit sink (Sink V2 `TwoPhaseCommittingSink`: writer + committer): records go
/// into the open transaction; `prepareSnapshotPreBarrier` pre-commits it as the checkpoint's
/// committable; `notifyCheckpointComplete` commits every committable up to that checkpoint in
/// the external system (the simulation's `ExternalSystem`, which outlives failures).
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct TwoPhaseCommit {
    /// Records written into the open transaction, as `(origin, seq)`.
    pub open: Vec<(u32, u64)>,
    /// Pre-committed transactions by the checkpoint that pre-committed them.
    pub pending: BTreeMap<CheckpointId, Vec<(u32, u64)>>,
    /// Transactions this subtask committed (newest last, bounded), for inspectors.
    pub committed_transactions: Vec<CheckpointId>,
    /// The writer's own operator state (`SinkWriterOperator`): none until the job is restored.
    pub writer_state: OperatorStateBackend,
}

/// The Sink V1 committer state a restored `SinkWriterOperator` of a committing sink registers,
/// reads and clears (FLINK-33437): cleared, it stays registered, so its meta-info header is in
/// every later checkpoint (247 bytes a subtask in Flink 2.3.0's `_metadata`).
pub const LEGACY_COMMITTER_STATE: &str = "streaming_committer_raw_states";

impl TwoPhaseCommit {
    /// `SinkWriterOperator.initializeState` of a restored job (any restore, whether or not this
    /// subtask had state).
    pub fn restored(&mut self) {
        // A name registered once with one mode: registering it again is a no-op.
        let _ = self
            .writer_state
            .register_list_state(LEGACY_COMMITTER_STATE, DistributionMode::SplitDistribute);
        let _ = self.writer_state.update(LEGACY_COMMITTER_STATE, Vec::new());
    }
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub enum Operator {
    Datagen(Box<Datagen>),
    Map,
    Filter {
        keep_percent: u32,
    },
    KeyedCount(Box<Keyed>),
    KeyedList(Box<Keyed>),
    KeyedWindowSum {
        keyed: Box<Keyed>,
        window: Micros,
        /// Registered processing-time timers: (window end, key).
        timers: std::collections::BTreeSet<(Micros, i32)>,
    },
    Union,
    CheckpointAwareMap {
        /// Checkpoints this subtask was notified of, newest last (bounded).
        notified: Vec<CheckpointId>,
    },
    DiscardSink {
        records: u64,
    },
    /// A non-transactional sink: every record is written to the external system at once (and
    /// written again if it is replayed after a restore).
    CollectSink {
        unflushed: Vec<(u32, u64)>,
    },
    TwoPhaseCommitSink(Box<TwoPhaseCommit>),
}

impl Operator {
    /// Builds the operator instance of subtask `index` of `parallelism`.
    pub fn new(
        kind: &OperatorKind,
        index: u32,
        parallelism: u32,
        max_parallelism: u32,
        origin: u32,
        seed: u64,
    ) -> Result<Operator, String> {
        let range = KeyGroupRange::for_operator_index(max_parallelism, parallelism, index);
        Ok(match kind {
            OperatorKind::Datagen {
                rate,
                record_size,
                keys,
                key_distribution,
                bounded,
            } => {
                // Split the totals as evenly as Flink's datagen splits do: the first subtasks get
                // the remainder.
                let p = u64::from(parallelism.max(1));
                let i = u64::from(index);
                let share = |total: u64| total / p + u64::from(i < total % p);
                let mut state = OperatorStateBackend::new();
                state.register_list_state(
                    SPLIT_STATE,
                    crate::state::DistributionMode::SplitDistribute,
                )?;
                Operator::Datagen(Box::new(Datagen {
                    rate_per_subtask: share(*rate),
                    record_bytes: (*record_size as u32).max(1)
                        + crate::network::RECORD_HEADER_BYTES,
                    keys: *keys,
                    distribution: key_distribution.clone(),
                    bounded: bounded.map(share),
                    origin,
                    split_id: (index + 1).to_string(),
                    seed,
                    next_seq: 0,
                    base_time: 0,
                    base_seq: 0,
                    state,
                }))
            }
            OperatorKind::Map => Operator::Map,
            OperatorKind::Filter { keep_percent } => Operator::Filter {
                keep_percent: *keep_percent,
            },
            OperatorKind::KeyedCount => {
                Operator::KeyedCount(Box::new(Keyed::new(max_parallelism, range, false)?))
            }
            OperatorKind::KeyedList => Operator::KeyedList(Box::new(Keyed::with_state(
                max_parallelism,
                range,
                crate::state::ValueStateDescriptor::list_of_long(heap_backend::LIST_STATE),
            )?)),
            OperatorKind::KeyedWindowSum { window } => Operator::KeyedWindowSum {
                keyed: Box::new(Keyed::new(max_parallelism, range, true)?),
                window: crate::types::parse_duration(window)?.max(1),
                timers: Default::default(),
            },
            OperatorKind::Union => Operator::Union,
            OperatorKind::CheckpointAwareMap => Operator::CheckpointAwareMap {
                notified: Vec::new(),
            },
            OperatorKind::DiscardSink => Operator::DiscardSink { records: 0 },
            OperatorKind::CollectSink => Operator::CollectSink {
                unflushed: Vec::new(),
            },
            OperatorKind::TwoPhaseCommitSink => Operator::TwoPhaseCommitSink(Box::default()),
        })
    }

    /// Processes one record at processing time `now`, pushing what it emits into `out`.
    pub fn process(
        &mut self,
        rec: Record,
        now: Micros,
        out: &mut Vec<Record>,
    ) -> Result<(), String> {
        match self {
            Operator::Datagen(_)
            | Operator::Map
            | Operator::Union
            | Operator::CheckpointAwareMap { .. } => out.push(rec),
            Operator::Filter { keep_percent } => {
                if filter_passes(*keep_percent, rec.origin, rec.seq) {
                    out.push(rec);
                }
            }
            Operator::KeyedCount(k) => {
                let count = k.count(&rec, now)?;
                out.push(Record {
                    value: count,
                    bytes: KEYED_OUTPUT_BYTES,
                    ..rec
                });
            }
            Operator::KeyedList(k) => {
                k.append(&rec, now)?;
                out.push(rec);
            }
            Operator::KeyedWindowSum {
                keyed,
                window,
                timers,
            } => {
                let start = now - now % *window;
                let end = start + *window;
                let ns = Namespace::TimeWindow {
                    start: start as i64,
                    end: end as i64,
                };
                keyed.add(&rec, ns, rec.value)?;
                timers.insert((end, rec.key));
            }
            Operator::DiscardSink { records } => *records += 1,
            Operator::CollectSink { unflushed } => unflushed.push((rec.origin, rec.seq)),
            Operator::TwoPhaseCommitSink(t) => t.open.push((rec.origin, rec.seq)),
        }
        Ok(())
    }

    /// Whether [`Operator::process`] emits each record unchanged and has no state to update.
    pub fn passes_through(&self) -> bool {
        matches!(
            self,
            Operator::Datagen(_)
                | Operator::Map
                | Operator::Union
                | Operator::CheckpointAwareMap { .. }
        )
    }

    /// [`Operator::process`] for each record of `input` in order, matching on the operator once
    /// per batch rather than per record; each record that fails reports its message to `warn`.
    pub fn process_batch(
        &mut self,
        input: &[Record],
        now: Micros,
        out: &mut Vec<Record>,
        mut warn: impl FnMut(String),
    ) {
        match self {
            Operator::Datagen(_)
            | Operator::Map
            | Operator::Union
            | Operator::CheckpointAwareMap { .. } => out.extend_from_slice(input),
            Operator::KeyedCount(k) => {
                out.reserve(input.len());
                for rec in input {
                    match k.count(rec, now) {
                        Ok(count) => out.push(Record {
                            value: count,
                            bytes: KEYED_OUTPUT_BYTES,
                            ..*rec
                        }),
                        Err(message) => warn(message),
                    }
                }
            }
            Operator::DiscardSink { records } => *records += input.len() as u64,
            _ => {
                for rec in input {
                    if let Err(message) = self.process(*rec, now, out) {
                        warn(message);
                    }
                }
            }
        }
    }

    /// Fires the processing-time timers due at `now` (window ends), emitting the windows' sums.
    pub fn fire_timers(&mut self, now: Micros, out: &mut Vec<Record>) -> Result<u32, String> {
        let Operator::KeyedWindowSum {
            keyed,
            window,
            timers,
        } = self
        else {
            return Ok(0);
        };
        let mut fired = 0;
        while let Some(&(end, key)) = timers.first() {
            if end > now {
                break;
            }
            timers.pop_first();
            let ns = Namespace::TimeWindow {
                start: (end - *window) as i64,
                end: end as i64,
            };
            keyed.backend.set_current_key(StateKey::Int(key))?;
            let sum = keyed.backend.value(keyed.state, &ns)?.unwrap_or(0);
            keyed.backend.clear(keyed.state, &ns)?;
            out.push(Record::new(key, sum, u32::MAX, end, KEYED_OUTPUT_BYTES));
            fired += 1;
        }
        Ok(fired)
    }

    /// The earliest registered timer.
    pub fn next_timer(&self) -> Option<Micros> {
        match self {
            Operator::KeyedWindowSum { timers, .. } => timers.first().map(|t| t.0),
            _ => None,
        }
    }

    /// The operator with `StateTtlConfig.newBuilder(ttl)` on its keyed process function's
    /// state (built before it holds any state).
    pub fn with_state_ttl(self, ttl_millis: Option<u64>) -> Result<Operator, String> {
        let ttl = |k: Box<Keyed>| -> Result<Box<Keyed>, String> {
            let desc = k
                .backend
                .descriptor(k.state)
                .ok_or("keyed state not registered")?
                .clone()
                .with_ttl(ttl_millis);
            Ok(Box::new(Keyed::with_state(
                k.backend.max_parallelism(),
                k.backend.key_group_range(),
                desc,
            )?))
        };
        Ok(match self {
            _ if ttl_millis.is_none() => self,
            Operator::KeyedCount(k) => Operator::KeyedCount(ttl(k)?),
            Operator::KeyedList(k) => Operator::KeyedList(ttl(k)?),
            other => other,
        })
    }

    pub fn keyed(&mut self) -> Option<&mut Keyed> {
        match self {
            Operator::KeyedCount(k) | Operator::KeyedList(k) => Some(k),
            Operator::KeyedWindowSum { keyed, .. } => Some(keyed),
            _ => None,
        }
    }

    pub fn keyed_ref(&self) -> Option<&Keyed> {
        match self {
            Operator::KeyedCount(k) | Operator::KeyedList(k) => Some(k),
            Operator::KeyedWindowSum { keyed, .. } => Some(keyed),
            _ => None,
        }
    }

    /// What state access adds to each record's cost beyond the heap's: RocksDB's reads and
    /// writes through JNI (`rocksdb::ACCESS_MICROS_PER_RECORD`). ForSt's run on its state
    /// executor's threads (the async state API); the task thread keeps the requests' and
    /// callbacks' bookkeeping: Flink 2.3's keyed subtask is 0.05-0.14 busy on ForSt at 50 000
    /// records/s (harness `forst`, 2026-12-04 and -05), 2 µs over the heap's 1 µs.
    /// A keyed list's `add` on RocksDB is a merge: one write into the memtable, no read. Flink
    /// 2.3's keyed list is as idle on RocksDB as on the heap at 10 000 records/s a subtask
    /// (busy 0.00-0.06, harness `list-state-rocksdb` and `list-state`), so it adds nothing.
    pub fn state_access_micros(&self) -> Micros {
        match (self, self.keyed_ref().and_then(|k| k.rocksdb.as_ref())) {
            (Operator::KeyedList(_), _) => 0,
            (_, Some(r)) if r.is_forst() => crate::state::rocksdb::FORST_ACCESS_MICROS_PER_RECORD,
            (_, Some(_)) => crate::state::rocksdb::ACCESS_MICROS_PER_RECORD,
            _ => 0,
        }
    }

    /// Keyed snapshot of this operator, if it has keyed state.
    pub fn snapshot_keyed(&mut self, id: CheckpointId) -> Option<KeyedStateSnapshot> {
        self.keyed().map(|k| k.backend.snapshot(id))
    }
}
