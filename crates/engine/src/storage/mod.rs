//! Checkpoint storage, sans IO: what Flink's `CheckpointStorage` (`FsCheckpointStorageAccess`)
//! writes for a completed checkpoint or savepoint, as plain serde data, and the effects a host
//! carries out to keep it (`CheckpointStorage::poll`). The host (the playground over IndexedDB)
//! owns the bytes; the engine only describes them and restores from them.
//!
//! Layout, as `FsCheckpointStorageLocation` lays it out under `<checkpoint-dir>/<job-id>/`:
//! `chk-N/_metadata` (`Checkpoints.storeCheckpointMetadata`) plus the state files exclusive to
//! that checkpoint (the heap backend's full snapshots, a full RocksDB checkpoint's SST files);
//! `shared/` holds the SST files of incremental RocksDB checkpoints, each listed by every
//! checkpoint that refers to it and deleted once none retained does (`SharedStateRegistry`);
//! `taskowned/` (state the task manager owns, such as changelog files) stays empty here.
//! Savepoints are self-contained `savepoint-<job>-<id>/` directories owned by the user.

mod capture;
mod restore;
#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

pub use capture::{retention_discards, CheckpointStorage, StorageEffect};

use crate::coordinator::CheckpointProperties;
use crate::network::Record;
use crate::scenario::Scenario;
use crate::state::{KeyedStateSnapshot, OperatorStateSnapshot, SstFile};
use crate::types::{CheckpointId, Micros};

/// Version of the stored format; a file with another version is refused with a clear message.
pub const STORED_FORMAT_VERSION: u32 = 1;

/// One completed checkpoint or savepoint of a named job, everything needed to restore it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoredCheckpoint {
    pub format_version: u32,
    /// The scenario's name: the job's name.
    pub job_name: String,
    /// The job id that names its checkpoint directory.
    pub job_id: String,
    /// The job that took it, so it can be resubmitted from it.
    pub scenario: Scenario,
    /// `_metadata`.
    pub metadata: CheckpointMetadata,
    /// The state files `_metadata` points to.
    pub files: Vec<StateFile>,
}

/// `CheckpointMetadata`: id, properties, and per subtask the handles of its state files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckpointMetadata {
    pub checkpoint_id: CheckpointId,
    pub props: CheckpointProperties,
    pub trigger_timestamp: Micros,
    pub completion_timestamp: Micros,
    /// Where `_metadata` lives, e.g. `file:/tmp/flink-checkpoints/<job-id>/chk-7`.
    pub external_pointer: String,
    /// The job vertices (`OperatorState`s) by name, which plays the role of Flink's operator uid.
    pub vertices: Vec<VertexMetadata>,
    pub subtasks: Vec<SubtaskMetadata>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VertexMetadata {
    pub name: String,
    pub parallelism: u32,
    pub max_parallelism: u32,
}

/// `OperatorSubtaskState`: which files hold one subtask's state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SubtaskMetadata {
    pub vertex: String,
    pub subtask: u32,
    /// `FullyFinishedOperatorState`: the subtask had finished before the checkpoint.
    pub finished: bool,
    /// Paths of its state files, relative to the job's checkpoint directory.
    pub files: Vec<String>,
}

/// One state file (`StreamStateHandle`) with its content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StateFile {
    /// Relative to the job's checkpoint directory, e.g. `chk-7/window_1.keyed-0`.
    pub path: String,
    pub vertex: String,
    pub subtask: u32,
    /// Bytes Flink would write (`getStateSize()`).
    pub size: u64,
    pub content: StateFileContent,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StateFileContent {
    /// `KeyGroupsStateHandle`: keyed state of the chained operator at `position`, by key group.
    Keyed {
        position: usize,
        snapshot: KeyedStateSnapshot,
    },
    /// `OperatorStreamStateHandle`: list state (source offsets).
    Operator {
        position: usize,
        snapshot: OperatorStateSnapshot,
    },
    /// `InputChannelStateHandle`s and `ResultSubpartitionStateHandle`s of an unaligned checkpoint.
    Channel {
        output: Vec<(usize, u32, Vec<StoredRecord>)>,
        input: Vec<(u32, Vec<StoredRecord>)>,
    },
    /// Pre-committed two-phase-commit transactions (committables).
    Committables {
        committables: Vec<StoredCommittable>,
    },
    /// One SST file of the RocksDB instance of the chained operator at `position`: under
    /// `shared/` for an incremental checkpoint (several checkpoints list it), in `chk-N/` for a
    /// full one. `uploaded_in`: the checkpoint whose upload it is. The keyed file beside it is
    /// the instance's metadata and private files (MANIFEST, CURRENT, OPTIONS).
    Sst {
        position: usize,
        file: SstFile,
        uploaded_in: CheckpointId,
    },
}

