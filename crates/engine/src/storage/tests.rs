use super::*;
use crate::scenario::preset;
use crate::sim::{JobStatus, Simulation};
use crate::state::OperatorStateSnapshot;
use crate::task::{Operator, TaskStateSnapshot};
use crate::types::{SubtaskId, MICROS_PER_SEC};

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

/// A subtask's checkpointed state in comparable form (`TaskStateSnapshot` and `Record` have no
/// `PartialEq`): everything a stored file carries, channel state records included. The channel
/// state's byte counts are left out: see `restored_channel_bytes`.
#[derive(Debug, PartialEq)]
struct StateView {
    task: SubtaskId,
    finished: bool,
    keyed: Vec<(usize, KeyedStateSnapshot)>,
    operator: Vec<(usize, OperatorStateSnapshot)>,
    committables: Vec<StoredCommittable>,
    output_channel_records: Vec<(usize, u32, Vec<StoredRecord>)>,
    input_channel_records: Vec<(u32, Vec<StoredRecord>)>,
}

fn state_view(s: &TaskStateSnapshot) -> StateView {
    let records = |rs: &[crate::network::Record]| rs.iter().map(StoredRecord::from).collect();
    StateView {
        task: s.task,
        finished: s.finished,
        keyed: s.keyed.clone(),
        operator: s.operator.clone(),
        committables: s.committables.clone(),
        output_channel_records: s
            .output_channel_records
            .iter()
            .map(|(o, sub, r)| (*o, *sub, records(r)))
            .collect(),
        input_channel_records: s
            .input_channel_records
            .iter()
            .map(|(c, r)| (*c, records(r)))
            .collect(),
    }
}

/// Per task index, the retained state of checkpoint `id`.
fn retained_state(sim: &Simulation, id: CheckpointId) -> Vec<(u32, StateView)> {
    sim.completed_state[&id]
        .iter()
        .map(|(t, s)| (*t, state_view(s)))
        .collect()
}

/// Checks the channel state sizes of checkpoint `id` restored from a file: each side is the size
/// of the records it replays, and the checkpoint's handles in the store say as much. (The task
/// counted the buffers it persisted, which can hold only part of a record at either end, so the
/// sizes may differ from the snapshot the job took by that part.)
fn restored_channel_bytes(restored: &Simulation, id: CheckpointId) {
    let bytes = |rs: &[crate::network::Record]| rs.iter().map(|r| u64::from(r.bytes)).sum::<u64>();
    let mut persisted = Vec::new();
    for s in restored.completed_state[&id].values() {
        let output: u64 = s
            .output_channel_records
            .iter()
            .map(|(_, _, r)| bytes(r))
            .sum();
        let input: u64 = s.input_channel_records.iter().map(|(_, r)| bytes(r)).sum();
        assert_eq!(
            (s.output_channel_state, s.input_channel_state),
            (output, input),
            "{:?}",
            s.task
        );
        persisted.push((s.task, output + input));
    }
    persisted.sort();
    let in_store: Vec<_> = handles(restored, id)
        .iter()
        .map(|h| (h.subtask, h.persisted_in_flight_bytes))
        .collect();
    assert_eq!(in_store, persisted);
}

