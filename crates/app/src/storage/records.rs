//! How a stored checkpoint is split into IndexedDB records, and read back with every way a record
//! can be damaged turned into a reason (never a panic).
//!
//! Per checkpoint two records share one key, `<job name>/<job id>/<directory>`:
//! - `checkpoints` (the `_metadata`): job, id, kind, sizes, the file list, a checksum of the state
//!   bytes, and `metadata`, the JSON of the stored checkpoint without its state files;
//! - `state` (the state files): their JSON, deflated.

use barrierlab_engine::storage::{checksum, StateFileContent, StoredCheckpoint};
use serde::{Deserialize, Serialize};

/// Inflated state files above this are refused: a damaged record cannot make us allocate more.
const MAX_STATE_BYTES: usize = 256 << 20;

/// A state file as the browser lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileEntry {
    pub path: String,
    pub size: u64,
    /// An SST file's name in its RocksDB instance (`000042.sst`); records from before RocksDB
    /// files were listed have none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local: Option<String>,
}

/// The `metadata` field of a `checkpoints` record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetadataRecord {
    /// The stored checkpoint with `files` left empty.
    pub checkpoint: StoredCheckpoint,
    pub files: Vec<FileEntry>,
    /// `checksum` of the state record's bytes, hex.
    pub state_checksum: String,
}

/// Key of a job: `<job name>/<job id>`.
pub fn job_key(job_name: &str, job_id: &str) -> String {
    format!("{job_name}/{job_id}")
}

/// Key of a checkpoint's two records.
pub fn record_key(stored: &StoredCheckpoint) -> String {
    format!(
        "{}/{}",
        job_key(&stored.job_name, &stored.job_id),
        stored.directory()
    )
}

/// Splits a stored checkpoint into the metadata JSON and the deflated state bytes.
pub fn encode(stored: &StoredCheckpoint) -> (String, Vec<u8>) {
    let files_json = serde_json::to_vec(&stored.files).expect("state files serialize");
    let state = miniz_oxide::deflate::compress_to_vec(&files_json, 6);
    let mut checkpoint = stored.clone();
    checkpoint.files.clear();
    let meta = MetadataRecord {
        files: stored
            .files
            .iter()
            .map(|f| FileEntry {
                path: f.path.clone(),
                size: f.size,
                local: match &f.content {
                    StateFileContent::Sst { file, .. } => Some(file.name()),
                    _ => None,
                },
            })
            .collect(),
        checkpoint,
        state_checksum: format!("{:016x}", checksum(&state)),
    };
    (
        serde_json::to_string(&meta).expect("metadata serializes"),
        state,
    )
}

/// Reads the metadata JSON of a record.
pub fn decode_metadata(text: &str) -> Result<MetadataRecord, String> {
    serde_json::from_str(text).map_err(|e| format!("_metadata is damaged: {e}"))
}

/// Joins a metadata record with its state bytes, checking checksum, size and file list.
pub fn decode(meta: &MetadataRecord, state: &[u8]) -> Result<StoredCheckpoint, String> {
    let sum = format!("{:016x}", checksum(state));
    if sum != meta.state_checksum {
        return Err(format!(
            "state files are damaged: checksum {sum} does not match {} in _metadata ({} bytes stored)",
            meta.state_checksum,
            state.len()
        ));
    }
    let json = miniz_oxide::inflate::decompress_to_vec_with_limit(state, MAX_STATE_BYTES)
        .map_err(|e| format!("state files are damaged: cannot inflate ({:?})", e.status))?;
    // `from_str` like every other read: one deserializer type keeps the wasm bundle small.
    let text = std::str::from_utf8(&json).map_err(|e| format!("state files are damaged: {e}"))?;
    let files = serde_json::from_str(text).map_err(|e| format!("state files are damaged: {e}"))?;
    let mut stored = meta.checkpoint.clone();
    stored.files = files;
    stored.check_files()?;
    Ok(stored)
}

#[cfg(test)]
mod tests {
    use super::*;
    use barrierlab_engine::scenario::preset;
    use barrierlab_engine::sim::Simulation;
    use barrierlab_engine::storage::CheckpointStorage;
    use barrierlab_engine::storage::StorageEffect;

    fn stored() -> StoredCheckpoint {
        let mut sim = Simulation::new(preset("seed-demo").unwrap()).unwrap();
        sim.run_until(12_000_000);
        let effects = CheckpointStorage::default().poll(&sim);
        match effects.into_iter().last() {
            Some(StorageEffect::Store(s)) => *s,
            other => panic!("expected a stored checkpoint, got {other:?}"),
        }
    }

    #[test]
    fn encode_then_decode_is_the_same_checkpoint() {
        let s = stored();
        let (meta, state) = encode(&s);
        let meta = decode_metadata(&meta).unwrap();
        assert_eq!(meta.files.len(), s.files.len());
        assert_eq!(decode(&meta, &state).unwrap(), s);
        assert!(record_key(&s).starts_with("seed-demo/"));
        assert!(record_key(&s).ends_with(&format!("/chk-{}", s.id())));
    }

    #[test]
    fn damaged_records_give_reasons() {
        let s = stored();
        let (meta_text, mut state) = encode(&s);
        let e = decode_metadata(&meta_text[..meta_text.len() - 10]).unwrap_err();
        assert!(e.starts_with("_metadata is damaged: EOF"), "{e}");
        let meta = decode_metadata(&meta_text).unwrap();
        state[3] ^= 0x55;
        let e = decode(&meta, &state).unwrap_err();
        assert!(e.contains("checksum"), "{e}");
        let e = decode(&meta, &state[..state.len() / 2]).unwrap_err();
        assert!(e.starts_with("state files are damaged"), "{e}");
    }
}
