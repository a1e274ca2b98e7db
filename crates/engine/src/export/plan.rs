//! What the Java job needs per operator, worked out once from the validated scenario and its job
//! graph: record types, input partitioning, where Flink's chaining must be broken to match the
//! engine's, the per-record work (explicit cost, slow and kill faults) and each datagen's vertex id
//! (it is part of the engine's record keys).

use crate::scenario::{JobGraph, OperatorKind, Partitioner, ResolvedFault, Scenario};
use crate::types::{Micros, MICROS_PER_MS};

/// The two Java record types (see `java/Records.java`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum RecordType {
    /// A datagen record: `Tuple2<Integer, byte[]>`, 8 bytes + payload.
    Bytes,
    /// A keyed operator's `(key, value)`: `Tuple2<Integer, Long>`, 12 bytes.
    Keyed,
}

impl RecordType {
    pub(super) fn java(self) -> &'static str {
        match self {
            RecordType::Bytes => "Tuple2<Integer, byte[]>",
            RecordType::Keyed => "Tuple2<Integer, Long>",
        }
    }

    pub(super) fn type_info(self) -> &'static str {
        match self {
            RecordType::Bytes => "Records.BYTES",
            RecordType::Keyed => "Records.KEYED",
        }
    }
}

/// One input edge of an operator.
#[derive(Debug, Clone)]
pub(super) struct Input {
    pub from: usize,
    pub partitioner: Partitioner,
    /// The edge's simulator-only latency, exported as a comment.
    pub latency: Option<String>,
}

/// Everything the Java builder needs for one operator.
#[derive(Debug, Clone)]
pub(super) struct OpPlan {
    pub op: usize,
    /// `None` for sinks.
    pub out: Option<RecordType>,
    /// In scenario edge order (a union's first input is the first edge declared into it).
    pub inputs: Vec<Input>,
    /// Flink would chain this operator to its input but the engine does not (the upstream fans
    /// out, or the max parallelisms differ): `startNewChain()` / a sink's `disableChaining()`.
    pub new_chain: bool,
    /// Set when the scenario sets any max parallelism: then every operator gets its resolved
    /// value, so Flink compares the same numbers the engine does.
    pub max_parallelism: Option<u32>,
    /// A union of a BYTES and a KEYED input: it emits BYTES.
    pub union_to_bytes: bool,
    /// The job vertex running this operator (a datagen's keys depend on it).
    pub vertex: u32,
    /// The explicit `cost-per-record` in nanoseconds; 0 when unset (the kind's default cost stands
    /// for the JVM's real work).
    pub cost_nanos: u64,
    /// Slow faults: (from, ms after submission; cost in ns), in time order.
    pub slow: Vec<(u64, u64)>,
    /// Kill faults: (subtask, ms after submission).
    pub kills: Vec<(u32, u64)>,
}

impl OpPlan {
    /// Whether the operator does anything per record besides its function.
    pub(super) fn has_work(&self) -> bool {
        self.cost_nanos > 0 || !self.slow.is_empty() || !self.kills.is_empty()
    }
}

/// The operators in a topological order.
#[derive(Debug, Clone)]
pub(super) struct Plan {
    pub ops: Vec<OpPlan>,
}

fn millis(us: Micros) -> u64 {
    us / MICROS_PER_MS
}

impl Plan {
    /// `faults` must be resolved and exportable (see `refusals`).
    pub(super) fn new(scenario: &Scenario, graph: &JobGraph, faults: &[ResolvedFault]) -> Plan {
        let ops = &scenario.operators;
        let n = ops.len();
        let index = |name: &str| scenario.operator_index(name).unwrap_or(0);
        let mut inputs: Vec<Vec<Input>> = vec![Vec::new(); n];
        let mut out_degree = vec![0usize; n];
        for e in &scenario.edges {
            let (u, v) = (index(&e.from), index(&e.to));
            out_degree[u] += 1;
            inputs[v].push(Input {
                from: u,
                partitioner: e.partitioner,
                latency: e.latency.clone(),
            });
        }
        let vertex_of = |op: usize| graph.vertex_of_operator(op);
        let resolved_max = |op: usize| vertex_of(op).map_or(0, |v| v.max_parallelism);
        let explicit_max = ops.iter().any(|o| o.max_parallelism.is_some());

        // Vertices are topologically ordered and chains run head first, so this is a
        // topological order of the operators.
        let order: Vec<usize> = graph
            .vertices
            .iter()
            .flat_map(|v| v.operators.iter().copied())
            .collect();
        let mut out: Vec<Option<RecordType>> = vec![None; n];
        let mut plans = Vec::with_capacity(n);
        for op in order {
            let spec = &ops[op];
            let input_types: Vec<Option<RecordType>> =
                inputs[op].iter().map(|i| out[i.from]).collect();
            let first = input_types.first().copied().flatten();
            let mut union_to_bytes = false;
            out[op] = match &spec.kind {
                OperatorKind::Datagen { .. } => Some(RecordType::Bytes),
                OperatorKind::KeyedCount | OperatorKind::KeyedWindowSum { .. } => {
                    Some(RecordType::Keyed)
                }
                OperatorKind::Union => {
                    union_to_bytes = input_types.windows(2).any(|w| w[0] != w[1]);
                    if union_to_bytes {
                        Some(RecordType::Bytes)
                    } else {
                        first
                    }
                }
                OperatorKind::Map
                | OperatorKind::Filter { .. }
                | OperatorKind::KeyedList
                | OperatorKind::CheckpointAwareMap => first,
                OperatorKind::DiscardSink
                | OperatorKind::CollectSink
                | OperatorKind::TwoPhaseCommitSink => None,
            };
            // Flink chains a forward edge of equal parallelism into a one-input operator whatever
            // else the upstream feeds and whatever the max parallelisms; the engine does not.
            let new_chain = match inputs[op].as_slice() {
                [input] => {
                    let u = input.from;
                    graph.config.operator_chaining
                        && input.partitioner == Partitioner::Forward
                        && scenario.parallelism(u) == scenario.parallelism(op)
                        && !spec.kind.is_source()
                        && (out_degree[u] > 1 || resolved_max(u) != resolved_max(op))
                }
                _ => false,
            };
            let mut slow = Vec::new();
            let mut kills = Vec::new();
            for f in faults {
                match *f {
                    ResolvedFault::Slow {
                        operator,
                        from,
                        cost,
                    } if operator == op => slow.push((millis(from), cost * 1000)),
                    ResolvedFault::Kill {
                        operator,
                        subtask,
                        at,
                    } if operator == op => kills.push((subtask, millis(at))),
                    _ => {}
                }
            }
            slow.sort_by_key(|s| s.0);
            let cost_nanos = match &spec.cost_per_record {
                Some(_) => spec.cost_per_record_micros().unwrap_or(0) * 1000,
                None => 0,
            };
            plans.push(OpPlan {
                op,
                out: out[op],
                inputs: inputs[op].clone(),
                new_chain,
                max_parallelism: explicit_max.then(|| resolved_max(op)),
                union_to_bytes,
                vertex: vertex_of(op).map_or(0, |v| v.id),
                cost_nanos,
                slow,
                kills,
            });
        }
        Plan { ops: plans }
    }
}
