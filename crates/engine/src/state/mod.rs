//! Flink's state layer as the simulator needs it: where keys live (key groups), how heap state is
//! snapshotted while the task keeps writing (copy-on-write), what a snapshot contains and weighs, and
//! how state moves to new owners on rescale.
//!
//! - [`key_group`]: `KeyGroupRangeAssignment`/`MathUtils` — Java hash codes, murmur, key group →
//!   subtask, [`KeyGroupRange`], and [`StateKey`], the key types the simulator supports.
//! - [`cow_state_map`]: [`CopyOnWriteStateMap`] — versioned map whose snapshots stay fixed while
//!   writers copy only entries a running snapshot still shares.
//! - [`state_table`]: [`StateTable`] — one registered state, one map per key group; plus
//!   [`Namespace`] and [`ValueStateDescriptor`].
//! - [`heap_backend`]: [`HeapKeyedStateBackend`] — a subtask's keyed state: current key, value
//!   state access, snapshot/release, restore by key-group range.
//! - [`heap_snapshot_strategy`]: [`KeyedStateSnapshot`] and the byte layout of a heap snapshot.
//! - [`key_group_range_offsets`]: [`KeyGroupRangeOffsets`] — per key group stream offsets.
//! - [`meta_info`]: header sizes (`StateMetaInfoSnapshot`, serialization proxies).
//! - [`operator_state`]: [`OperatorStateBackend`] — list state, snapshot, round-robin
//!   redistribution.
//! - [`ttl`]: state time-to-live — expiry, the heap's incremental cleanup, RocksDB's
//!   compaction filter.
//! - [`flush_thread`]: [`FlushThread`] — a TaskManager's one RocksDB flush thread, which the
//!   sync phases of its keyed subtasks queue for.
//! - [`rocksdb`]: [`RocksDbInstance`] — the `EmbeddedRocksDBStateBackend`'s files (memtable
//!   flushes, L0, compaction) and what a full or incremental checkpoint uploads of them.

pub mod cow_state_map;
pub mod flush_thread;
pub mod heap_backend;
pub mod heap_snapshot_strategy;
pub mod key_group;
pub mod key_group_range_offsets;
pub mod meta_info;
pub mod operator_state;
pub mod rocksdb;
pub mod state_table;
pub mod ttl;

pub use cow_state_map::{
    CopyOnWriteStateMap, CopyOnWriteStateMapSnapshot, CowCounters, StateMapEntry,
};
pub use flush_thread::FlushThread;
pub use heap_backend::{key_serializer_of, HeapKeyedStateBackend, Memtable, StateId};
pub use heap_snapshot_strategy::{KeyGroupSnapshot, KeyedStateSnapshot, SnapshotEntry};
pub use key_group::{
    assign_key_to_parallel_operator, assign_to_key_group, check_parallelism,
    compute_default_max_parallelism, compute_operator_index_for_key_group, java_hash_i32,
    java_hash_i64, java_hash_str, murmur_hash, KeyGroupRange, StateKey,
};
pub use key_group_range_offsets::KeyGroupRangeOffsets;
pub use meta_info::{BackendStateType, SerializerKind, StateMetaInfo};
pub use operator_state::{
    list_state_header_len, redistribute, DistributionMode, ListElement, ListStateSnapshot,
    OperatorStateBackend, OperatorStateSnapshot,
};
pub use rocksdb::{RocksCheckpoint, RocksDbInstance, SstFile};
pub use state_table::{Namespace, StateKind, StateTable, ValueStateDescriptor};
