//! Restoring from checkpoint storage: like `flink run -s <path>`, the stored job is submitted
//! again and restored from the stored checkpoint or savepoint: keyed state by key group, source
//! offsets, channel state and pending committables.

use std::collections::BTreeMap;

use super::{StateFileContent, StoredCheckpoint, StoredRecord};
use crate::coordinator::{CompletedCheckpoint, OperatorStateHandle};
use crate::network::Record;
use crate::scenario::JobGraph;
use crate::sim::Simulation;
use crate::state::rocksdb::{RocksSnapshotKind, MISC_FILES_BYTES};
use crate::state::{RocksCheckpoint, SstFile};
use crate::task::TaskStateSnapshot;
use crate::types::{CheckpointId, SubtaskId};

fn records(rs: &[StoredRecord]) -> Vec<Record> {
    rs.iter().map(Record::from).collect()
}

fn bytes(rs: &[Record]) -> u64 {
    rs.iter().map(|r| u64::from(r.bytes)).sum()
}

/// Per task index of `sim`, the snapshot the stored files describe. Operators are matched by
/// name (Flink matches operator uids); max parallelism must not change, since key groups are
/// fixed by it.
fn snapshots(
    graph: &JobGraph,
    tasks: &[SubtaskId],
    stored: &StoredCheckpoint,
) -> Result<BTreeMap<u32, TaskStateSnapshot>, String> {
    let files: BTreeMap<&str, &super::StateFile> =
        stored.files.iter().map(|f| (f.path.as_str(), f)).collect();
    let mut out = BTreeMap::new();
    for s in &stored.metadata.subtasks {
        let vertex = graph
            .vertices
            .iter()
            .find(|v| v.name == s.vertex)
            .ok_or_else(|| {
                format!(
                    "the checkpoint has state for '{}', which the job does not have (operators are matched by name, like Flink's operator uids)",
                    s.vertex
                )
            })?;
        if let Some(meta) = stored.metadata.vertices.iter().find(|v| v.name == s.vertex) {
            if meta.max_parallelism != vertex.max_parallelism {
                return Err(format!(
                    "'{}' was checkpointed with max parallelism {}, the job has {}: key groups cannot be redistributed",
                    s.vertex, meta.max_parallelism, vertex.max_parallelism
                ));
            }
        }
        let id = SubtaskId {
            vertex: vertex.id,
            subtask: s.subtask,
        };
        let task = tasks.iter().position(|t| *t == id).ok_or_else(|| {
            format!(
                "the checkpoint has state for subtask {} of '{}', which runs with parallelism {}",
                s.subtask, s.vertex, vertex.parallelism
            )
        })?;
        let mut snap = TaskStateSnapshot {
            task: id,
            finished: s.finished,
            ..Default::default()
        };
        let mut ssts: BTreeMap<usize, Vec<(&SstFile, CheckpointId, bool)>> = BTreeMap::new();
        for path in &s.files {
            let file = files
                .get(path.as_str())
                .ok_or_else(|| format!("state file '{path}' is missing"))?;
            match &file.content {
                StateFileContent::Keyed { position, snapshot } => {
                    if snapshot.max_parallelism != vertex.max_parallelism {
                        return Err(format!(
                            "state file '{path}' has {} key groups, '{}' has {}",
                            snapshot.max_parallelism, s.vertex, vertex.max_parallelism
                        ));
                    }
                    snap.keyed.push((*position, snapshot.clone()));
                }
                StateFileContent::Operator { position, snapshot } => {
                    snap.operator.push((*position, snapshot.clone()))
                }
                StateFileContent::Channel { output, input } => {
                    snap.output_channel_records = output
                        .iter()
                        .map(|(o, sub, r)| (*o, *sub, records(r)))
                        .collect();
                    snap.input_channel_records =
                        input.iter().map(|(c, r)| (*c, records(r))).collect();
                    snap.output_channel_state = snap
                        .output_channel_records
                        .iter()
                        .map(|(_, _, r)| bytes(r))
                        .sum();
                    snap.input_channel_state = snap
                        .input_channel_records
                        .iter()
                        .map(|(_, r)| bytes(r))
                        .sum();
                }
                StateFileContent::Committables { committables } => {
                    snap.committables = committables.clone()
                }
                StateFileContent::Sst {
                    position,
                    file,
                    uploaded_in,
                } => ssts.entry(*position).or_default().push((
                    file,
                    *uploaded_in,
                    path.starts_with("shared/"),
                )),
            }
        }
        snap.rocksdb = ssts
            .into_iter()
            .map(|(pos, files)| (pos, native_checkpoint(stored.id(), &files)))
            .collect();
        out.insert(task as u32, snap);
    }
    Ok(out)
}

