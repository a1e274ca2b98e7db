//! The world outside the job: what sinks wrote. It survives failures and restores, so it shows
//! what exactly-once (or its absence) means: a two-phase-commit sink's transactions are committed
//! once, whatever is replayed; a plain sink writes replayed records again.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::types::CheckpointId;

#[derive(Debug, Clone, Default, Serialize)]
pub struct ExternalSink {
    /// Records as `(origin, seq)`, in the order they became visible.
    pub records: Vec<(u32, u64)>,
    /// Two-phase commit: committed transactions as (pre-committing checkpoint, sink subtask).
    pub committed_transactions: BTreeSet<(CheckpointId, u32)>,
    /// Commits that found their transaction already committed (after a restore, or a repeated
    /// notification): proof that commit is idempotent.
    pub repeated_commits: u64,
}

/// Every sink's external output, by scenario operator index.
#[derive(Debug, Clone, Default)]
pub struct ExternalSystem {
    pub sinks: BTreeMap<usize, ExternalSink>,
}

impl ExternalSystem {
    /// Commits a transaction unless it was committed already (`Committer.commit` is idempotent).
    pub fn commit(
        &mut self,
        operator: usize,
        subtask: u32,
        transaction: CheckpointId,
        records: &[(u32, u64)],
    ) -> bool {
        let sink = self.sinks.entry(operator).or_default();
        if !sink.committed_transactions.insert((transaction, subtask)) {
            sink.repeated_commits += 1;
            return false;
        }
        sink.records.extend_from_slice(records);
        true
    }

    pub fn write(&mut self, operator: usize, records: &[(u32, u64)]) {
        self.sinks
            .entry(operator)
            .or_default()
            .records
            .extend_from_slice(records);
    }
}
