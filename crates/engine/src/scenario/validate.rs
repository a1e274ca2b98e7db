//! `Scenario::validate`: every check a user can trip, each error naming the operator or edge.
//! All problems are collected (not just the first) so a user fixes a scenario in one pass.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use super::config::FlinkConfig;
use super::job_graph::{
    build, default_max_parallelism, JobGraph, Resolved, UPPER_BOUND_MAX_PARALLELISM,
};
use super::model::{
    KeyDistribution, OperatorKind, OperatorSpec, Partitioner, Scenario, SCENARIO_VERSION,
};
use crate::types::{format_duration, parse_duration, Micros, MICROS_PER_MS, MICROS_PER_SEC};

// Documented maxima (docs/limits.md). Each refusal names the field and the limit.
/// A datagen's total rate, records per second.
pub const MAX_RATE: u64 = 100_000_000;
/// A record spans at most this many network buffers.
pub const MAX_RECORD_SEGMENTS: u64 = 1024;
/// Distinct keys of a datagen.
pub const MAX_KEYS: u32 = 10_000_000;
/// Per-record processing time of one operator.
pub const MAX_COST_PER_RECORD: Micros = 60 * MICROS_PER_SEC;
/// A tumbling window's length.
pub const MAX_WINDOW: Micros = 86_400 * MICROS_PER_SEC;
/// An edge's network latency.
pub const MAX_EDGE_LATENCY: Micros = 60 * MICROS_PER_SEC;
/// TaskManagers, and slots per TaskManager (Flink's parallelism bound: more cannot be used).
pub const MAX_TASKMANAGERS: u32 = 32768;

/// One problem with a scenario: what it concerns (`operator 'x'`, `edge 'a' -> 'b'`, `config`,
/// `cluster`, `topology`) and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidationError {
    pub subject: String,
    pub message: String,
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.subject, self.message)
    }
}

struct Errors(Vec<ValidationError>);

impl Errors {
    fn push(&mut self, subject: impl Into<String>, message: impl Into<String>) {
        self.0.push(ValidationError {
            subject: subject.into(),
            message: message.into(),
        });
    }
}

fn op_subject(op: &OperatorSpec) -> String {
    format!("operator '{}'", op.name)
}

fn edge_subject(scenario: &Scenario, i: usize) -> String {
    let e = &scenario.edges[i];
    format!("edge '{}' -> '{}'", e.from, e.to)
}

impl Scenario {
    /// [`Scenario::validate`] with the problems joined into one message, a line each.
    pub fn job_graph(&self) -> Result<JobGraph, String> {
        self.validate().map_err(|errors| {
            errors
                .iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join("\n")
        })
    }

    /// Checks the scenario and chains it into a [`JobGraph`], or returns every problem found.
    pub fn validate(&self) -> Result<JobGraph, Vec<ValidationError>> {
        let mut errs = Errors(Vec::new());
        if self.version != SCENARIO_VERSION {
            errs.push(
                "scenario",
                format!(
                    "unsupported version {} (this build reads version {SCENARIO_VERSION})",
                    self.version
                ),
            );
        }
        let config = match FlinkConfig::from_map(&self.config) {
            Ok(c) => c,
            Err(messages) => {
                for m in messages {
                    errs.push("config", m);
                }
                FlinkConfig::default()
            }
        };
        if self.operators.is_empty() {
            errs.push(
                "topology",
                "the topology is empty: add at least a source (datagen) and a sink",
            );
            return Err(errs.0);
        }
        let names = self.check_names(&mut errs);
        let parallelism: Vec<u32> = self
            .operators
            .iter()
            .map(|op| op.parallelism_or(config.default_parallelism))
            .collect();
        let mut max_parallelism = Vec::with_capacity(self.operators.len());
        for (op, &p) in self.operators.iter().zip(&parallelism) {
            check_knobs(op, config.segment_size, &mut errs);
            max_parallelism.push(check_parallelism(op, p, config.max_parallelism, &mut errs));
        }
        let (edges, latencies) = self.resolve_edges(&names, &mut errs);
        self.check_degrees(&edges, &mut errs);
        self.check_edge_rules(&edges, &parallelism, &mut errs);
        let topo = self.topological_order(&edges, &mut errs);
        let slots = self.check_cluster(&parallelism, &mut errs);
        if !errs.0.is_empty() {
            return Err(errs.0);
        }
        let resolved = Resolved {
            edges: edges.into_iter().flatten().collect(),
            latencies,
            parallelism,
            max_parallelism,
            topo,
            config,
            slots_per_taskmanager: slots,
        };
        Ok(build(self, resolved))
    }

