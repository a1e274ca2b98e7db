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
    // Plain counters: 2 × header 373 + 2 × 64 key groups × 10 + 16 entries × 13.
    assert_eq!(plain, 2 * 373 + 2 * 64 * 10 + 16 * 13);
    // A KeyedProcessFunction also registers the "user-timers" service: per subtask two queue meta
    // infos (336 and 341 bytes) and 6 more bytes per queue per key group.
    assert_eq!(with_timers, plain + 2 * (336 + 341 + 64 * 2 * 6));
    // Each source reader: operator header 241 + one 31-byte split.
    assert_eq!(sources, 2 * (241 + 31));
    // 5668 bytes: Flink's log reports bytes, and 5668 / 1000 rounds to the seed's "5.7 KB".
    assert_eq!(with_timers + sources, 5668);
}
