//! Exactly-once, checked on every run: what each sink made visible outside the job against what
//! the sources produced up to a consistent cut, and keyed counts against the records behind them.
//!
//! Records are identified by `(origin, seq)`. A datagen record is a pure function of its identity
//! and filters decide by it too, so the expected output of any cut can be recomputed exactly.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{ExternalSink, JobStatus, Simulation};
use crate::scenario::{OperatorKind, Partitioner};
use crate::task::{filter_passes, Operator};
use crate::types::CheckpointId;

/// One way from a source to an operator: the filters on it and how often broadcast copies a record.
#[derive(Debug, Clone)]
struct Path {
    filters: Vec<u32>,
    copies: u64,
}

/// One copy of a record a completed checkpoint holds as channel state, and the scenario operator
/// it enters next (its channel's consumer). A record written to a broadcast edge is one copy per
/// subpartition, each channel state of its own (`BufferWritingResultPartition.broadcastRecord`);
/// a copy held before a broadcast edge still owes every copy past it, so what a copy owes a sink
/// is counted from the operator it enters.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct InFlightRecord {
    pub origin: u32,
    pub seq: u64,
    pub operator: usize,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct SinkVerification {
    pub sink: String,
    pub transactional: bool,
    /// The cut compared against: `checkpoint N` (committed / completed) or `end of input`.
    pub basis: String,
    pub expected_records: u64,
    pub committed_records: u64,
    pub duplicates: u64,
    pub missing: u64,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct StateVerification {
    pub operator: String,
    /// Sum of the counts in the final keyed state, and the number of records that reached it.
    pub counted: u64,
    pub expected: u64,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Verification {
    pub expected_records: u64,
    pub committed_records: u64,
    pub duplicates: u64,
    pub missing: u64,
    pub sinks: Vec<SinkVerification>,
    /// Keyed counts of a finished job (empty while it runs).
    pub state: Vec<StateVerification>,
    /// Why a sink or operator could not be verified (windows aggregate records away).
    pub unverifiable: Vec<String>,
}

impl Simulation {
    /// Paths from operator `from` (a source, or where a held copy enters) to operator `to`; `None`
    /// when a window is on the way.
    fn paths(&self, from: usize, to: usize) -> Option<Vec<Path>> {
        let ops = &self.scenario.operators;
        let mut out = Vec::new();
        let mut stack = vec![(
            from,
            Path {
                filters: vec![],
                copies: 1,
            },
        )];
        while let Some((op, mut path)) = stack.pop() {
            if let OperatorKind::Filter { keep_percent } = ops[op].kind {
                path.filters.push(keep_percent);
            }
            if op == to {
                out.push(path);
                continue;
            }
            if matches!(ops[op].kind, OperatorKind::KeyedWindowSum { .. }) {
                return None;
            }
            for e in self
                .scenario
                .edges
                .iter()
                .filter(|e| e.from == ops[op].name)
            {
                let next = self.scenario.operator_index(&e.to)?;
                let copies = if e.partitioner == Partitioner::Broadcast {
                    u64::from(self.scenario.parallelism(next))
                } else {
                    1
                };
                stack.push((
                    next,
                    Path {
                        filters: path.filters.clone(),
                        copies: path.copies * copies,
                    },
                ));
            }
        }
        Some(out)
    }

    /// How many times record `(origin, seq)` of source `src` should reach `to`.
    fn multiplicity(paths: &[Path], origin: u32, seq: u64) -> u64 {
        paths
            .iter()
            .filter(|p| p.filters.iter().all(|k| filter_passes(*k, origin, seq)))
            .map(|p| p.copies)
            .sum()
    }

    /// Source operators with their subtasks' origins.
    fn source_origins(&self) -> Vec<(usize, Vec<u32>)> {
        self.scenario
            .operators
            .iter()
            .enumerate()
            .filter(|(_, o)| o.kind.is_source())
            .filter_map(|(i, _)| {
                let v = self.graph.vertex_of_operator(i)?;
                Some((i, (0..v.parallelism).map(|s| (v.id << 16) | s).collect()))
            })
            .collect()
    }

    /// Source positions at the cut: `origin → next seq`.
    fn cut_offsets(&self, basis: Option<CheckpointId>) -> BTreeMap<u32, u64> {
        match basis {
            Some(id) => self
                .checkpoint_offsets
                .get(&id)
                .cloned()
                .unwrap_or_default(),
            None => self
                .tasks
                .iter()
                .filter_map(|t| match t.operators.first() {
                    Some(Operator::Datagen(dg)) => Some((dg.origin, dg.next_seq)),
                    _ => None,
                })
                .collect(),
        }
    }

    /// Expected and actual multiplicities of every record reaching `to` below the cut.
    fn expected(
        &self,
        to: usize,
        from: &BTreeMap<u32, u64>,
        offsets: &BTreeMap<u32, u64>,
    ) -> Option<BTreeMap<(u32, u64), u64>> {
        let mut expected = BTreeMap::new();
        for (src, origins) in self.source_origins() {
            let paths = self.paths(src, to)?;
            if paths.is_empty() {
                continue;
            }
            for origin in origins {
                let first = from.get(&origin).copied().unwrap_or(0);
                for seq in first..offsets.get(&origin).copied().unwrap_or(0) {
                    let m = Self::multiplicity(&paths, origin, seq);
                    if m > 0 {
                        expected.insert((origin, seq), m);
                    }
                }
            }
        }
        Some(expected)
    }

    /// The newest checkpoint every subtask of two-phase-commit sink `op` has committed (0 while
    /// one has committed none).
    pub(crate) fn commit_basis(&self, op: usize) -> CheckpointId {
        let Some(sink) = self.external.sinks.get(&op) else {
            return 0;
        };
        let mut newest: BTreeMap<u32, CheckpointId> = BTreeMap::new();
        for (cid, sub) in &sink.committed_transactions {
            let e = newest.entry(*sub).or_default();
            *e = (*e).max(*cid);
        }
        if newest.len() as u32 == self.scenario.parallelism(op) {
            newest.values().copied().min().unwrap_or(0)
        } else {
            0
        }
    }

    /// The oldest checkpoint the verification can still compare against: the newest completed
    /// one for plain sinks, the commit basis of each two-phase-commit sink.
    pub(crate) fn oldest_verification_basis(&self, newest: CheckpointId) -> CheckpointId {
        self.scenario
            .operators
            .iter()
            .enumerate()
            .filter(|(_, o)| o.kind == OperatorKind::TwoPhaseCommitSink)
            .map(|(op, _)| self.commit_basis(op))
            .fold(newest, CheckpointId::min)
    }

    /// How many records reach `to` below the cut, without listing them (a long finished run).
    fn expected_count(&self, to: usize, offsets: &BTreeMap<u32, u64>) -> Option<u64> {
        let mut count = 0;
        for (src, origins) in self.source_origins() {
            let paths = self.paths(src, to)?;
            for origin in origins {
                for seq in 0..offsets.get(&origin).copied().unwrap_or(0) {
                    count += Self::multiplicity(&paths, origin, seq);
                }
            }
        }
        Some(count)
    }

    /// Folds every sink's records below the oldest cut still in use (`floor`: the source
    /// positions and in-flight records of every checkpoint kept) into its verdict. No restore
    /// replays them and no cut the verification may still take excludes them, so their verdict
    /// is final; pending transactions hold only records after the commit basis's cut.
    pub(crate) fn fold_final_records(&mut self) {
        let mut floor: BTreeMap<u32, u64> = BTreeMap::new();
        let mut kept = 0usize;
        for offsets in self.checkpoint_offsets.values() {
            kept += 1;
            for (origin, pos) in offsets {
                let f = floor.entry(*origin).or_insert(*pos);
                *f = (*f).min(*pos);
            }
        }
        // An origin some kept checkpoint has no position for (a source that had not started)
        // cannot be folded.
        floor.retain(|origin, _| {
            self.checkpoint_offsets
                .values()
                .all(|o| o.contains_key(origin))
        });
        if kept == 0 || floor.is_empty() {
            return;
        }
        for records in self.checkpoint_in_flight.values() {
            for rec in records {
                if let Some(f) = floor.get_mut(&rec.origin) {
                    *f = (*f).min(rec.seq);
                }
            }
        }
        let origins = self.source_origins();
        for op in 0..self.scenario.operators.len() {
            if !matches!(
                self.scenario.operators[op].kind,
                OperatorKind::TwoPhaseCommitSink | OperatorKind::CollectSink
            ) {
                continue;
            }
            let paths: Option<BTreeMap<usize, Vec<Path>>> = origins
                .iter()
                .map(|(src, _)| Some((*src, self.paths(*src, op)?)))
                .collect();
            let Some(sink) = self.external.sinks.get_mut(&op) else {
                continue;
            };
            let Some(paths) = paths else {
                // A window on the way: the records are never compared; only their count stays.
                sink.written.clear();
                continue;
            };
            for (src, src_origins) in &origins {
                for origin in src_origins {
                    let Some(&to) = floor.get(origin) else {
                        continue;
                    };
                    let from = sink.folded.below.get(origin).copied().unwrap_or(0);
                    for seq in from..to {
                        let m = Self::multiplicity(&paths[src], *origin, seq);
                        let n = sink.written.remove(&(*origin, seq)).unwrap_or(0);
                        let allowed = paths
                            .values()
                            .map(|p| Self::multiplicity(p, *origin, seq))
                            .max()
                            .unwrap_or(0)
                            .max(1);
                        sink.folded.expected += m;
                        sink.folded.missing += m.saturating_sub(n);
                        sink.folded.duplicates += n.saturating_sub(allowed);
                    }
                    if to > from {
                        sink.folded.below.insert(*origin, to);
                    }
                }
            }
        }
    }

    /// The run's exactly-once verdict.
    pub fn verification(&self) -> Verification {
        let mut v = Verification {
            expected_records: 0,
            committed_records: 0,
            duplicates: 0,
            missing: 0,
            sinks: Vec::new(),
            state: Vec::new(),
            unverifiable: Vec::new(),
        };
        let finished = self.status == JobStatus::Finished;
        for (op, spec) in self.scenario.operators.iter().enumerate() {
            let transactional = match spec.kind {
                OperatorKind::TwoPhaseCommitSink => true,
                OperatorKind::CollectSink => false,
                _ => continue,
            };
            let none = ExternalSink::default();
            let sink = self.external.sinks.get(&op).unwrap_or(&none);
            // The cut: everything when the job finished; else the newest checkpoint every sink
            // subtask committed (two-phase commit) or the newest completed one (plain sink).
            let basis = if finished {
                None
            } else if transactional {
                Some(self.commit_basis(op))
            } else {
                Some(
                    self.checkpoint_offsets
                        .keys()
                        .next_back()
                        .copied()
                        .unwrap_or(0),
                )
            };
            let offsets = self.cut_offsets(basis);
            let Some(mut expected) = self.expected(op, &sink.folded.below, &offsets) else {
                v.unverifiable.push(format!(
                    "{}: a window aggregates records on the way",
                    spec.name
                ));
                continue;
            };
            // Records the cut holds as channel state reach the sink only after it: each copy held
            // takes away the copies it still makes at this sink, counted from the operator it
            // enters (several past a broadcast edge still ahead, none on a way to another sink).
            if let Some(in_flight) = basis.and_then(|b| self.checkpoint_in_flight.get(&b)) {
                let mut owed: BTreeMap<usize, Vec<Path>> = BTreeMap::new();
                for rec in in_flight {
                    let paths = owed
                        .entry(rec.operator)
                        .or_insert_with(|| self.paths(rec.operator, op).unwrap_or_default());
                    if let Some(m) = expected.get_mut(&(rec.origin, rec.seq)) {
                        *m = m.saturating_sub(Self::multiplicity(paths, rec.origin, rec.seq));
                    }
                }
                expected.retain(|_, m| *m > 0);
            }
            let written = &sink.written;
            let paths: BTreeMap<usize, Vec<Path>> = self
                .source_origins()
                .into_iter()
                .filter_map(|(src, _)| Some((src, self.paths(src, op)?)))
                .collect();
            let mut s = SinkVerification {
                sink: spec.name.clone(),
                transactional,
                basis: basis.map_or("end of input".into(), |b| format!("checkpoint {b}")),
                expected_records: expected.values().sum::<u64>() + sink.folded.expected,
                committed_records: sink.written_total,
                duplicates: sink.folded.duplicates,
                missing: sink.folded.missing,
            };
            for (rec, n) in written {
                // Allowed copies of this record: its multiplicity, wherever it falls.
                let allowed = paths
                    .values()
                    .map(|p| Self::multiplicity(p, rec.0, rec.1))
                    .max()
                    .unwrap_or(0)
                    .max(1);
                s.duplicates += n.saturating_sub(allowed);
            }
            for (rec, m) in &expected {
                s.missing += m.saturating_sub(written.get(rec).copied().unwrap_or(0));
            }
            v.expected_records += s.expected_records;
            v.committed_records += s.committed_records;
            v.duplicates += s.duplicates;
            v.missing += s.missing;
            v.sinks.push(s);
        }
        if finished {
            v.state = self.state_verification(&mut v.unverifiable);
        }
        v
    }

    /// Keyed counts in the final state against the records that reached each count operator.
    fn state_verification(&self, unverifiable: &mut Vec<String>) -> Vec<StateVerification> {
        let offsets = self.cut_offsets(None);
        let mut out = Vec::new();
        for (op, spec) in self.scenario.operators.iter().enumerate() {
            // A list's length is the records appended to it, as a count is.
            if !matches!(
                spec.kind,
                OperatorKind::KeyedCount | OperatorKind::KeyedList
            ) {
                continue;
            }
            if spec.state_ttl.is_some() {
                unverifiable.push(format!("{}: its state TTL drops what expired", spec.name));
                continue;
            }
            let Some(expected) = self.expected_count(op, &offsets) else {
                unverifiable.push(format!(
                    "{}: a window aggregates records on the way",
                    spec.name
                ));
                continue;
            };
            let Some(v) = self.graph.vertex_of_operator(op) else {
                continue;
            };
            let pos = v.operators.iter().position(|o| *o == op).unwrap_or(0);
            let counted = self
                .tasks
                .iter()
                .filter(|t| t.id.vertex == v.id)
                .filter_map(|t| t.operators.get(pos)?.keyed_ref())
                .map(|k| {
                    k.backend
                        .key_group_range()
                        .iter()
                        .flat_map(|kg| k.backend.entries_in_key_group(k.state, kg))
                        .map(|(_, _, c)| c.max(0) as u64)
                        .sum::<u64>()
                })
                .sum();
            out.push(StateVerification {
                operator: spec.name.clone(),
                counted,
                expected,
            });
        }
        out
    }
}