/// The coordinator's handles of completed checkpoint `id`, by subtask.
fn handles(sim: &Simulation, id: CheckpointId) -> Vec<crate::coordinator::OperatorStateHandle> {
    let mut hs = sim
        .coordinator
        .completed_store()
        .get(id)
        .unwrap_or_else(|| panic!("checkpoint {id} is not in the store"))
        .handles
        .clone();
    hs.sort_by_key(|h| h.subtask);
    hs
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
    // The job restored from the file holds exactly the state the checkpoint held: keyed and
    // operator state, committables, finished flags, channel state records and their sizes.
    assert_eq!(
        retained_state(&from_file, id),
        retained_state(&sim, id),
        "{name}"
    );
    assert_eq!(
        from_file.checkpoint_in_flight.get(&id),
        sim.checkpoint_in_flight.get(&id),
        "{name}"
    );
    restored_channel_bytes(&from_file, id);
    // The checkpoint joins the store with a handle per subtask, keyed under its id like the
    // handles of a checkpoint the job completed itself.
    let restored = handles(&from_file, id);
    let original = handles(&sim, id);
    let subtasks = |hs: &[crate::coordinator::OperatorStateHandle]| -> Vec<SubtaskId> {
        hs.iter().map(|h| h.subtask).collect()
    };
    assert_eq!(subtasks(&restored), subtasks(&original), "{name}");
    for h in restored.iter().chain(&original) {
        assert_eq!(h.handle_key >> 32, id, "{name}: {h:?}");
    }
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
    // A source subtask has output channel state only: it still gets a channel file.
    assert!(sim.completed_state[&id]
        .values()
        .any(|s| { !s.output_channel_records.is_empty() && s.input_channel_records.is_empty() }));
    for (task, snap) in &sim.completed_state[&id] {
        let view = state_view(snap);
        let vertex = &sim.graph.vertices[snap.task.vertex as usize].name;
        let meta = stored
            .metadata
            .subtasks
            .iter()
            .find(|m| m.vertex == *vertex && m.subtask == snap.task.subtask)
            .unwrap();
        let channel: Vec<&StateFile> = stored
            .files
            .iter()
            .filter(|f| meta.files.contains(&f.path))
            .filter(|f| matches!(f.content, StateFileContent::Channel { .. }))
            .collect();
        let has_records =
            !view.output_channel_records.is_empty() || !view.input_channel_records.is_empty();
        assert_eq!(channel.len(), usize::from(has_records), "task {task}");
        let Some(file) = channel.first() else {
            continue;
        };
        assert!(file
            .path
            .ends_with(&format!("_{}.channel", snap.task.subtask)));
        let StateFileContent::Channel { output, input } = &file.content else {
            unreachable!()
        };
        // The file holds the records themselves, not only their count, and its size is theirs.
        assert_eq!(output, &view.output_channel_records, "task {task}");
        assert_eq!(input, &view.input_channel_records, "task {task}");
        // Its size is what the task persisted on both sides.
        assert!(snap.output_channel_state > 0 || snap.input_channel_state > 0);
        assert_eq!(
            file.size,
            snap.output_channel_state + snap.input_channel_state,
            "task {task}"
        );
    }
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
    // One file per state handle, named after the vertex ("Source: datagen" → "Source-datagen",
    // " -> " → "_") and the subtask; no channel files when the checkpoint holds no channel state.
    let source = |sub: u32| format!("chk-{id}/Source-datagen_{sub}.operator-0");
    let keyed = |sub: u32| {
        format!("chk-{id}/count-per-key_checkpoint-aware-map_discard-sink-Writer_{sub}.keyed-0")
    };
    let paths: Vec<&str> = stored.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, [source(0), source(1), keyed(0), keyed(1)]);
    let listed: Vec<Vec<String>> = stored
        .metadata
        .subtasks
        .iter()
        .map(|s| s.files.clone())
        .collect();
    assert_eq!(
        listed,
        [
            vec![source(0)],
            vec![source(1)],
            vec![keyed(0)],
            vec![keyed(1)]
        ]
    );
}

/// seed-2pc with the sink chained straight to the source: one subtask holds both list state
/// (source offsets) and committables.
fn chained_2pc() -> Scenario {
    use crate::scenario::{EdgeSpec, Partitioner};
    let mut s = preset("seed-2pc").unwrap();
    s.operators
        .retain(|o| o.name == "datagen" || o.name == "two-phase-commit-sink");
    s.edges = vec![EdgeSpec::new(
        "datagen",
        "two-phase-commit-sink",
        Partitioner::Forward,
    )];
    s
}

