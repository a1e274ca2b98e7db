use super::*;
use crate::scenario::preset;
use crate::sim::{JobStatus, Simulation};
use crate::task::Operator;
use crate::types::MICROS_PER_SEC;

fn run(name: &str, seconds: u64) -> Simulation {
    let mut sim = Simulation::new(preset(name).unwrap()).unwrap();
    sim.run_until(seconds * MICROS_PER_SEC);
    sim
}

/// Per task: source offset, keyed state content, channel state queued for replay.
fn restored_view(sim: &mut Simulation) -> Vec<(u64, Vec<KeyedStateSnapshot>, usize)> {
    sim.tasks
        .iter_mut()
        .map(|t| {
            let mut offset = 0;
            let mut keyed = Vec::new();
            for op in &mut t.operators {
                if let Operator::Datagen(dg) = op {
                    offset = dg.next_seq;
                } else if let Some(k) = op.keyed() {
                    let mut s = k.backend.snapshot(999);
                    s.checkpoint_id = 0;
                    keyed.push(s);
                }
            }
            (offset, keyed, t.recovered_input.len())
        })
        .collect()
}

fn round_trip(name: &str, seconds: u64) {
    let sim = run(name, seconds);
    let id = *sim
        .completed_state
        .keys()
        .last()
        .expect("a checkpoint completed");
    let stored = capture::capture(&sim, id).unwrap();
    assert!(!stored.files.is_empty());
    let text = stored.to_json();
    let read = StoredCheckpoint::from_json(&text).unwrap();
    assert_eq!(read, stored);
    let mut from_file = Simulation::from_stored(&read).unwrap();
    let mut in_place = sim.clone();
    in_place.restore_from(id).unwrap();
    assert_eq!(
        restored_view(&mut from_file),
        restored_view(&mut in_place),
        "{name}"
    );
    assert_eq!(from_file.latest_restorable, Some(id));
    assert_eq!(
        from_file.checkpoint_offsets[&id],
        sim.checkpoint_offsets[&id]
    );
    assert_eq!(from_file.coordinator.stats().counts.restored, 1);
    // Checkpoint ids continue after the restored one, so chk-N is never overwritten.
    assert_eq!(from_file.coordinator.next_checkpoint_id(), id + 1);
    from_file.run_until(10 * MICROS_PER_SEC);
    assert_eq!(from_file.status, JobStatus::Running);
    assert!(from_file.completed_state.keys().any(|k| *k > id));
}

#[test]
fn store_serialize_restore_equals_restore_in_place() {
    round_trip("seed-demo", 12);
}

#[test]
fn unaligned_channel_state_round_trips() {
    let sim = run("seed-unaligned", 15);
    let id = *sim.completed_state.keys().last().unwrap();
    let stored = capture::capture(&sim, id).unwrap();
    assert!(stored
        .files
        .iter()
        .any(|f| matches!(f.content, StateFileContent::Channel { .. })));
    round_trip("seed-unaligned", 15);
}

#[test]
fn two_phase_commit_committables_round_trip() {
    round_trip("seed-2pc", 12);
    // The restore commits the checkpoint's pre-committed transactions: dropping them on the way
    // through the file would lose them.
    let sim = run("seed-2pc", 12);
    let id = *sim.completed_state.keys().last().unwrap();
    let committables = |s: &Simulation| -> Vec<_> {
        s.completed_state[&id]
            .values()
            .flat_map(|t| t.committables.clone())
            .collect()
    };
    let held = committables(&sim);
    assert!(!held.is_empty(), "checkpoint {id} pre-committed nothing");
    let text = capture::capture(&sim, id).unwrap().to_json();
    let from_file = Simulation::from_stored(&StoredCheckpoint::from_json(&text).unwrap()).unwrap();
    assert_eq!(committables(&from_file), held);
    let committed: Vec<_> = from_file
        .external
        .sinks
        .values()
        .flat_map(|s| s.committed_transactions.iter().copied())
        .collect();
    for (_, cid, _) in &held {
        assert!(
            committed.iter().any(|(c, _)| c == cid),
            "transaction {cid} not committed on restore: {committed:?}"
        );
    }
}

#[test]
fn files_are_laid_out_in_the_checkpoint_directory() {
    let sim = run("seed-demo", 12);
    let id = *sim.completed_state.keys().last().unwrap();
    let stored = capture::capture(&sim, id).unwrap();
    assert_eq!(stored.directory(), format!("chk-{id}"));
    assert!(stored
        .files
        .iter()
        .all(|f| f.path.starts_with(&format!("chk-{id}/"))));
    assert!(stored
        .metadata
        .external_pointer
        .ends_with(&format!("/chk-{id}")));
    assert!(stored.state_size() > 0);
}

#[test]
fn damaged_or_foreign_files_are_refused_with_a_reason() {
    let sim = run("seed-demo", 12);
    let id = *sim.completed_state.keys().last().unwrap();
    let text = capture::capture(&sim, id).unwrap().to_json();
    let truncated = &text[..text.len() / 2];
    let e = StoredCheckpoint::from_json(truncated).unwrap_err();
    assert!(e.starts_with("not a stored checkpoint: EOF"), "{e}");
    let newer = text.replace("\"format_version\":1", "\"format_version\":9");
    let e = StoredCheckpoint::from_json(&newer).unwrap_err();
    assert!(e.contains("format version 9 is not supported"), "{e}");
    let mut stored = StoredCheckpoint::from_json(&text).unwrap();
    stored.files.pop();
    let e = StoredCheckpoint::from_json(&stored.to_json()).unwrap_err();
    assert!(e.contains("is missing"), "{e}");
}

