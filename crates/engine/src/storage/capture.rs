//! From a running simulation to checkpoint storage: the stored form of a completed checkpoint,
//! and the effects a host carries out (write it, or discard a job's checkpoints on cancel).

use std::collections::BTreeSet;

use super::{
    CheckpointMetadata, StateFile, StateFileContent, StoredCheckpoint, StoredRecord,
    SubtaskMetadata, VertexMetadata, STORED_FORMAT_VERSION,
};
use crate::coordinator::ExternalizedCheckpointRetention;
use crate::sim::{JobStatus, Simulation};
use crate::state::rocksdb::{shared_handle_id, RocksSnapshotKind};
use crate::state::{RocksCheckpoint, SstFile};
use crate::task::TaskStateSnapshot;
use crate::types::CheckpointId;

/// What checkpoint storage must do; the host executes it (atomically per effect).
#[derive(Debug, Clone, PartialEq)]
pub enum StorageEffect {
    /// Write `chk-N/` (its state files and `_metadata`) as one unit.
    Store(Box<StoredCheckpoint>),
    /// The job was cancelled and `externalized-checkpoint-retention` is not
    /// `RETAIN_ON_CANCELLATION`: its checkpoints go. Savepoints belong to the user and stay.
    DiscardCheckpoints { job_name: String, job_id: String },
}

/// The outbox between a simulation and its checkpoint storage: `poll` after the simulation moved
/// returns what to write or discard since the last poll. Polling twice in a row yields nothing.
#[derive(Debug, Clone, Default)]
pub struct CheckpointStorage {
    job_id: String,
    emitted: BTreeSet<CheckpointId>,
    cancel_handled: bool,
}

impl CheckpointStorage {
    /// Storage for a simulation that continues another moment of a job already stored (time
    /// travel): what it already holds is stored already and not written again.
    pub fn attach(sim: &Simulation) -> CheckpointStorage {
        CheckpointStorage {
            job_id: sim.coordinator.job_id().to_string(),
            emitted: sim.completed_state.keys().copied().collect(),
            cancel_handled: !sim.status.is_live(),
        }
    }

    /// Storage for a job just submitted that may have run ahead already (a tutorial step, a
    /// link's `until`): what it retains is written, except the checkpoint it was submitted from
    /// (`flink run -s`), which lives in the directory of the job that took it.
    pub fn submitted(sim: &Simulation) -> CheckpointStorage {
        CheckpointStorage {
            job_id: sim.coordinator.job_id().to_string(),
            emitted: sim.unclaimed_restore.into_iter().collect(),
            cancel_handled: !sim.status.is_live(),
        }
    }

    pub fn poll(&mut self, sim: &Simulation) -> Vec<StorageEffect> {
        if sim.coordinator.job_id() != self.job_id {
            *self = CheckpointStorage {
                job_id: sim.coordinator.job_id().to_string(),
                ..Default::default()
            };
        }
        let mut effects = Vec::new();
        for id in sim.completed_state.keys() {
            if self.emitted.contains(id) {
                continue;
            }
            if let Some(stored) = capture(sim, *id) {
                self.emitted.insert(*id);
                effects.push(StorageEffect::Store(Box::new(stored)));
            }
        }
        if sim.status.is_live() {
            // A job running again (time travel back before the cancel) can be cancelled again.
            self.cancel_handled = false;
        } else if sim.status == JobStatus::Canceled && !self.cancel_handled {
            self.cancel_handled = true;
            if sim.coordinator.config().externalized_retention
                != ExternalizedCheckpointRetention::RetainOnCancellation
            {
                effects.push(StorageEffect::DiscardCheckpoints {
                    job_name: sim.scenario.name.clone(),
                    job_id: self.job_id.clone(),
                });
            }
        }
        effects
    }
}

/// `execution.checkpointing.num-retained` over what is stored for one job: `stored` is
/// (id, is savepoint); returns the checkpoints to discard, oldest first. The newest `num_retained`
/// checkpoints stay; savepoints are never discarded by retention.
pub fn retention_discards(stored: &[(CheckpointId, bool)], num_retained: u32) -> Vec<CheckpointId> {
    let mut checkpoints: Vec<CheckpointId> = stored
        .iter()
        .filter(|(_, savepoint)| !savepoint)
        .map(|(id, _)| *id)
        .collect();
    checkpoints.sort_unstable();
    checkpoints.dedup();
    let keep = (num_retained as usize).max(1);
    let discard = checkpoints.len().saturating_sub(keep);
    checkpoints.truncate(discard);
    checkpoints
}

/// A file name from a job vertex name (`Source: datagen -> map` → `Source-datagen_map`).
fn file_stem(vertex: &str) -> String {
    let mut out = String::new();
    for part in vertex.split(" -> ") {
        if !out.is_empty() {
            out.push('_');
        }
        for c in part.chars() {
            if c.is_ascii_alphanumeric() {
                out.push(c);
            } else if !out.ends_with(['-', '_']) {
                out.push('-');
            }
        }
    }
    out
}

