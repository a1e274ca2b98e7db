//! The job graph: operators chained into job vertices, as Flink's `StreamingJobGraphGenerator` does.
//!
//! Chaining kept from `StreamingJobGraphGenerator.isChainable`, in spirit: an edge `u -> v` is chained
//! when chaining is enabled (`pipeline.operator-chaining.enabled`), its partitioner is forward, `u`
//! and `v` have the same parallelism, `v` has exactly one input and is not a source. Barrier Lab adds
//! two restrictions so every chain is a straight line with one key-group count: `u` has exactly one
//! output (Flink can fan a chain out; we never do), and `u` and `v` resolve to the same max
//! parallelism. Slot sharing groups, chaining strategies and chained sources are not modelled.

use std::fmt;

use super::config::FlinkConfig;
use super::model::{Partitioner, Scenario};
use crate::types::{format_duration, Micros};

/// Flink's `KeyGroupRangeAssignment.UPPER_BOUND_MAX_PARALLELISM`.
pub const UPPER_BOUND_MAX_PARALLELISM: u32 = 32768;
/// Flink's `KeyGroupRangeAssignment.DEFAULT_LOWER_BOUND_MAX_PARALLELISM`.
pub const DEFAULT_LOWER_BOUND_MAX_PARALLELISM: u32 = 128;

/// `KeyGroupRangeAssignment.computeDefaultMaxParallelism`:
/// `min(max(roundUpToPowerOfTwo(p + p/2), 128), 32768)`.
pub fn default_max_parallelism(parallelism: u32) -> u32 {
    let p = u64::from(parallelism);
    let rounded = (p + p / 2).next_power_of_two();
    rounded.clamp(
        u64::from(DEFAULT_LOWER_BOUND_MAX_PARALLELISM),
        u64::from(UPPER_BOUND_MAX_PARALLELISM),
    ) as u32
}

/// A network connection between two job vertices (a Flink `JobEdge`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct JobEdge {
    pub source_vertex: u32,
    pub target_vertex: u32,
    pub partitioner: Partitioner,
    /// The edge's own latency if the scenario set one; `None` means the network default.
    pub latency: Option<Micros>,
    /// Index of the scenario edge this job edge comes from.
    pub scenario_edge: usize,
}

/// One task: a chain of operators running in one thread per subtask (a Flink `JobVertex`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct JobVertex {
    /// Position in the topological order; `JobGraph::vertices[id]`.
    pub id: u32,
    /// Flink's chained name, e.g. `count-per-key -> checkpoint-aware-map -> discard-sink: Writer`.
    pub name: String,
    /// Indices into `Scenario::operators`, head of the chain first.
    pub operators: Vec<usize>,
    pub parallelism: u32,
    /// Number of key groups; the head operator's resolved max parallelism.
    pub max_parallelism: u32,
    /// In scenario edge order, so a union's first input is the first edge declared into it.
    pub inputs: Vec<JobEdge>,
    pub outputs: Vec<JobEdge>,
}

/// The validated, chained job plus the resolved configuration and cluster.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct JobGraph {
    /// Topologically ordered: every edge goes from a lower id to a higher one.
    pub vertices: Vec<JobVertex>,
    pub config: FlinkConfig,
    pub taskmanagers: u32,
    pub slots_per_taskmanager: u32,
}

impl JobGraph {
    /// Every job edge once, by source vertex then output order.
    pub fn edges(&self) -> impl Iterator<Item = &JobEdge> {
        self.vertices.iter().flat_map(|v| v.outputs.iter())
    }

    /// The vertex that runs operator `op`.
    pub fn vertex_of_operator(&self, op: usize) -> Option<&JobVertex> {
        self.vertices.iter().find(|v| v.operators.contains(&op))
    }
}

