//! The world outside the job: what sinks wrote. It survives failures and restores, so it shows
//! what exactly-once (or its absence) means: a two-phase-commit sink's transactions are committed
//! once, whatever is replayed; a plain sink writes replayed records again.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::types::CheckpointId;

#[derive(Debug, Clone, Default, Serialize, serde::Deserialize)]
pub struct ExternalSink {
    /// Copies written of each record `(origin, seq)` not yet folded into `folded`.
    pub written: BTreeMap<(u32, u64), u64>,
    /// Records written in all, folded or not.
    pub written_total: u64,
    /// Two-phase commit: committed transactions as (pre-committing checkpoint, sink subtask),
    /// from the oldest checkpoint a restore can still go back to.
    pub committed_transactions: BTreeSet<(CheckpointId, u32)>,
    /// Commits that found their transaction already committed (after a restore, or a repeated
    /// notification): proof that commit is idempotent.
    pub repeated_commits: u64,
    /// The verdict on records no restore can write again, so a long run stays small.
    pub folded: FoldedRecords,
}

/// The exactly-once verdict on every record below `below[origin]`, final because no checkpoint
/// a restore or the verification can still use reaches back that far.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq, serde::Deserialize)]
pub struct FoldedRecords {
    pub below: BTreeMap<u32, u64>,
    pub expected: u64,
    pub duplicates: u64,
    pub missing: u64,
}

/// Every sink's external output, by scenario operator index.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct ExternalSystem {
    pub sinks: BTreeMap<usize, ExternalSink>,
}

impl ExternalSink {
    fn add(&mut self, records: &[(u32, u64)]) {
        self.written_total += records.len() as u64;
        for r in records {
            *self.written.entry(*r).or_default() += 1;
        }
    }
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
        sink.add(records);
        true
    }

    pub fn write(&mut self, operator: usize, records: &[(u32, u64)]) {
        self.sinks.entry(operator).or_default().add(records);
    }
}