/// The native RocksDB checkpoint a stored checkpoint's SST files describe: incremental when they
/// sit under `shared/`.
fn native_checkpoint(
    id: CheckpointId,
    files: &[(&SstFile, CheckpointId, bool)],
) -> RocksCheckpoint {
    let kind = if files.iter().any(|(_, _, shared)| *shared) {
        RocksSnapshotKind::Incremental
    } else {
        RocksSnapshotKind::NativeFull
    };
    let total: u64 = files.iter().map(|(f, _, _)| f.bytes).sum();
    let new: u64 = files
        .iter()
        .filter(|(_, by, _)| *by == id)
        .map(|(f, _, _)| f.bytes)
        .sum();
    RocksCheckpoint {
        kind,
        files: files.iter().map(|(f, _, _)| (*f).clone()).collect(),
        uploaded: files
            .iter()
            .filter(|(_, by, _)| *by == id)
            .map(|(f, _, _)| f.number)
            .collect(),
        uploaded_in: files.iter().map(|(_, by, _)| *by).collect(),
        checkpointed_size: new + MISC_FILES_BYTES,
        state_size: total + MISC_FILES_BYTES,
        ..RocksCheckpoint::default()
    }
}

impl Simulation {
    /// Submits the stored checkpoint's job and restores it from that checkpoint or savepoint.
    /// A file that does not fit the job is refused with the reason; nothing panics.
    pub fn from_stored(stored: &StoredCheckpoint) -> Result<Simulation, String> {
        Self::from_stored_consented(stored, false)
    }

    /// [`Simulation::from_stored`]; `consented`: the user chose to run the stored job although it
    /// is over the cost budget.
    pub fn from_stored_consented(
        stored: &StoredCheckpoint,
        consented: bool,
    ) -> Result<Simulation, String> {
        stored.check_files()?;
        let scenario = stored.scenario.clone();
        let sim = if consented {
            Simulation::new_over_budget(scenario)
        } else {
            Simulation::new(scenario)
        };
        let mut sim = sim.map_err(|e| format!("the stored job does not run: {e}"))?;
        let ids: Vec<SubtaskId> = sim.tasks.iter().map(|t| t.id).collect();
        let state = snapshots(&sim.graph, &ids, stored)?;
        let id = stored.id();
        let handles = state
            .values()
            .map(|s| {
                // As a live acknowledgement makes them: the state size counts the channel state,
                // and the key names the task by its index in the job (`sim/mod.rs`).
                let in_flight = s.output_channel_state + s.input_channel_state;
                let size = s.operator_state_bytes() + in_flight;
                let task = ids.iter().position(|t| *t == s.task).unwrap_or(0) as u64;
                OperatorStateHandle {
                    subtask: s.task,
                    state_size: size,
                    checkpointed_size: size,
                    persisted_in_flight_bytes: in_flight,
                    handle_key: (id << 32) | task,
                }
            })
            .collect();
        sim.keep_completed_state(id, state);
        let m = &stored.metadata;
        sim.coordinator.restore_savepoint(CompletedCheckpoint {
            id,
            props: m.props,
            trigger_timestamp: m.trigger_timestamp,
            completion_timestamp: m.completion_timestamp,
            handles,
            external_pointer: m.external_pointer.clone(),
        });
        // `execution.state-recovery.claim-mode: NO_CLAIM`: the new job never takes the
        // checkpoint's files over, so its first RocksDB checkpoint uploads everything.
        sim.unclaimed_restore = Some(id);
        sim.restore_from(id)?;
        Ok(sim)
    }
}