impl fmt::Display for JobGraph {
    /// One line per vertex and per edge, for the CLI and for test failure output.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for v in &self.vertices {
            writeln!(
                f,
                "[{}] {} (parallelism {}, max parallelism {})",
                v.id, v.name, v.parallelism, v.max_parallelism
            )?;
            for e in &v.outputs {
                let latency = e
                    .latency
                    .map(|l| format!(", latency {}", format_duration(l)))
                    .unwrap_or_default();
                writeln!(f, "    -{}-> [{}]{latency}", e.partitioner, e.target_vertex)?;
            }
        }
        Ok(())
    }
}

/// What validation has already worked out, handed to [`build`] so nothing is parsed twice.
pub(crate) struct Resolved {
    /// `(from, to)` operator indices per scenario edge.
    pub edges: Vec<(usize, usize)>,
    pub latencies: Vec<Option<Micros>>,
    /// Per operator: its own parallelism, else `parallelism.default`.
    pub parallelism: Vec<u32>,
    pub max_parallelism: Vec<u32>,
    /// Operator indices in topological order (ties by declaration order).
    pub topo: Vec<usize>,
    pub config: FlinkConfig,
    pub slots_per_taskmanager: u32,
}

/// Chains a validated scenario into job vertices.
pub(crate) fn build(scenario: &Scenario, r: Resolved) -> JobGraph {
    let ops = &scenario.operators;
    let n = ops.len();
    let mut in_degree = vec![0usize; n];
    let mut out_degree = vec![0usize; n];
    for &(u, v) in &r.edges {
        out_degree[u] += 1;
        in_degree[v] += 1;
    }
    let chained: Vec<bool> = r
        .edges
        .iter()
        .enumerate()
        .map(|(i, &(u, v))| {
            r.config.operator_chaining
                && scenario.edges[i].partitioner == Partitioner::Forward
                && r.parallelism[u] == r.parallelism[v]
                && in_degree[v] == 1
                && out_degree[u] == 1
                && !ops[v].kind.is_source()
                && r.max_parallelism[u] == r.max_parallelism[v]
        })
        .collect();
    // The chained successor of each operator (at most one, by the out-degree rule).
    let mut next: Vec<Option<usize>> = vec![None; n];
    let mut is_head = vec![true; n];
    for (i, &(u, v)) in r.edges.iter().enumerate() {
        if chained[i] {
            next[u] = Some(v);
            is_head[v] = false;
        }
    }

    let mut vertex_of = vec![0u32; n];
    let mut vertices: Vec<JobVertex> = Vec::new();
    for &head in r.topo.iter().filter(|&&op| is_head[op]) {
        let id = vertices.len() as u32;
        let mut chain = vec![head];
        while let Some(succ) = next[*chain.last().unwrap_or(&head)] {
            chain.push(succ);
        }
        for &op in &chain {
            vertex_of[op] = id;
        }
        // `createChainedName`: "head -> next -> ...", one operator name after another.
        let name = chain
            .iter()
            .map(|&op| ops[op].display_name())
            .collect::<Vec<_>>()
            .join(" -> ");
        vertices.push(JobVertex {
            id,
            name,
            operators: chain,
            parallelism: r.parallelism[head],
            max_parallelism: r.max_parallelism[head],
            inputs: Vec::new(),
            outputs: Vec::new(),
        });
    }
    for (i, &(u, v)) in r.edges.iter().enumerate() {
        if chained[i] {
            continue;
        }
        let edge = JobEdge {
            source_vertex: vertex_of[u],
            target_vertex: vertex_of[v],
            partitioner: scenario.edges[i].partitioner,
            latency: r.latencies[i],
            scenario_edge: i,
        };
        vertices[edge.source_vertex as usize]
            .outputs
            .push(edge.clone());
        vertices[edge.target_vertex as usize].inputs.push(edge);
    }
    JobGraph {
        vertices,
        config: r.config,
        taskmanagers: scenario.cluster.taskmanagers,
        slots_per_taskmanager: r.slots_per_taskmanager,
    }
}
