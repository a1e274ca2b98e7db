//! `SharedStateRegistryImpl`: the JobManager's record of state files several checkpoints share
//! (incremental RocksDB SST files under `shared/`). A completed checkpoint registers every shared
//! handle it lists (`CheckpointCoordinator.completePendingCheckpoint` → `registerAll`): a new
//! upload creates an entry, a placeholder for an earlier upload advances that entry's last
//! use. When checkpoints are subsumed, `unregisterUnusedState` discards every entry last used
//! before the lowest checkpoint still retained: no retained checkpoint refers to it any more.
//! Pure bookkeeping: the simulator passes keys and sizes, and records what was discarded.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::types::CheckpointId;

/// `SharedStateEntry`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct SharedStateEntry {
    /// The `SharedStateRegistryKey`: the file's path under `shared/`.
    pub key: String,
    pub bytes: u64,
    /// `createdByCheckpointID`: the checkpoint that uploaded it.
    pub created_by: CheckpointId,
    /// `lastUsedCheckpointID`: the newest completed checkpoint that lists it.
    pub last_used: CheckpointId,
    /// `confirmed`: part of a checkpoint that completed (`checkpointCompleted`).
    pub confirmed: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SharedStateRegistry {
    entries: BTreeMap<String, SharedStateEntry>,
    /// Bytes discarded so far.
    discarded_bytes: u64,
}

impl SharedStateRegistry {
    /// `registerReference(key, handle, checkpointID)`: returns whether the key was new.
    pub fn register_reference(&mut self, key: &str, bytes: u64, checkpoint: CheckpointId) -> bool {
        match self.entries.get_mut(key) {
            Some(e) => {
                e.last_used = e.last_used.max(checkpoint);
                false
            }
            None => {
                self.entries.insert(
                    key.to_string(),
                    SharedStateEntry {
                        key: key.to_string(),
                        bytes,
                        created_by: checkpoint,
                        last_used: checkpoint,
                        confirmed: false,
                    },
                );
                true
            }
        }
    }

    /// `checkpointCompleted`: entries it used last are confirmed.
    pub fn checkpoint_completed(&mut self, id: CheckpointId) {
        for e in self.entries.values_mut() {
            if e.last_used == id {
                e.confirmed = true;
            }
        }
    }

    /// `unregisterUnusedState(lowestCheckpointID)`: removes and returns the entries last used
    /// before the lowest retained checkpoint; their files are deleted.
    pub fn unregister_unused_state(&mut self, lowest: CheckpointId) -> Vec<SharedStateEntry> {
        let unused: Vec<String> = self
            .entries
            .values()
            .filter(|e| e.last_used < lowest)
            .map(|e| e.key.clone())
            .collect();
        let gone: Vec<SharedStateEntry> = unused
            .iter()
            .filter_map(|k| self.entries.remove(k))
            .collect();
        self.discarded_bytes += gone.iter().map(|e| e.bytes).sum::<u64>();
        gone
    }

    pub fn get(&self, key: &str) -> Option<&SharedStateEntry> {
        self.entries.get(key)
    }

    pub fn entries(&self) -> impl Iterator<Item = &SharedStateEntry> {
        self.entries.values()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Bytes of the registered files: what `shared/` holds.
    pub fn bytes(&self) -> u64 {
        self.entries.values().map(|e| e.bytes).sum()
    }

    pub fn discarded_bytes(&self) -> u64 {
        self.discarded_bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_lives_while_a_retained_checkpoint_uses_it() {
        let mut r = SharedStateRegistry::default();
        assert!(r.register_reference("a", 10, 1));
        r.checkpoint_completed(1);
        // Checkpoint 2 refers to `a` by a placeholder and uploads `b`.
        assert!(!r.register_reference("a", 10, 2));
        assert!(r.register_reference("b", 5, 2));
        r.checkpoint_completed(2);
        assert_eq!(
            r.get("a").map(|e| (e.created_by, e.last_used)),
            Some((1, 2))
        );
        // num-retained 1: checkpoint 1 is subsumed, 2 is the lowest retained.
        assert!(r.unregister_unused_state(2).is_empty(), "2 still lists a");
        // Checkpoint 3 (after a compaction) lists only `c`.
        r.register_reference("c", 7, 3);
        r.checkpoint_completed(3);
        let gone: Vec<String> = r
            .unregister_unused_state(3)
            .into_iter()
            .map(|e| e.key)
            .collect();
        assert_eq!(gone, ["a", "b"]);
        assert_eq!((r.len(), r.bytes(), r.discarded_bytes()), (1, 7, 15));
    }

    #[test]
    fn confirmation_follows_the_last_use() {
        let mut r = SharedStateRegistry::default();
        r.register_reference("a", 1, 4);
        assert!(!r.get("a").is_some_and(|e| e.confirmed));
        r.checkpoint_completed(3);
        assert!(!r.get("a").is_some_and(|e| e.confirmed));
        r.checkpoint_completed(4);
        assert!(r.get("a").is_some_and(|e| e.confirmed));
    }
}