    /// Name -> index; reports empty and duplicate names.
    fn check_names(&self, errs: &mut Errors) -> BTreeMap<&str, usize> {
        let mut names = BTreeMap::new();
        for (i, op) in self.operators.iter().enumerate() {
            if op.name.trim().is_empty() {
                errs.push(format!("operator #{}", i + 1), "the name is empty");
            } else if names.insert(op.name.as_str(), i).is_some() {
                errs.push(
                    op_subject(op),
                    "duplicate operator name: names must be unique (edges refer to operators by name)",
                );
            }
        }
        names
    }

    /// Operator indices per edge (`None` for a dangling edge) and parsed latencies.
    #[allow(clippy::type_complexity)]
    fn resolve_edges(
        &self,
        names: &BTreeMap<&str, usize>,
        errs: &mut Errors,
    ) -> (Vec<Option<(usize, usize)>>, Vec<Option<u64>>) {
        let known = || names.keys().copied().collect::<Vec<_>>().join(", ");
        let mut seen = BTreeSet::new();
        let mut edges = Vec::new();
        let mut latencies = Vec::new();
        for (i, e) in self.edges.iter().enumerate() {
            let mut lookup = |name: &str, end: &str| match names.get(name) {
                Some(&idx) => Some(idx),
                None => {
                    errs.push(
                        edge_subject(self, i),
                        format!("unknown {end} operator '{name}' (operators: {})", known()),
                    );
                    None
                }
            };
            let from = lookup(&e.from, "source");
            let to = lookup(&e.to, "target");
            let latency = match &e.latency {
                Some(text) => match parse_duration(text) {
                    Ok(us) if us > MAX_EDGE_LATENCY => {
                        errs.push(
                            edge_subject(self, i),
                            format!(
                                "latency {} is above the limit of {}",
                                format_duration(us),
                                format_duration(MAX_EDGE_LATENCY)
                            ),
                        );
                        None
                    }
                    Ok(us) => Some(us),
                    Err(m) => {
                        errs.push(edge_subject(self, i), format!("bad latency: {m}"));
                        None
                    }
                },
                None => None,
            };
            let pair = from.zip(to);
            if let Some(p) = pair {
                if !seen.insert(p) {
                    errs.push(
                        edge_subject(self, i),
                        "duplicate edge: the two operators are already connected",
                    );
                }
            }
            edges.push(pair);
            latencies.push(latency);
        }
        (edges, latencies)
    }