#[test]
fn file_sizes_add_up_to_what_each_subtask_acknowledged() {
    let scenarios = ["seed-demo", "seed-unaligned", "seed-2pc"]
        .map(|n| (n, preset(n).unwrap()))
        .into_iter()
        .chain([("chained-2pc", chained_2pc())]);
    for (name, scenario) in scenarios {
        let mut sim = Simulation::new(scenario).unwrap();
        sim.run_until(15 * MICROS_PER_SEC);
        let id = *sim.completed_state.keys().last().unwrap();
        let stored = capture::capture(&sim, id).unwrap();
        let acknowledged = handles(&sim, id);
        assert_eq!(acknowledged.len(), stored.metadata.subtasks.len(), "{name}");
        for (meta, handle) in stored.metadata.subtasks.iter().zip(&acknowledged) {
            assert_eq!(
                (meta.vertex.as_str(), meta.subtask),
                (
                    sim.graph.vertices[handle.subtask.vertex as usize]
                        .name
                        .as_str(),
                    handle.subtask.subtask
                ),
                "{name}"
            );
            let size: u64 = stored
                .files
                .iter()
                .filter(|f| meta.files.contains(&f.path))
                .map(|f| f.size)
                .sum();
            assert_eq!(size, handle.state_size, "{name}: {meta:?}");
        }
        for f in &stored.files {
            let has_ssts = |pos: usize| {
                stored.files.iter().any(|g| {
                    (g.vertex.as_str(), g.subtask) == (f.vertex.as_str(), f.subtask)
                        && matches!(g.content, StateFileContent::Sst { position, .. } if position == pos)
                })
            };
            let expected = match &f.content {
                // RocksDB's native checkpoints: the keyed file holds the metadata and the
                // private files, the SST files are listed on their own.
                StateFileContent::Keyed { position, .. } if has_ssts(*position) => {
                    crate::state::rocksdb::MISC_FILES_BYTES
                }
                StateFileContent::Keyed { snapshot, .. } => snapshot.state_size,
                StateFileContent::Sst { file, .. } => file.bytes,
                StateFileContent::Operator { snapshot, .. } => snapshot.state_size,
                // Checked against the snapshot in `unaligned_channel_state_round_trips`.
                StateFileContent::Channel { .. } => f.size,
                // The committer's collector: 247 bytes of header, 24, then 92 bytes for each
                // checkpoint it holds (one transaction each).
                StateFileContent::Committables { committables } => {
                    247 + 24 + 92 * committables.len() as u64
                }
            };
            assert_eq!(f.size, expected, "{name}: {}", f.path);
        }
        // The stored checkpoint is as large as the checkpoint statistics say.
        let stats = sim.coordinator.stats().get(id).unwrap();
        assert_eq!(stored.state_size(), stats.state_size(), "{name}");
        assert_eq!(
            stored.state_size(),
            stored.files.iter().map(|f| f.size).sum::<u64>(),
            "{name}"
        );
    }
}

#[test]
fn chained_offsets_and_committables_are_stored_side_by_side() {
    let mut sim = Simulation::new(chained_2pc()).unwrap();
    sim.run_until(12 * MICROS_PER_SEC);
    let id = *sim.completed_state.keys().last().unwrap();
    let stored = capture::capture(&sim, id).unwrap();
    let stem = |sub: u32| {
        format!("chk-{id}/Source-datagen_two-phase-commit-sink-Writer_two-phase-commit-sink-Committer_{sub}")
    };
    let paths: Vec<&str> = stored.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            format!("{}.operator-0", stem(0)),
            format!("{}.committables", stem(0)),
            format!("{}.operator-0", stem(1)),
            format!("{}.committables", stem(1)),
        ]
    );
    let from_file = Simulation::from_stored(&stored).unwrap();
    assert_eq!(retained_state(&from_file, id), retained_state(&sim, id));
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
    let vertex = other.metadata.subtasks[0].vertex.clone();
    for v in &mut other.metadata.vertices {
        if v.name == vertex {
            v.max_parallelism = 4096;
        }
    }
    let e = Simulation::from_stored(&other).unwrap_err();
    // The vertex named is the one whose max parallelism changed.
    assert!(
        e.starts_with(&format!(
            "'{vertex}' was checkpointed with max parallelism 4096, the job has 128"
        )),
        "{e}"
    );
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

#[test]
fn attaching_to_a_running_job_takes_its_retained_checkpoints_as_stored() {
    let mut sim = run("seed-demo", 12);
    let held: Vec<CheckpointId> = sim.completed_state.keys().copied().collect();
    assert!(!held.is_empty());
    let mut storage = CheckpointStorage::attach(&sim);
    assert!(storage.poll(&sim).is_empty());
    sim.run_until(17 * MICROS_PER_SEC);
    let effects = storage.poll(&sim);
    assert!(!effects.is_empty());
    for e in &effects {
        assert!(
            matches!(e, StorageEffect::Store(s) if !held.contains(&s.id())),
            "{e:?}"
        );
    }
    assert!(storage.poll(&sim).is_empty());
}

#[test]
fn attaching_to_a_cancelled_job_does_not_discard_its_checkpoints_again() {
    let mut s = preset("seed-demo").unwrap();
    s.config.insert(
        "execution.checkpointing.externalized-checkpoint-retention".into(),
        "DELETE_ON_CANCELLATION".into(),
    );
    let mut sim = Simulation::new(s).unwrap();
    sim.run_until(12 * MICROS_PER_SEC);
    sim.cancel();
    assert_eq!(sim.status, JobStatus::Canceled);
    let mut storage = CheckpointStorage::attach(&sim);
    assert_eq!(storage.poll(&sim), []);
}