#[test]
fn changed_max_parallelism_or_unknown_operator_is_refused() {
    let sim = run("seed-demo", 12);
    let id = *sim.completed_state.keys().last().unwrap();
    let stored = capture::capture(&sim, id).unwrap();
    // A file written by the job when it had another max parallelism.
    let mut other = stored.clone();
    let keyed = other.metadata.subtasks[0].vertex.clone();
    for v in &mut other.metadata.vertices {
        if v.name == keyed {
            v.max_parallelism = 4096;
        }
    }
    let e = Simulation::from_stored(&other).unwrap_err();
    assert!(e.contains("max parallelism"), "{e}");
    let mut renamed = stored.clone();
    renamed.metadata.subtasks[0].vertex = "no-such-operator".into();
    let e = Simulation::from_stored(&renamed).unwrap_err();
    assert!(e.contains("'no-such-operator'"), "{e}");
}

#[test]
fn poll_stores_each_checkpoint_once_and_discards_on_cancel_unless_retained() {
    for (retention, discards) in [
        ("DELETE_ON_CANCELLATION", true),
        ("RETAIN_ON_CANCELLATION", false),
    ] {
        let mut s = preset("seed-demo").unwrap();
        s.config.insert(
            "execution.checkpointing.externalized-checkpoint-retention".into(),
            retention.into(),
        );
        let mut sim = Simulation::new(s).unwrap();
        let mut storage = CheckpointStorage::default();
        sim.run_until(12 * MICROS_PER_SEC);
        let first = storage.poll(&sim);
        assert!(!first.is_empty());
        assert!(first.iter().all(|e| matches!(e, StorageEffect::Store(_))));
        assert!(storage.poll(&sim).is_empty());
        sim.cancel();
        assert_eq!(sim.status, JobStatus::Canceled);
        let after = storage.poll(&sim);
        assert_eq!(
            after
                .iter()
                .any(|e| matches!(e, StorageEffect::DiscardCheckpoints { .. })),
            discards,
            "{retention}"
        );
        assert!(storage.poll(&sim).is_empty());
    }
}

#[test]
fn retention_keeps_the_newest_checkpoints_and_every_savepoint() {
    let stored = [(1, false), (2, true), (3, false), (4, false), (5, false)];
    assert_eq!(retention_discards(&stored, 2), vec![1, 3]);
    assert_eq!(retention_discards(&stored, 1), vec![1, 3, 4]);
    assert!(retention_discards(&stored, 10).is_empty());
}

#[test]
fn checksum_changes_with_a_byte() {
    assert_ne!(checksum(b"chk-1"), checksum(b"chk-2"));
    assert_eq!(checksum(b""), 0xcbf2_9ce4_8422_2325);
}

#[test]
fn attaching_to_a_restored_job_does_not_store_its_checkpoint_again() {
    let sim = run("seed-demo", 12);
    let id = *sim.completed_state.keys().last().unwrap();
    let mut restored = Simulation::from_stored(&capture::capture(&sim, id).unwrap()).unwrap();
    let mut storage = CheckpointStorage::attach(&restored);
    assert!(storage.poll(&restored).is_empty());
    restored.run_until(6 * MICROS_PER_SEC);
    let effects = storage.poll(&restored);
    assert!(!effects.is_empty());
    assert!(effects
        .iter()
        .all(|e| matches!(e, StorageEffect::Store(s) if s.id() > id)));
}

#[cfg(not(target_arch = "wasm32"))]
/// Replaces the `k`-th numeric leaf of a JSON value (document order, wrapping) with `to`;
/// returns how many numeric leaves there are.
fn set_number(v: &mut serde_json::Value, k: &mut usize, to: i64) -> usize {
    match v {
        serde_json::Value::Number(_) => {
            if *k == 0 {
                *v = serde_json::Value::from(to);
            }
            *k = k.wrapping_sub(1);
            1
        }
        serde_json::Value::Array(a) => a.iter_mut().map(|x| set_number(x, k, to)).sum(),
        serde_json::Value::Object(o) => o.values_mut().map(|x| set_number(x, k, to)).sum(),
        _ => 0,
    }
}

// proptest is a native-only dev-dependency (no wasm32 RNG backend).
#[cfg(not(target_arch = "wasm32"))]
mod hand_edited_files {
    use super::*;
    use proptest::prelude::*;
    use proptest::test_runner::{Config, RngSeed};

    const ODD: [i64; 6] = [0, -1, 1, 65_535, 1 << 40, i64::MAX];

    proptest! {
        #![proptest_config(Config {
            cases: 300,
            rng_seed: RngSeed::Fixed(0x5709_a6e0),
            failure_persistence: None,
            ..Config::default()
        })]
        /// An imported file whose numbers were edited (key groups, subtasks, channels, sizes,
        /// offsets) is refused with a reason or restores and runs; it never panics.
        #[test]
        fn edited_numbers_never_panic(
            preset_index in 0usize..3,
            edits in proptest::collection::vec((any::<prop::sample::Index>(), 0usize..6), 1..4),
        ) {
            let name = ["seed-demo", "seed-unaligned", "seed-2pc"][preset_index];
            let sim = run(name, 12);
            let id = *sim.completed_state.keys().last().unwrap();
            let mut value: serde_json::Value =
                serde_json::from_str(&capture::capture(&sim, id).unwrap().to_json()).unwrap();
            // A position past every leaf: this call only counts.
            let count = set_number(&mut value, &mut { usize::MAX }, 0);
            for (at, odd) in edits {
                set_number(&mut value, &mut at.index(count), ODD[odd]);
            }
            if let Ok(stored) = StoredCheckpoint::from_json(&value.to_string()) {
                if let Ok(mut restored) = Simulation::from_stored(&stored) {
                    restored.run_until(restored.now + 2 * MICROS_PER_SEC);
                }
            }
        }
    }
}