    /// Sources take no input, sinks give no output, unions take two inputs, the rest one.
    fn check_degrees(&self, edges: &[Option<(usize, usize)>], errs: &mut Errors) {
        let n = self.operators.len();
        let (mut ins, mut outs) = (vec![0usize; n], vec![0usize; n]);
        for &(u, v) in edges.iter().flatten() {
            outs[u] += 1;
            ins[v] += 1;
        }
        for (i, op) in self.operators.iter().enumerate() {
            let kind = op.kind.type_name();
            let expected = op.kind.expected_inputs();
            if op.kind.is_source() && ins[i] > 0 {
                errs.push(
                    op_subject(op),
                    format!(
                        "a source ({kind}) cannot have inputs, but {} edge(s) lead into it",
                        ins[i]
                    ),
                );
            } else if !op.kind.is_source() && ins[i] == 0 {
                errs.push(
                    op_subject(op),
                    format!("has no input: a {kind} needs an edge from an upstream operator"),
                );
            } else if matches!(op.kind, OperatorKind::Union) && ins[i] != 2 {
                errs.push(
                    op_subject(op),
                    format!("a union takes exactly two inputs, but has {}", ins[i]),
                );
            } else if expected == 1 && ins[i] > 1 {
                errs.push(
                    op_subject(op),
                    format!(
                        "a {kind} takes one input but has {}; merge the streams with a union first",
                        ins[i]
                    ),
                );
            }
            if op.kind.is_sink() && outs[i] > 0 {
                errs.push(
                    op_subject(op),
                    format!(
                        "a sink ({kind}) cannot have outputs, but {} edge(s) leave it",
                        outs[i]
                    ),
                );
            } else if !op.kind.is_sink() && outs[i] == 0 {
                errs.push(
                    op_subject(op),
                    "its output goes nowhere: connect it to a downstream operator or a sink",
                );
            }
        }
    }

    /// Forward edges keep parallelism; keyed operators are fed by hash edges.
    fn check_edge_rules(
        &self,
        edges: &[Option<(usize, usize)>],
        parallelism: &[u32],
        errs: &mut Errors,
    ) {
        for (i, pair) in edges.iter().enumerate() {
            let Some((u, v)) = *pair else { continue };
            let (up, down) = (&self.operators[u], &self.operators[v]);
            let partitioner = self.edges[i].partitioner;
            if partitioner == Partitioner::Forward && parallelism[u] != parallelism[v] {
                // Flink's own message (StreamGraph.addEdgeInternal), with our partitioner names.
                errs.push(
                    edge_subject(self, i),
                    format!(
                        "Forward partitioning does not allow change of parallelism. Upstream operation: {} parallelism: {}, downstream operation: {} parallelism: {} You must use another partitioning strategy, such as hash, rebalance, rescale or broadcast.",
                        up.name, parallelism[u], down.name, parallelism[v]
                    ),
                );
            }
            if down.kind.is_keyed() && partitioner != Partitioner::Hash {
                errs.push(
                    edge_subject(self, i),
                    format!(
                        "'{}' is a keyed operator ({}): its input must use the hash partitioner (keyBy), not {}",
                        down.name,
                        down.kind.type_name(),
                        partitioner.to_string().to_ascii_lowercase()
                    ),
                );
            }
        }
    }

    /// Kahn's algorithm, taking the lowest ready index first so the order is deterministic. On a
    /// cycle, reports one cycle by name.
    fn topological_order(&self, edges: &[Option<(usize, usize)>], errs: &mut Errors) -> Vec<usize> {
        let n = self.operators.len();
        let mut in_degree = vec![0usize; n];
        let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut pred: Vec<Vec<usize>> = vec![Vec::new(); n];
        for &(u, v) in edges.iter().flatten() {
            in_degree[v] += 1;
            succ[u].push(v);
            pred[v].push(u);
        }
        let mut ready: BTreeSet<usize> = (0..n).filter(|&i| in_degree[i] == 0).collect();
        let mut order = Vec::with_capacity(n);
        while let Some(u) = ready.pop_first() {
            order.push(u);
            for &v in &succ[u] {
                in_degree[v] -= 1;
                if in_degree[v] == 0 {
                    ready.insert(v);
                }
            }
        }
        if order.len() < n {
            errs.push(
                "topology",
                format!(
                    "the job graph has a cycle: {}",
                    self.find_cycle(&in_degree, &pred)
                ),
            );
        }
        order
    }