#[test]
fn a_job_with_another_id_starts_its_storage_afresh() {
    let first = run("seed-demo", 12);
    let mut other = preset("seed-demo").unwrap();
    other.seed += 1;
    let mut second = Simulation::new(other).unwrap();
    second.run_until(12 * MICROS_PER_SEC);
    let job = second.coordinator.job_id().to_string();
    assert_ne!(first.coordinator.job_id(), job);
    assert_eq!(
        first.completed_state.keys().collect::<Vec<_>>(),
        second.completed_state.keys().collect::<Vec<_>>()
    );
    let mut storage = CheckpointStorage::attach(&first);
    assert!(storage.poll(&first).is_empty());
    // Same checkpoint ids, another job: its checkpoints go to its own directory.
    let effects = storage.poll(&second);
    let stored: Vec<(CheckpointId, &str)> = effects
        .iter()
        .map(|e| match e {
            StorageEffect::Store(s) => (s.id(), s.job_id.as_str()),
            other => panic!("{other:?}"),
        })
        .collect();
    let expected: Vec<(CheckpointId, &str)> = second
        .completed_state
        .keys()
        .map(|id| (*id, job.as_str()))
        .collect();
    assert_eq!(stored, expected);
    assert!(storage.poll(&second).is_empty());
    second.cancel();
    let discard = storage.poll(&second);
    // seed-demo retains its checkpoints on cancellation.
    assert!(discard.is_empty(), "{discard:?}");
}

#[test]
fn a_savepoint_is_stored_in_its_own_directory() {
    let mut sim = run("seed-demo", 7);
    sim.request(crate::sim::UserRequest::Savepoint);
    sim.run_until(9 * MICROS_PER_SEC);
    let stored: Vec<StoredCheckpoint> = sim
        .completed_state
        .keys()
        .map(|id| capture::capture(&sim, *id).unwrap())
        .collect();
    let (savepoints, checkpoints): (Vec<_>, Vec<_>) =
        stored.into_iter().partition(|s| s.is_savepoint());
    assert_eq!(savepoints.len(), 1);
    assert!(!checkpoints.is_empty());
    let savepoint = &savepoints[0];
    let id = savepoint.id();
    let job = sim.coordinator.job_id();
    let dir = format!("savepoint-{}-{id:012x}", &job[..6]);
    assert_eq!(savepoint.directory(), dir);
    assert!(savepoint
        .files
        .iter()
        .all(|f| f.path.starts_with(&format!("{dir}/"))));
    assert!(savepoint.metadata.external_pointer.ends_with(&dir));
    for c in &checkpoints {
        assert_eq!(c.directory(), format!("chk-{}", c.id()));
    }
    let from_file = Simulation::from_stored(savepoint).unwrap();
    let restored = from_file
        .coordinator
        .stats()
        .latest_restored
        .clone()
        .unwrap();
    assert_eq!(restored.id, id);
    assert!(restored.is_savepoint);
}

#[test]
fn finished_subtasks_are_stored_and_restored_as_finished() {
    use crate::scenario::OperatorKind;
    // two-input-join with a bounded "orders" source: it finishes while "payments" runs on.
    let mut s = preset("two-input-join").unwrap();
    if let Some(OperatorKind::Datagen { bounded, .. }) = s.operators.get_mut(0).map(|o| &mut o.kind)
    {
        *bounded = Some(4000);
    }
    let mut sim = Simulation::new(s).unwrap();
    sim.run_until(16 * MICROS_PER_SEC);
    let id = *sim.completed_state.keys().last().unwrap();
    let stored = capture::capture(&sim, id).unwrap();
    let finished: Vec<(&str, u32, bool)> = stored
        .metadata
        .subtasks
        .iter()
        .map(|m| (m.vertex.as_str(), m.subtask, m.finished))
        .collect();
    assert_eq!(
        &finished[..4],
        [
            ("Source: orders", 0, true),
            ("Source: orders", 1, true),
            ("Source: payments -> slow-enrich", 0, false),
            ("Source: payments -> slow-enrich", 1, false),
        ]
    );
    assert!(finished[4..].iter().all(|(_, _, f)| !f));
    // A finished source keeps its final offset.
    assert!(stored
        .files
        .iter()
        .any(|f| f.path == format!("chk-{id}/Source-orders_0.operator-0")));
    let from_file =
        Simulation::from_stored(&StoredCheckpoint::from_json(&stored.to_json()).unwrap()).unwrap();
    assert_eq!(retained_state(&from_file, id), retained_state(&sim, id));
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