/// A pre-committed transaction: (chained operator index, pre-committing checkpoint, record ids).
pub type StoredCommittable = (usize, CheckpointId, Vec<(u32, u64)>);

/// A record as channel state stores it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredRecord {
    pub key: i32,
    pub value: i64,
    pub origin: u32,
    pub seq: u64,
    pub bytes: u32,
}

impl From<&Record> for StoredRecord {
    fn from(r: &Record) -> Self {
        StoredRecord {
            key: r.key,
            value: r.value,
            origin: r.origin,
            seq: r.seq,
            bytes: r.bytes,
        }
    }
}

impl From<&StoredRecord> for Record {
    fn from(r: &StoredRecord) -> Self {
        Record::new(r.key, r.value, r.origin, r.seq, r.bytes)
    }
}

impl StoredCheckpoint {
    pub fn id(&self) -> CheckpointId {
        self.metadata.checkpoint_id
    }

    pub fn is_savepoint(&self) -> bool {
        self.metadata.props.is_savepoint()
    }

    /// The directory Flink would write it to, relative to the checkpoint (or savepoint) root:
    /// `<job-id>/chk-N` or `savepoint-<job>-<id>`.
    pub fn directory(&self) -> String {
        let id = self.id();
        if self.is_savepoint() {
            let short: String = self.job_id.chars().take(6).collect();
            format!("savepoint-{short}-{id:012x}")
        } else {
            format!("chk-{id}")
        }
    }

    /// Total bytes of its state files.
    pub fn state_size(&self) -> u64 {
        self.files.iter().map(|f| f.size).sum()
    }

    /// Reads a stored checkpoint (an exported file or a stored record), checking its version.
    pub fn from_json(text: &str) -> Result<StoredCheckpoint, String> {
        /// Only the version, so an unsupported file is named as such before its body is read.
        #[derive(Deserialize)]
        struct Header {
            format_version: Option<u64>,
        }
        let header: Header =
            serde_json::from_str(text).map_err(|e| format!("not a stored checkpoint: {e}"))?;
        let version = header.format_version;
        if version != Some(u64::from(STORED_FORMAT_VERSION)) {
            return Err(match version {
                Some(v) => format!(
                    "stored checkpoint format version {v} is not supported (this build reads version {STORED_FORMAT_VERSION})"
                ),
                None => "not a stored checkpoint: no format_version".into(),
            });
        }
        // Straight from the text, not through a `Value`: every extra deserializer type doubles
        // the derived code in the wasm bundle.
        let stored: StoredCheckpoint =
            serde_json::from_str(text).map_err(|e| format!("damaged stored checkpoint: {e}"))?;
        stored.check_files()?;
        Ok(stored)
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a stored checkpoint serializes")
    }

    /// Every file `_metadata` names is there, and no other.
    pub fn check_files(&self) -> Result<(), String> {
        let present: std::collections::BTreeSet<&str> =
            self.files.iter().map(|f| f.path.as_str()).collect();
        for s in &self.metadata.subtasks {
            for f in &s.files {
                if !present.contains(f.as_str()) {
                    return Err(format!(
                        "damaged stored checkpoint: state file '{f}' of {} ({}) is missing",
                        s.vertex, s.subtask
                    ));
                }
            }
        }
        Ok(())
    }
}

/// FNV-1a over the bytes: a checksum the host keeps next to `_metadata` so a corrupted state
/// record is recognised before it is restored.
pub fn checksum(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}