    /// Every operator Kahn could not order still has an unordered predecessor, so walking
    /// predecessors from one must revisit an operator: that loop is a cycle.
    fn find_cycle(&self, in_degree: &[usize], pred: &[Vec<usize>]) -> String {
        let left = |i: usize| in_degree[i] > 0;
        let Some(start) = (0..in_degree.len()).find(|&i| left(i)) else {
            return String::new();
        };
        let mut path = vec![start];
        let mut cur = start;
        loop {
            let Some(&p) = pred[cur].iter().find(|&&p| left(p)) else {
                return String::new();
            };
            if let Some(pos) = path.iter().position(|&x| x == p) {
                let mut cycle: Vec<usize> = path[pos..].to_vec();
                cycle.reverse();
                // Start at the operator declared first, so the message does not depend on where
                // the walk happened to enter the cycle.
                let first = (0..cycle.len()).min_by_key(|&i| cycle[i]).unwrap_or(0);
                cycle.rotate_left(first);
                cycle.push(cycle[0]);
                return cycle
                    .iter()
                    .map(|&i| self.operators[i].name.as_str())
                    .collect::<Vec<_>>()
                    .join(" -> ");
            }
            path.push(p);
            cur = p;
        }
    }

    /// Slots needed under Flink's default slot sharing: the largest parallelism. Returns the slots
    /// per TaskManager to use.
    fn check_cluster(&self, parallelism: &[u32], errs: &mut Errors) -> u32 {
        let tms = self.cluster.taskmanagers;
        let needed = parallelism.iter().copied().max().unwrap_or(1).max(1);
        if tms == 0 {
            errs.push("cluster", "taskmanagers must be at least 1");
            return needed;
        }
        if tms > MAX_TASKMANAGERS {
            errs.push(
                "cluster",
                format!("taskmanagers {tms} is above the limit of {MAX_TASKMANAGERS} (Flink's largest parallelism: more could not be used)"),
            );
            return needed;
        }
        if self.cluster.slots_per_taskmanager.unwrap_or(0) > MAX_TASKMANAGERS {
            errs.push(
                "cluster",
                format!("slots-per-taskmanager is above the limit of {MAX_TASKMANAGERS} (Flink's largest parallelism: more could not be used)"),
            );
            return needed;
        }
        match self.cluster.slots_per_taskmanager {
            None => needed.div_ceil(tms),
            Some(0) => {
                errs.push("cluster", "slots-per-taskmanager must be at least 1");
                0
            }
            Some(slots) => {
                if u64::from(slots) * u64::from(tms) < u64::from(needed) {
                    errs.push(
                        "cluster",
                        format!("the job needs {needed} slots (its largest parallelism, with Flink's default slot sharing) but {tms} taskmanager(s) x {slots} slot(s) offer {}", slots * tms),
                    );
                }
                slots
            }
        }
    }
}

