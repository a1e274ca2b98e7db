use super::*;
use crate::state::key_group::compute_default_max_parallelism;
use crate::state::operator_state::{DistributionMode, ListElement, OperatorStateBackend};

const MAX_P: u32 = 128;

fn backend(p: u32, i: u32) -> HeapKeyedStateBackend {
    let range = KeyGroupRange::for_operator_index(MAX_P, p, i);
    HeapKeyedStateBackend::new(MAX_P, range, SerializerKind::Int).unwrap()
}

/// The seed job: keys 0..=15 counted in `ValueState<Long>` by two subtasks, `count` = key + 1.
fn seed_backends(with_timers: bool) -> Vec<HeapKeyedStateBackend> {
    (0..2)
        .map(|i| {
            let mut b = backend(2, i);
            let id = b
                .register_value_state(ValueStateDescriptor::long("count"))
                .unwrap();
            if with_timers {
                b.register_timer_service("user-timers");
            }
            for k in 0..16 {
                if b.set_current_key(StateKey::Int(k)).is_ok() {
                    b.update(id, Namespace::Void, i64::from(k) + 1).unwrap();
                }
            }
            b
        })
        .collect()
}

#[test]
fn value_state_per_current_key() {
    let mut b = backend(1, 0);
    let id = b
        .register_value_state(ValueStateDescriptor::long("count"))
        .unwrap();
    assert_eq!(
        b.register_value_state(ValueStateDescriptor::long("count")),
        Ok(id)
    );
    assert!(b
        .register_value_state(ValueStateDescriptor::windowed_long("count"))
        .is_err());
    assert!(b.value(id, &Namespace::Void).is_err(), "no current key");
    b.set_current_key(StateKey::Int(3)).unwrap();
    assert_eq!(b.value(id, &Namespace::Void), Ok(None));
    b.update(id, Namespace::Void, 7).unwrap();
    b.set_current_key(StateKey::Int(4)).unwrap();
    b.update(id, Namespace::Void, 8).unwrap();
    b.set_current_key(StateKey::Int(3)).unwrap();
    assert_eq!(b.value(id, &Namespace::Void), Ok(Some(7)));
    b.clear(id, &Namespace::Void).unwrap();
    assert_eq!(b.value(id, &Namespace::Void), Ok(None));
    assert!(
        b.set_current_key(StateKey::Long(3)).is_err(),
        "wrong key type"
    );
    assert!(b.value(StateId(9), &Namespace::Void).is_err());
    let kg4 = StateKey::Int(4).key_group(MAX_P);
    let in_kg: Vec<_> = b
        .entries_in_key_group(id, kg4)
        .map(|(k, _, v)| (k.clone(), v))
        .collect();
    assert_eq!(in_kg, vec![(StateKey::Int(4), 8)]);
}

#[test]
fn keys_outside_the_range_are_rejected() {
    let mut b = backend(2, 0);
    // Key 0 → key group 94 → subtask 1.
    assert!(b.set_current_key(StateKey::Int(0)).is_err());
    assert!(b.set_current_key(StateKey::Int(4)).is_ok());
}

#[test]
fn windowed_sum_fits() {
    let mut b =
        HeapKeyedStateBackend::new(MAX_P, KeyGroupRange::new(0, 127), SerializerKind::String)
            .unwrap();
    let id = b
        .register_value_state(ValueStateDescriptor::windowed_long("sum"))
        .unwrap();
    b.set_current_key(StateKey::Str("user-1".into())).unwrap();
    for (end, add) in [(1000, 5), (1000, 6), (2000, 1)] {
        let w = Namespace::TimeWindow {
            start: end - 1000,
            end,
        };
        let old = b.value(id, &w).unwrap().unwrap_or(0);
        b.update(id, w, old + add).unwrap();
    }
    let snap = b.snapshot(1);
    assert_eq!(snap.entry_count(), 2);
    let kg = StateKey::Str("user-1".into()).key_group(MAX_P);
    let vals: Vec<i64> = snap.entries(0, kg).iter().map(|e| e.value).collect();
    assert_eq!(vals, vec![11, 1]);
}

#[test]
fn snapshot_layout_and_offsets() {
    let mut bs = seed_backends(false);
    let s0 = bs[0].snapshot(1);
    let s1 = bs[1].snapshot(1);
    assert_eq!((s0.entry_count(), s1.entry_count()), (7, 9));
    for s in [&s0, &s1] {
        assert_eq!(s.offsets.offsets.len(), 64);
        assert_eq!(s.offsets.offsets[0], s.header_bytes);
        // 64 key groups × (id 4 + state id 2 + count 4) + entries × (void 1 + int 4 + long 8).
        let body = 64 * 10 + s.entry_count() as u64 * 13;
        assert_eq!(s.state_size, s.header_bytes + body);
        // Offsets grow by 10 per empty key group and 13 more per entry.
        for w in s.offsets.iter().collect::<Vec<_>>().windows(2) {
            let (kg, at) = w[0];
            let n = s.entries(0, kg).len() as u64;
            assert_eq!(w[1].1 - at, 10 + 13 * n);
        }
    }
    // A backend with no registered state writes nothing.
    assert_eq!(backend(2, 0).snapshot(1).state_size, 0);
}