fn records(rs: &[crate::network::Record]) -> Vec<StoredRecord> {
    rs.iter().map(StoredRecord::from).collect()
}

/// The state files of one subtask's snapshot, in `dir`.
fn subtask_files(dir: &str, vertex: &str, snap: &TaskStateSnapshot) -> Vec<StateFile> {
    let stem = format!("{dir}/{}_{}", file_stem(vertex), snap.task.subtask);
    let file = |suffix: String, size: u64, content: StateFileContent| StateFile {
        path: format!("{stem}.{suffix}"),
        vertex: vertex.to_string(),
        subtask: snap.task.subtask,
        size,
        content,
    };
    let mut files = Vec::new();
    for (position, k) in &snap.keyed {
        let rocksdb = snap
            .rocksdb
            .iter()
            .find(|(p, _)| p == position)
            .map(|(_, r)| r);
        // RocksDB: the keyed file is the instance's metadata and private files; its SST files
        // follow. The snapshot's entries ride along in it: the simulator restores from them.
        let size = rocksdb.map_or(k.state_size, |r| {
            r.state_size - r.files.iter().map(|f| f.bytes).sum::<u64>()
        });
        files.push(file(
            format!("keyed-{position}"),
            size,
            StateFileContent::Keyed {
                position: *position,
                snapshot: k.clone(),
            },
        ));
        if let Some(r) = rocksdb {
            files.extend(sst_files(dir, vertex, snap, *position, r));
        }
    }
    for (position, o) in &snap.operator {
        files.push(file(
            format!("operator-{position}"),
            o.state_size,
            StateFileContent::Operator {
                position: *position,
                snapshot: o.clone(),
            },
        ));
    }
    if !snap.output_channel_records.is_empty() || !snap.input_channel_records.is_empty() {
        files.push(file(
            "channel".into(),
            snap.output_channel_state + snap.input_channel_state,
            StateFileContent::Channel {
                output: snap
                    .output_channel_records
                    .iter()
                    .map(|(o, s, r)| (*o, *s, records(r)))
                    .collect(),
                input: snap
                    .input_channel_records
                    .iter()
                    .map(|(c, r)| (*c, records(r)))
                    .collect(),
            },
        ));
    }
    if !snap.committables.is_empty() {
        files.push(file(
            "committables".into(),
            snap.committer_bytes(),
            StateFileContent::Committables {
                committables: snap.committables.clone(),
            },
        ));
    }
    files
}

/// A RocksDB checkpoint's SST files: under `shared/` when incremental, else in `dir`, named
/// like Flink's uploads (a UUID each).
fn sst_files(
    dir: &str,
    vertex: &str,
    snap: &TaskStateSnapshot,
    position: usize,
    r: &RocksCheckpoint,
) -> Vec<StateFile> {
    let sst = |path: String, f: &SstFile, uploaded_in| StateFile {
        path,
        vertex: vertex.to_string(),
        subtask: snap.task.subtask,
        size: f.bytes,
        content: StateFileContent::Sst {
            position,
            file: f.clone(),
            uploaded_in,
        },
    };
    if r.kind == RocksSnapshotKind::Incremental {
        return r
            .shared_files(snap.task, position)
            .map(|(path, f, by)| sst(path, f, by))
            .collect();
    }
    r.files
        .iter()
        .zip(&r.uploaded_in)
        .map(|(f, by)| {
            let id = shared_handle_id(snap.task, position, f.number, *by);
            sst(format!("{dir}/{id}"), f, *by)
        })
        .collect()
}

/// The stored form of retained checkpoint or savepoint `id`, if the simulation still holds it.
pub fn capture(sim: &Simulation, id: CheckpointId) -> Option<StoredCheckpoint> {
    let state = sim.completed_state.get(&id)?;
    let stats = sim.coordinator.stats().get(id)?;
    let mut stored = StoredCheckpoint {
        format_version: STORED_FORMAT_VERSION,
        job_name: sim.scenario.name.clone(),
        job_id: sim.coordinator.job_id().to_string(),
        scenario: sim.scenario.clone(),
        metadata: CheckpointMetadata {
            checkpoint_id: id,
            props: stats.props,
            trigger_timestamp: stats.trigger_timestamp,
            completion_timestamp: stats.completion_timestamp?,
            external_pointer: stats.external_path.clone().unwrap_or_default(),
            vertices: sim
                .graph
                .vertices
                .iter()
                .map(|v| VertexMetadata {
                    name: v.name.clone(),
                    parallelism: v.parallelism,
                    max_parallelism: v.max_parallelism,
                })
                .collect(),
            subtasks: Vec::new(),
        },
        files: Vec::new(),
    };
    let dir = stored.directory();
    for snap in state.values() {
        let vertex = &sim.graph.vertices.get(snap.task.vertex as usize)?.name;
        let files = subtask_files(&dir, vertex, snap);
        stored.metadata.subtasks.push(SubtaskMetadata {
            vertex: vertex.clone(),
            subtask: snap.task.subtask,
            finished: snap.finished,
            files: files.iter().map(|f| f.path.clone()).collect(),
        });
        stored.files.extend(files);
    }
    Some(stored)
}