/// Kind-specific knob ranges and the cost duration.
fn check_knobs(op: &OperatorSpec, segment_size: u64, errs: &mut Errors) {
    match op.cost_per_record_micros() {
        Err(m) => errs.push(op_subject(op), format!("bad cost-per-record: {m}")),
        Ok(c) if c > MAX_COST_PER_RECORD => errs.push(
            op_subject(op),
            format!(
                "cost-per-record {} is above the limit of {} (one record would hold the task's mailbox, and every checkpoint, for longer)",
                format_duration(c),
                format_duration(MAX_COST_PER_RECORD)
            ),
        ),
        Ok(_) => {}
    }
    match op.state_ttl_millis() {
        Ok(None) => {}
        Ok(Some(_)) if !op.kind.takes_state_ttl() => errs.push(
            op_subject(op),
            format!(
                "state-ttl applies to a keyed-count's or keyed-list's state; a {} has none it could expire",
                op.kind.type_name()
            ),
        ),
        Ok(Some(0)) => errs.push(
            op_subject(op),
            "state-ttl must be at least 1ms (StateTtlConfig counts milliseconds)",
        ),
        Ok(Some(_)) => {}
        Err(m) => errs.push(op_subject(op), format!("bad state-ttl: {m}")),
    }
    match &op.kind {
        OperatorKind::Datagen {
            rate,
            record_size,
            keys,
            key_distribution,
            bounded,
        } => {
            if *rate == 0 {
                errs.push(op_subject(op), "rate must be at least 1 record/s");
            } else if *rate > MAX_RATE {
                errs.push(
                    op_subject(op),
                    format!("rate {rate} records/s is above the limit of {MAX_RATE} (the simulator models every record; 100 times a large production source)"),
                );
            }
            let max_record = MAX_RECORD_SEGMENTS * segment_size;
            if *record_size == 0 {
                errs.push(op_subject(op), "record-size must be at least 1 byte");
            } else if *record_size > max_record {
                errs.push(
                    op_subject(op),
                    format!("record-size {record_size} bytes is above the limit of {max_record} bytes: {MAX_RECORD_SEGMENTS} network buffers of taskmanager.memory.segment-size ({segment_size} bytes); a larger record spans more buffers than the simulator follows one by one"),
                );
            }
            if *keys == 0 {
                errs.push(op_subject(op), "keys must be at least 1");
            } else if *keys > MAX_KEYS {
                errs.push(
                    op_subject(op),
                    format!("keys {keys} is above the limit of {MAX_KEYS} (every key's state lives in the simulated heap)"),
                );
            }
            if let KeyDistribution::Skewed {
                hot_keys,
                hot_percent,
            } = key_distribution
            {
                if *hot_keys == 0 || hot_keys > keys {
                    errs.push(
                        op_subject(op),
                        format!("hot-keys must be between 1 and keys ({keys}), got {hot_keys}"),
                    );
                }
                if *hot_percent > 100 {
                    errs.push(
                        op_subject(op),
                        format!("hot-percent must be at most 100, got {hot_percent}"),
                    );
                }
            }
            if *bounded == Some(0) {
                errs.push(
                    op_subject(op),
                    "bounded must be at least 1 record (leave it out for an unbounded source)",
                );
            }
        }
        OperatorKind::Filter { keep_percent } if *keep_percent > 100 => {
            errs.push(
                op_subject(op),
                format!("keep-percent must be at most 100, got {keep_percent}"),
            );
        }
        OperatorKind::KeyedWindowSum { window } => match parse_duration(window) {
            Ok(w) if w < MICROS_PER_MS => errs.push(
                op_subject(op),
                "window must be at least 1 ms (Flink's window sizes are in milliseconds)",
            ),
            Ok(w) if w > MAX_WINDOW => errs.push(
                op_subject(op),
                format!(
                    "window {} is above the limit of {}",
                    format_duration(w),
                    format_duration(MAX_WINDOW)
                ),
            ),
            Ok(_) => {}
            Err(m) => errs.push(op_subject(op), format!("bad window: {m}")),
        },
        _ => {}
    }
}

/// Checks parallelism against max parallelism and returns the resolved max parallelism: the
/// operator's own, else `pipeline.max-parallelism`, else Flink's default formula.
fn check_parallelism(op: &OperatorSpec, p: u32, configured: Option<u32>, errs: &mut Errors) -> u32 {
    if p == 0 {
        errs.push(op_subject(op), "parallelism must be at least 1");
    }
    let max = op
        .max_parallelism
        .or(configured)
        .unwrap_or_else(|| default_max_parallelism(p));
    match op.max_parallelism {
        Some(0) => errs.push(op_subject(op), "max-parallelism must be at least 1"),
        Some(m) if m > UPPER_BOUND_MAX_PARALLELISM => errs.push(
            op_subject(op),
            format!("max-parallelism {m} is above Flink's upper bound {UPPER_BOUND_MAX_PARALLELISM}"),
        ),
        _ if p > max && max > 0 => errs.push(
            op_subject(op),
            format!("parallelism {p} is greater than its max parallelism {max} (the number of key groups)"),
        ),
        _ => {}
    }
    max
}