#[test]
fn snapshot_is_held_until_released() {
    let mut b = seed_backends(false).remove(1);
    let id = b.state_id("count").unwrap();
    let snap = b.snapshot(5);
    b.set_current_key(StateKey::Int(0)).unwrap();
    b.update(id, Namespace::Void, 100).unwrap();
    b.update(id, Namespace::Void, 101).unwrap();
    assert_eq!(b.counters().copies_since_snapshot, 1);
    assert_eq!(
        snap.entries(0, 94)[0].value,
        1,
        "snapshot keeps key 0's old count"
    );
    assert_eq!(b.running_snapshots().collect::<Vec<_>>(), vec![5]);
    b.release_snapshot(5);
    b.set_current_key(StateKey::Int(1)).unwrap();
    b.update(id, Namespace::Void, 7).unwrap();
    assert_eq!(
        b.counters().copies_since_snapshot,
        1,
        "released: no more copies"
    );
    assert_eq!(b.counters().entries, 9);
}

#[test]
fn restore_redistributes_key_groups() {
    let mut old = seed_backends(true);
    let snaps: Vec<_> = old.iter_mut().map(|b| b.snapshot(3)).collect();
    for p in [1u32, 3, 4] {
        let mut total = 0;
        for i in 0..p {
            let range = KeyGroupRange::for_operator_index(MAX_P, p, i);
            let mut b = HeapKeyedStateBackend::restore(MAX_P, range, &snaps).unwrap();
            let id = b.state_id("count").unwrap();
            for k in 0..16 {
                if b.set_current_key(StateKey::Int(k)).is_ok() {
                    assert_eq!(b.value(id, &Namespace::Void), Ok(Some(i64::from(k) + 1)));
                    total += 1;
                }
            }
            // Timer services survive so the restored snapshot has the same header.
            assert_eq!(b.snapshot(4).header_bytes, snaps[0].header_bytes);
        }
        assert_eq!(total, 16, "parallelism {p}");
    }
    // Restoring the same split reproduces the snapshot exactly.
    let mut again =
        HeapKeyedStateBackend::restore(MAX_P, snaps[0].key_group_range, &snaps[..1]).unwrap();
    let mut expected = snaps[0].clone();
    expected.checkpoint_id = 9;
    assert_eq!(again.snapshot(9), expected);
    assert!(HeapKeyedStateBackend::restore(256, KeyGroupRange::new(0, 255), &snaps).is_err());
}

/// The seed's checkpoint: keyed counters on two subtasks plus two source readers' splits.
#[test]
fn seed_checkpoint_size() {
    assert_eq!(compute_default_max_parallelism(2), MAX_P);
    let sources: u64 = (0..2)
        .map(|i| {
            let mut o = OperatorStateBackend::new();
            o.register_list_state("SourceReaderState", DistributionMode::SplitDistribute)
                .unwrap();
            o.add(
                "SourceReaderState",
                ListElement::source_split(&i.to_string(), 1000),
            )
            .unwrap();
            o.snapshot(1).state_size
        })
        .sum();
    let keyed = |timers: bool| -> u64 {
        seed_backends(timers)
            .iter_mut()
            .map(|b| b.snapshot(1).state_size)
            .sum()
    };
    let (plain, with_timers) = (keyed(false), keyed(true));
    // Plain counters: 2 × header 365 + 2 × 64 key groups × 10 + 16 entries × 13.
    assert_eq!(plain, 2 * 365 + 2 * 64 * 10 + 16 * 13);
    // A KeyedProcessFunction also registers the "user-timers" service: per subtask two queue meta
    // infos (332 and 337 bytes) and 6 more bytes per queue per key group.
    assert_eq!(with_timers, plain + 2 * (332 + 337 + 64 * 2 * 6));
    // Each source reader: operator header 234 + one 31-byte split.
    assert_eq!(sources, 2 * (234 + 31));
    // 5622 bytes, what Flink 2.3.0 wrote for the exported seed job (keyed 2533 + 2559, sources
    // 2 × 265), byte for byte (the seed's own run reports "5.7 KB").
    assert_eq!(with_timers + sources, 5622);
}

fn ttl_backend(desc: ValueStateDescriptor) -> (HeapKeyedStateBackend, StateId) {
    HeapKeyedStateBackend::for_state(MAX_P, KeyGroupRange::new(0, MAX_P - 1), desc).unwrap()
}

fn kg(key: i32) -> u32 {
    StateKey::Int(key).key_group(MAX_P)
}

