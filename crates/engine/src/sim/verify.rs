//! Exactly-once, checked on every run: what each sink made visible outside the job against what
//! the sources produced up to a consistent cut, and keyed counts against the records behind them.
//!
//! Records are identified by `(origin, seq)`. A datagen record is a pure function of its identity
//! and filters decide by it too, so the expected output of any cut can be recomputed exactly.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{JobStatus, Simulation};
use crate::scenario::{OperatorKind, Partitioner};
use crate::task::{mix64, Operator};
use crate::types::CheckpointId;

/// One way from a source to an operator: the filters on it and how often broadcast copies a record.
#[derive(Debug, Clone)]
struct Path {
    filters: Vec<u32>,
    copies: u64,
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

fn passes(keep_percent: u32, origin: u32, seq: u64) -> bool {
    // The same decision as `Operator::Filter`.
    mix64(u64::from(origin) << 40 ^ seq ^ 0xf117) % 100 < u64::from(keep_percent)
}

impl Simulation {
    /// Paths from source operator `from` to operator `to`; `None` when a window is on the way.
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
                    u64::from(ops[next].parallelism)
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
            .filter(|p| p.filters.iter().all(|k| passes(*k, origin, seq)))
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
            .filter_map(|(i, o)| {
                let v = self.graph.vertex_of_operator(i)?;
                Some((i, (0..o.parallelism).map(|s| (v.id << 16) | s).collect()))
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
        offsets: &BTreeMap<u32, u64>,
    ) -> Option<BTreeMap<(u32, u64), u64>> {
        let mut expected = BTreeMap::new();
        for (src, origins) in self.source_origins() {
            let paths = self.paths(src, to)?;
            if paths.is_empty() {
                continue;
            }
            for origin in origins {
                for seq in 0..offsets.get(&origin).copied().unwrap_or(0) {
                    let m = Self::multiplicity(&paths, origin, seq);
                    if m > 0 {
                        expected.insert((origin, seq), m);
                    }
                }
            }
        }
        Some(expected)
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
            let sink = self.external.sinks.get(&op).cloned().unwrap_or_default();
            // The cut: everything when the job finished; else the newest checkpoint every sink
            // subtask committed (two-phase commit) or the newest completed one (plain sink).
            let basis = if finished {
                None
            } else if transactional {
                let mut newest: BTreeMap<u32, CheckpointId> = BTreeMap::new();
                for (cid, sub) in &sink.committed_transactions {
                    let e = newest.entry(*sub).or_default();
                    *e = (*e).max(*cid);
                }
                let all = newest.len() as u32 == spec.parallelism;
                Some(if all {
                    newest.values().copied().min().unwrap_or(0)
                } else {
                    0
                })
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
            let Some(mut expected) = self.expected(op, &offsets) else {
                v.unverifiable.push(format!(
                    "{}: a window aggregates records on the way",
                    spec.name
                ));
                continue;
            };
            // Records the cut holds as channel state reach the sink only after it.
            if let Some(in_flight) = basis.and_then(|b| self.checkpoint_in_flight.get(&b)) {
                for rec in in_flight {
                    if let Some(m) = expected.get_mut(rec) {
                        *m = m.saturating_sub(1);
                    }
                }
                expected.retain(|_, m| *m > 0);
            }
            let mut written: BTreeMap<(u32, u64), u64> = BTreeMap::new();
            for r in &sink.records {
                *written.entry(*r).or_default() += 1;
            }
            let paths: BTreeMap<usize, Vec<Path>> = self
                .source_origins()
                .into_iter()
                .filter_map(|(src, _)| Some((src, self.paths(src, op)?)))
                .collect();
            let mut s = SinkVerification {
                sink: spec.name.clone(),
                transactional,
                basis: basis.map_or("end of input".into(), |b| format!("checkpoint {b}")),
                expected_records: expected.values().sum(),
                committed_records: sink.records.len() as u64,
                duplicates: 0,
                missing: 0,
            };
            for (rec, n) in &written {
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
            if spec.kind != OperatorKind::KeyedCount {
                continue;
            }
            let Some(expected) = self.expected(op, &offsets) else {
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
                expected: expected.values().sum(),
            });
        }
        out
    }
}