#[test]
fn an_expired_value_reads_as_absent_and_the_write_stamps_it() {
    let (mut b, id) = ttl_backend(ValueStateDescriptor::long("count").with_ttl(Some(100)));
    let add = |b: &mut HeapKeyedStateBackend, at: i64| {
        b.add_int_ttl(7, kg(7), id, Namespace::Void, 1, at).unwrap()
    };
    assert_eq!(add(&mut b, 0), 1);
    assert_eq!(add(&mut b, 99), 2, "not expired before ts + ttl");
    // Written at 99: expires at 199 (`TtlUtils.expired`: expiration <= now).
    assert_eq!(add(&mut b, 198), 3);
    assert_eq!(add(&mut b, 298), 1, "expired at 298: starts over");
}

#[test]
fn incremental_cleanup_visits_five_entries_per_access() {
    let (mut b, id) = ttl_backend(ValueStateDescriptor::long("count").with_ttl(Some(100)));
    for key in 0..50 {
        b.add_int_ttl(key, kg(key), id, Namespace::Void, 1, 0)
            .unwrap();
    }
    assert_eq!(b.counters().entries, 50);
    // Before expiry a visit drops nothing.
    b.ttl_accessed(id, 10, 50);
    assert_eq!(b.counters().entries, 50);
    // After it, each access drops the next five.
    b.ttl_accessed(id, 1, 100);
    assert_eq!(b.counters().entries, 45);
    b.ttl_accessed(id, 3, 100);
    assert_eq!(b.counters().entries, 30);
    b.ttl_accessed(id, 100, 100);
    assert_eq!(b.counters().entries, 0);
}

#[test]
fn list_state_sizes_follow_the_list_serializer() {
    for (ttl, element) in [(None, 8u64), (Some(1_000), 16)] {
        let (mut b, id) = ttl_backend(ValueStateDescriptor::list_of_long("list").with_ttl(ttl));
        for at in 0..3 {
            assert_eq!(
                b.list_append_int(5, kg(5), id, Namespace::Void, at)
                    .unwrap(),
                at + 1
            );
        }
        b.list_append_int(6, kg(6), id, Namespace::Void, 3).unwrap();
        let empty = {
            let (mut e, _) = ttl_backend(ValueStateDescriptor::list_of_long("list").with_ttl(ttl));
            e.snapshot(1).state_size
        };
        let snap = b.snapshot(1);
        // Each entry: void 1 + int key 4 + list length 4 + its elements.
        assert_eq!(
            snap.state_size - empty,
            2 * (1 + 4 + 4) + 4 * element,
            "ttl {ttl:?}"
        );
        let stamps: Vec<Vec<i64>> = snap
            .entries(0, kg(5))
            .iter()
            .map(|e| e.stamps.clone())
            .collect();
        let expected: Vec<Vec<i64>> = if ttl.is_some() {
            vec![vec![0, 1, 2]]
        } else {
            vec![vec![]]
        };
        assert_eq!(stamps, expected);
        // RocksDB's memtable since this snapshot: the appends only (merge operands).
        b.list_append_int(5, kg(5), id, Namespace::Void, 4).unwrap();
        let in_sst = element
            - if ttl.is_some() {
                8 - crate::state::rocksdb::TTL_TIMESTAMP_SST_BYTES
            } else {
                0
            };
        let m = b.written_since_snapshot();
        assert_eq!((m.entries, m.keys, m.bytes), (1, 1, 1 + 4 + 4 + in_sst));
        b.list_append_int(5, kg(5), id, Namespace::Void, 5).unwrap();
        let m = b.written_since_snapshot();
        assert_eq!((m.entries, m.keys), (2, 1), "two merge operands of one key");
    }
}

#[test]
fn a_lists_expired_elements_go_with_cleanup_and_survive_restore_until_then() {
    let desc = ValueStateDescriptor::list_of_long("list").with_ttl(Some(100));
    let (mut b, id) = ttl_backend(desc);
    for at in [0, 50, 120] {
        b.list_append_int(3, kg(3), id, Namespace::Void, at)
            .unwrap();
    }
    let snap = b.snapshot(1);
    let mut restored =
        HeapKeyedStateBackend::restore(MAX_P, KeyGroupRange::new(0, MAX_P - 1), &[snap]).unwrap();
    let rid = restored.state_id("list").unwrap();
    assert_eq!(restored.descriptor(rid).unwrap().ttl_millis, Some(100));
    // The compaction filter at 160: the element of 0 and of 50 (expired at 150) are gone.
    restored.purge_expired(160);
    restored.set_current_key(StateKey::Int(3)).unwrap();
    assert_eq!(restored.value(rid, &Namespace::Void), Ok(Some(1)));
    // The heap's cleanup at 220 drops the last one and the entry with it.
    restored.ttl_accessed(rid, 1, 220);
    assert_eq!(restored.counters().entries, 0);
}
