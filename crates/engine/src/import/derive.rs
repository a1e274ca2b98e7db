//! "Simulate this job": a scenario derived from a bundle, so the simulator runs the real job's
//! shape with its measured rates, costs and checkpoint settings (docs/collect.md).
//!
//! Pure: bundle in, [`Derived`] out. Every figure the bundle does not hold (keys, the source's
//! rate when it has no metrics yet, the cluster) gets a documented default and a note; what the
//! simulator cannot express (a ship strategy it has no partitioner for, a chain it would cut
//! differently) is refused with a message. The result is checked with the engine's own
//! validation and its chaining compared with the real job's vertices.

use std::collections::{BTreeMap, BTreeSet};

use super::bundle::JobBundle;
use super::derive_config::checkpoint_config;
use super::rest::{
    CheckpointStatsStatus, JobVertexDetailsInfo, PlanNode, PlanNodeInput, DEBLOATED_BUFFER_SIZE,
};
use crate::scenario::{
    Cluster, EdgeSpec, KeyDistribution, OperatorKind, OperatorSpec, Partitioner, Scenario,
    SCENARIO_VERSION,
};
use crate::state::{
    assign_key_to_parallel_operator, assign_to_key_group, compute_default_max_parallelism,
    java_hash_i32, HeapKeyedStateBackend, KeyGroupRange, Namespace,
};
use crate::types::Micros;

/// Keys of a derived datagen: REST does not expose them. Flink's default max parallelism (the
/// lower bound, 128), so every key group of a default job can be reached.
pub const DEFAULT_KEYS: u32 = 128;
/// Records per second of a source without metrics (a bundle collected right after submission).
pub const DEFAULT_RATE: u64 = 1000;
/// Bytes per record when neither the metrics nor the vertex's I/O totals give one.
pub const DEFAULT_RECORD_SIZE: u64 = 1024;

/// A scenario derived from a bundle, and what was assumed to get it.
#[derive(Debug, Clone, PartialEq)]
pub struct Derived {
    pub scenario: Scenario,
    pub notes: Vec<String>,
}

/// Flink's ship strategy name as the simulator's partitioner. GLOBAL, SHUFFLE, CUSTOM,
/// FORWARD_BATCH…: refused, the simulator has no such partitioner and a nearest one would change
/// where records (and barriers) go.
pub fn partitioner(ship_strategy: &str) -> Option<Partitioner> {
    Some(match ship_strategy {
        "FORWARD" => Partitioner::Forward,
        "HASH" => Partitioner::Hash,
        "REBALANCE" => Partitioner::Rebalance,
        "RESCALE" => Partitioner::Rescale,
        "BROADCAST" => Partitioner::Broadcast,
        _ => return None,
    })
}

/// The median of the values (the lower middle one of an even count); `None` when empty.
fn median(mut v: Vec<f64>) -> Option<f64> {
    v.sort_by(f64::total_cmp);
    v.get(v.len().saturating_sub(1) / 2).copied()
}

/// Flink's `MeterView` window (`numRecordsInPerSecond` and the other `…PerSecond` meters):
/// 60 s, updated every 5 s (`View.UPDATE_INTERVAL_SECONDS`).
const METER_SPAN_MS: i64 = 60_000;
const METER_UPDATE_MS: i64 = 5_000;

/// What a vertex's meters must be multiplied by to give its rate. A `MeterView` divides the
/// count over its 60 s window by 60 s, and its history starts as zeros: during a task's first
/// minute it reports the count so far over 60 s (checked in MeterView's bytecode, 2.3.0). The
/// last update fell on average half an update interval before the collection.
pub fn meter_scale(bundle: &JobBundle, v: &JobVertexDetailsInfo) -> f64 {
    let up = match bundle.header.collected_at_ms {
        Some(at) if v.start_time > 0 => at as i64 - v.start_time,
        _ => v.duration,
    };
    let counted = up - METER_UPDATE_MS / 2;
    if up <= 0 || counted >= METER_SPAN_MS {
        return 1.0;
    }
    METER_SPAN_MS as f64 / counted.max(METER_UPDATE_MS) as f64
}

/// A rate metric (a meter, see [`meter_scale`]) summed over a vertex's subtasks; `None` when no
/// subtask has it.
fn summed(bundle: &JobBundle, v: &JobVertexDetailsInfo, metric: &str) -> Option<f64> {
    let values: Vec<f64> = (0..v.parallelism)
        .filter_map(|i| bundle.subtask_metric(&v.id, i, metric))
        .collect();
    (!values.is_empty()).then(|| values.iter().sum::<f64>() * meter_scale(bundle, v))
}

/// A note for each vertex whose meters were read in its first minute.
fn meter_notes(bundle: &JobBundle, notes: &mut Vec<String>) {
    for v in &bundle.job.vertices {
        let scale = meter_scale(bundle, v);
        if scale > 1.0 {
            notes.push(format!("'{}' had run {:.1} s when collected: Flink's …PerSecond meters average over 60 s from zeros, so its record rates are read ×{scale:.2}", v.name, v.duration as f64 / 1000.0));
        }
    }
}

/// The vertices in the plan's order of dependencies (inputs first), ties in `/jobs/:id` order.
fn topological<'a>(
    bundle: &'a JobBundle,
    nodes: &BTreeMap<&str, &'a PlanNode>,
) -> Result<Vec<&'a JobVertexDetailsInfo>, String> {
    let mut done: BTreeSet<&str> = BTreeSet::new();
    let mut order = Vec::new();
    while order.len() < bundle.job.vertices.len() {
        let next = bundle.job.vertices.iter().find(|v| {
            !done.contains(v.id.as_str())
                && nodes[v.id.as_str()]
                    .inputs
                    .iter()
                    .all(|i| done.contains(i.id.as_str()))
        });
        let Some(v) = next else {
            return Err("the job's plan has a cycle or an input from a vertex the job does not list: not a streaming job the simulator can run".into());
        };
        done.insert(&v.id);
        order.push(v);
    }
    Ok(order)
}

/// Keeps operator names unique: a repeated name gets `-2`, `-3`, … and a note.
fn unique(name: &str, taken: &mut BTreeSet<String>, notes: &mut Vec<String>) -> String {
    let mut candidate = name.to_string();
    let mut n = 1;
    while taken.contains(&candidate) {
        n += 1;
        candidate = format!("{name}-{n}");
    }
    if n > 1 {
        notes.push(format!("operator name '{name}' is used more than once: the scenario calls this one '{candidate}' (its vertex name reads so)"));
    }
    taken.insert(candidate.clone());
    candidate
}

/// Derives a scenario from a bundle; an error says what the simulator cannot run and why.
pub fn derive(bundle: &JobBundle) -> Result<Derived, String> {
    let mut notes = Vec::new();
    let plan = bundle.job.plan.as_ref().ok_or(
        "the bundle's /jobs/:id has no plan: the edges and their ship strategies are unknown",
    )?;
    let nodes: BTreeMap<&str, &PlanNode> = plan.nodes.iter().map(|n| (n.id.as_str(), n)).collect();
    if let Some(v) = bundle
        .job
        .vertices
        .iter()
        .find(|v| !nodes.contains_key(v.id.as_str()))
    {
        return Err(format!(
            "vertex '{}' is not in the job's plan: the bundle's /jobs/:id is inconsistent",
            v.name
        ));
    }
    let order = topological(bundle, &nodes)?;
    meter_notes(bundle, &mut notes);
    let has_output: BTreeSet<&str> = plan
        .nodes
        .iter()
        .flat_map(|n| n.inputs.iter().map(|i| i.id.as_str()))
        .collect();
    // Keyed state shows as a vertex's checkpointed size in the newest details that have it.
    let keyed_state = |vid: &str| {
        bundle
            .details
            .values()
            .rev()
            .find_map(|d| d.tasks.get(vid))
            .map(|t| t.checkpointed_size.max(t.state_size) > 0)
    };

    let mut operators: Vec<OperatorSpec> = Vec::new();
    let mut edges: Vec<EdgeSpec> = Vec::new();
    let mut taken = BTreeSet::new();
    // Per vertex: (head operator, last operator) names.
    let mut ends: BTreeMap<&str, (String, String)> = BTreeMap::new();
    let mut keyed_note = false;
    let mut renamed = false;

    for v in &order {
        let node = nodes[v.id.as_str()];
        let is_source = node.inputs.is_empty();
        let parts: Vec<&str> = v.name.split(" -> ").collect();
        let mut chain: Vec<OperatorSpec> = Vec::new();
        // Two inputs: a union or a two-input operator (`connect`), modelled as the simulator's
        // union, which passes every record on. Keyed state behind HASH inputs would need a keyed
        // two-input operator, which the simulator does not have.
        let two_inputs = node.inputs.len() == 2;
        if node.inputs.len() > 2 {
            return Err(format!(
                "vertex '{}' has {} inputs: the simulator's union takes two, so deriving it is not supported yet",
                v.name,
                node.inputs.len()
            ));
        }
        if two_inputs
            && node.inputs.iter().any(|e| e.ship_strategy == "HASH")
            && keyed_state(&v.id) == Some(true)
        {
            return Err(format!(
                "vertex '{}' has two HASH inputs and keyed state (a keyed two-input operator): the simulator has none, so deriving it is not supported yet",
                v.name
            ));
        }
        for (i, part) in parts.iter().enumerate() {
            let last = i + 1 == parts.len();
            if i == 0 && is_source {
                let name = part.strip_prefix("Source: ").unwrap_or(part);
                chain.push(OperatorSpec::new(
                    name,
                    source_kind(bundle, v, &order, &nodes, &mut notes),
                ));
                continue;
            }
            // A Sink V2 with a committer chains as `<name>: Writer -> <name>: Committer`.
            if let Some(name) = part.strip_suffix(": Writer") {
                let committer = format!("{name}: Committer");
                if parts.get(i + 1) == Some(&committer.as_str()) && i + 2 == parts.len() {
                    notes.push(format!("'{name}' writes and commits (Writer -> Committer): modelled as a two-phase-commit sink that pre-commits on the checkpoint and commits on notifyCheckpointComplete"));
                    chain.push(OperatorSpec::new(name, OperatorKind::TwoPhaseCommitSink));
                    break;
                }
                if last && !has_output.contains(v.id.as_str()) {
                    chain.push(OperatorSpec::new(name, OperatorKind::DiscardSink));
                    continue;
                }
            }
            if last && !has_output.contains(v.id.as_str()) {
                if let Some(name) = part.strip_prefix("Sink: ") {
                    notes.push(format!("'{part}' (a legacy SinkFunction) is modelled as a discard sink, whose name reads '{name}: Writer'"));
                    chain.push(OperatorSpec::new(name, OperatorKind::DiscardSink));
                    continue;
                }
            }
            if i == 0 && two_inputs {
                notes.push(format!("'{part}' reads two inputs (a union or a two-input operator): modelled as a union, which passes every record of both on"));
                chain.push(OperatorSpec::new(part, OperatorKind::Union));
                continue;
            }
            let hashed = i == 0 && node.inputs.iter().any(|e| e.ship_strategy == "HASH");
            let kind = if hashed && keyed_state(&v.id) == Some(true) {
                keyed_note = true;
                OperatorKind::KeyedCount
            } else {
                if hashed {
                    notes.push(format!("'{part}' is reached by a HASH edge but its vertex shows no checkpointed state (or the bundle has no checkpoint details): modelled as a stateless map"));
                }
                OperatorKind::Map
            };
            chain.push(OperatorSpec::new(part, kind));
        }
        for op in &mut chain {
            let name = unique(&op.name, &mut taken, &mut notes);
            renamed |= name != op.name;
            op.name = name;
            op.parallelism = Some(v.parallelism);
            op.max_parallelism = u32::try_from(v.max_parallelism).ok().filter(|&m| m > 0);
        }
        if v.max_parallelism <= 0 {
            notes.push(format!("vertex '{}' has no maxParallelism in /jobs/:id: Flink's default for its parallelism", v.name));
        }
        if !is_source {
            cost(
                bundle,
                v,
                &mut chain,
                "numRecordsInPerSecond",
                0,
                &mut notes,
            );
        } else if chain.len() > 1 {
            // A source chain's busy time is the source's default cost and its chained operators'
            // work: per record out, as the source reads none in.
            let source = chain[0].kind.default_cost_per_record();
            cost(
                bundle,
                v,
                &mut chain[1..],
                "numRecordsOutPerSecond",
                source,
                &mut notes,
            );
        }
        for pair in chain.windows(2) {
            edges.push(EdgeSpec::new(
                &pair[0].name,
                &pair[1].name,
                Partitioner::Forward,
            ));
        }
        let head = chain[0].name.clone();
        let tail = chain[chain.len() - 1].name.clone();
        for input in &node.inputs {
            let p = partitioner(&input.ship_strategy).ok_or_else(|| format!(
                "the edge into '{}' ships {}: the simulator has FORWARD, HASH, REBALANCE, RESCALE and BROADCAST only",
                v.name, input.ship_strategy
            ))?;
            edges.push(EdgeSpec::new(&ends[input.id.as_str()].1, &head, p));
        }
        ends.insert(&v.id, (head, tail));
        operators.extend(chain);
    }
    if keyed_note {
        notes.push("keyed logic is modelled as a ValueState<Long> counter per key (keyed-count): the real job's state holds what its functions keep".into());
    }
    notes.push("the TaskManagers are not in the bundle: the scenario runs on one TaskManager, so every channel is local".into());
    let mut config = checkpoint_config(bundle, &mut notes)?;
    if let Some(size) = debloated_size(bundle) {
        notes.push(format!("the subtasks report {DEBLOATED_BUFFER_SIZE} (down to {size} bytes): buffer debloating is on, with Flink's defaults for its target, period and samples (a TaskManager setting REST does not show)"));
        config.insert(
            "taskmanager.network.memory.buffer-debloat.enabled".into(),
            "true".into(),
        );
    }
    let scenario = Scenario {
        version: SCENARIO_VERSION,
        name: bundle.job.name.clone(),
        description: format!(
            "Derived from job {} ({}) collected at {} from {}",
            bundle.job.name, bundle.job.jid, bundle.header.collected_at, bundle.header.rest_url
        ),
        seed: 1,
        cluster: Cluster::default(),
        operators,
        edges,
        config,
        faults: Vec::new(),
    };
    check_chaining(bundle, &scenario, renamed)?;
    Ok(Derived { scenario, notes })
}

/// Validates the scenario and checks that it chains into the real job's vertices: the same
/// names and parallelism (only the parallelism when a repeated operator name was changed).
fn check_chaining(bundle: &JobBundle, scenario: &Scenario, renamed: bool) -> Result<(), String> {
    let graph = scenario
        .job_graph()
        .map_err(|e| format!("the derived scenario is not valid: {e}"))?;
    // Renamed operators cannot match by name: then only the parallelisms are compared.
    let key = |name: &str, parallelism: u32| {
        let name = if renamed {
            String::new()
        } else {
            name.to_string()
        };
        (name, parallelism)
    };
    let mut derived: Vec<(String, u32)> = graph
        .vertices
        .iter()
        .map(|v| key(&v.name, v.parallelism))
        .collect();
    let mut real: Vec<(String, u32)> = bundle
        .job
        .vertices
        .iter()
        .map(|v| key(&v.name, v.parallelism))
        .collect();
    derived.sort();
    real.sort();
    if derived != real {
        let show = |s: &[(String, u32)]| {
            s.iter()
                .map(|(n, p)| format!("'{n}' ({p})"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        return Err(format!(
            "the simulator would chain this job differently: the job has {}, the derived scenario {} (Flink did not chain a FORWARD edge the simulator chains, or a sink it names otherwise)",
            show(&real),
            show(&derived)
        ));
    }
    Ok(())
}

/// A source's median back-pressured time from which its measured rate is only a floor
/// (Flink's Web UI calls 10 % "low", and a source above it is held by downstream).
pub const BACK_PRESSURED_MS: f64 = 100.0;
/// The most a back-pressured source is offered over its measured rate. A source blocked all the
/// time has no measurable rate of its own; any offer well above downstream's capacity fills the
/// same buffers, and 4x keeps the simulation's work bounded.
pub const MAX_OFFER: u64 = 4;

/// What a back-pressured source would produce: its measured records per second over the share
/// of time it was not blocked (Flink's backPressuredTimeMsPerSecond), at most [`MAX_OFFER`]x.
pub fn offered_rate(measured: f64, back_pressured_ms: f64) -> u64 {
    let free = ((1000.0 - back_pressured_ms) / 1000.0).max(1.0 / MAX_OFFER as f64);
    (measured / free).round() as u64
}

/// How far (in per mille of the records) a subtask's share may be from the measured one.
pub const SPLIT_TOLERANCE_PERMILLE: u32 = 30;

/// Subtask shares (per mille) of `keys` uniform integer keys 0..keys, as Flink's
/// `KeyGroupRangeAssignment` routes them.
pub fn key_shares(keys: u32, max_parallelism: u32, parallelism: u32) -> Vec<u32> {
    let mut counts = vec![0u32; parallelism as usize];
    for k in 0..keys {
        let key = i32::try_from(k).unwrap_or(i32::MAX);
        let i = assign_key_to_parallel_operator(java_hash_i32(key), max_parallelism, parallelism);
        counts[i as usize] += 1;
    }
    counts.iter().map(|&c| c * 1000 / keys.max(1)).collect()
}

/// When the hash-partitioned vertex's subtasks read records unevenly (numRecordsInPerSecond)
/// and [`DEFAULT_KEYS`] would split them evenly, the fewest uniform keys that split them as
/// measured: the skew decides which subtask saturates, and a source blocked by one full
/// subpartition queues more ahead of its barrier than one whose buffers two slow subtasks share.
/// `None` when the default fits, the metrics are missing, or no key count below it fits.
fn split_keys(bundle: &JobBundle, d: &JobVertexDetailsInfo) -> Option<(u32, String)> {
    let rates: Vec<f64> = (0..d.parallelism)
        .map(|i| bundle.subtask_metric(&d.id, i, "numRecordsInPerSecond"))
        .collect::<Option<_>>()?;
    let total: f64 = rates.iter().sum();
    if d.parallelism < 2 || total <= 0.0 {
        return None;
    }
    let measured: Vec<f64> = rates.iter().map(|r| r / total * 1000.0).collect();
    let max_p = u32::try_from(d.max_parallelism)
        .ok()
        .filter(|&m| m > 0)
        .unwrap_or_else(|| compute_default_max_parallelism(d.parallelism));
    let fits = |keys: u32| {
        key_shares(keys, max_p, d.parallelism)
            .iter()
            .zip(&measured)
            .all(|(&s, &m)| (f64::from(s) - m).abs() <= f64::from(SPLIT_TOLERANCE_PERMILLE))
    };
    if fits(DEFAULT_KEYS) {
        return None;
    }
    let keys = (1..DEFAULT_KEYS).find(|&k| fits(k))?;
    let scale = meter_scale(bundle, d);
    let read = rates
        .iter()
        .map(|r| format!("{:.0}", r * scale))
        .collect::<Vec<_>>()
        .join(", ");
    Some((keys, format!("{read} records/s")))
}

/// The smallest `debloatedBufferSize` any subtask reports: present only when the job debloats.
fn debloated_size(bundle: &JobBundle) -> Option<u64> {
    bundle
        .job
        .vertices
        .iter()
        .flat_map(|v| (0..v.parallelism).map(move |i| (v, i)))
        .filter_map(|(v, i)| bundle.subtask_metric(&v.id, i, DEBLOATED_BUFFER_SIZE))
        .map(|b| b.round() as u64)
        .min()
}

/// The first vertex downstream of `source` (through any edges) that a HASH edge reaches: where
/// the source's keys end up.
fn keyed_vertex<'a>(
    source: &JobVertexDetailsInfo,
    order: &[&'a JobVertexDetailsInfo],
    nodes: &BTreeMap<&str, &PlanNode>,
) -> Option<&'a JobVertexDetailsInfo> {
    let mut reached: BTreeSet<&str> = BTreeSet::from([source.id.as_str()]);
    for d in order {
        let inputs = &nodes[d.id.as_str()].inputs;
        let from_reached = |i: &&PlanNodeInput| reached.contains(i.id.as_str());
        if inputs
            .iter()
            .filter(from_reached)
            .any(|i| i.ship_strategy == "HASH")
        {
            return Some(d);
        }
        if inputs.iter().any(|i| from_reached(&i)) {
            reached.insert(d.id.as_str());
        }
    }
    None
}

/// The most keys a state size is read as: beyond it the simulation's own memory grows past what
/// a browser tab holds comfortably.
pub const MAX_SIZED_KEYS: u32 = 1_000_000;

/// How many uniform keys make the keyed vertex's heap state as large as the newest completed
/// checkpoint in the bundle shows it (`state_size`), with the simulator's keyed state: a
/// `ValueState<Long>` counter per key. The engine's own snapshot layout gives each subtask's
/// empty size (headers, key-group offsets, the timer service) and the bytes of one entry.
/// `None` without such a checkpoint, for RocksDB (its sizes are SST files, not this layout), or
/// when the state is no larger than the empty layout.
fn size_keys(bundle: &JobBundle, d: &JobVertexDetailsInfo) -> Option<(u32, String)> {
    let heap = bundle
        .config
        .as_ref()
        .is_none_or(|c| c.state_backend == "HashMapStateBackend");
    let (id, size) = bundle
        .details
        .values()
        .rev()
        .filter(|c| c.status == CheckpointStatsStatus::COMPLETED)
        .find_map(|c| Some((c.id, c.tasks.get(&d.id)?.state_size)))
        .filter(|&(_, size)| size > 0 && heap)?;
    let max_p = u32::try_from(d.max_parallelism)
        .ok()
        .filter(|&m| m > 0)
        .unwrap_or_else(|| compute_default_max_parallelism(d.parallelism));
    let empty = |i: u32| {
        let range = KeyGroupRange::for_operator_index(max_p, d.parallelism, i);
        HeapKeyedStateBackend::for_counter(max_p, range, false).ok()
    };
    let mut base = 0u64;
    for i in 0..d.parallelism {
        base += empty(i)?.0.snapshot(1).state_size;
    }
    // One entry more in subtask 0: a key of its first key group.
    let (mut one, state) = empty(0)?;
    let range = one.key_group_range();
    let key =
        (0..100_000).find(|&k| range.contains(assign_to_key_group(java_hash_i32(k), max_p)))?;
    let kg = assign_to_key_group(java_hash_i32(key), max_p);
    one.add_int(key, kg, state, Namespace::Void, 1).ok()?;
    let entry = one
        .snapshot(1)
        .state_size
        .checked_sub(empty(0)?.0.snapshot(1).state_size)?;
    let entries = size.checked_sub(base)? as f64 / entry.max(1) as f64;
    let keys = (entries.round() as u64).clamp(1, u64::from(MAX_SIZED_KEYS)) as u32;
    let capped = if entries > f64::from(MAX_SIZED_KEYS) {
        format!(" (capped at {MAX_SIZED_KEYS})")
    } else {
        String::new()
    };
    Some((keys, format!("{keys} uniform keys{capped} make the keyed state of '{}' as large as checkpoint {id} shows it ({size} bytes: {base} bytes of headers and key-group offsets, {entry} bytes a key with a ValueState<Long> counter; a richer value would mean fewer keys)", d.name)))
}

/// A source vertex's datagen: its measured output rate and the record size downstream reads.
fn source_kind(
    bundle: &JobBundle,
    v: &JobVertexDetailsInfo,
    order: &[&JobVertexDetailsInfo],
    nodes: &BTreeMap<&str, &PlanNode>,
    notes: &mut Vec<String>,
) -> OperatorKind {
    let measured = summed(bundle, v, "numRecordsOutPerSecond").filter(|&r| r >= 0.5);
    let bp: Vec<f64> = (0..v.parallelism)
        .filter_map(|i| bundle.subtask_metric(&v.id, i, "backPressuredTimeMsPerSecond"))
        .collect();
    let rate = match (measured, median(bp).filter(|&b| b >= BACK_PRESSURED_MS)) {
        (None, _) => {
            notes.push(format!("'{}' has no numRecordsOutPerSecond (no metrics yet, or it produced nothing): its rate is the default, {DEFAULT_RATE} records/s", v.name));
            DEFAULT_RATE
        }
        (Some(r), None) => r.round() as u64,
        (Some(r), Some(bp)) => {
            let offered = offered_rate(r, bp);
            notes.push(format!("'{}' was back-pressured ({bp:.0} ms/s): its measured {} records/s is what downstream let through, not what it would produce (REST does not say). It is offered {offered} records/s, the rate it kept up while not blocked (measured / (1 - back-pressured share), at most {MAX_OFFER}x), so the simulation is back-pressured where the job was", v.name, r.round()));
            offered
        }
    };
    // The first downstream vertex's bytes per record in, else what the source wrote.
    let downstream = order
        .iter()
        .find(|d| nodes[d.id.as_str()].inputs.iter().any(|i| i.id == v.id));
    let per_record = |vertex: &JobVertexDetailsInfo, bytes: &str, records: &str| {
        let b = summed(bundle, vertex, bytes)?;
        let r = summed(bundle, vertex, records)?;
        (r > 0.0 && b > 0.0).then(|| (b / r).round() as u64)
    };
    let io = |vertex: &JobVertexDetailsInfo| {
        let m = vertex.metrics.as_ref()?;
        (m.write_records > 0 && m.write_bytes > 0).then(|| m.write_bytes / m.write_records)
    };
    let record_size = downstream
        .and_then(|d| per_record(d, "numBytesInPerSecond", "numRecordsInPerSecond"))
        .or_else(|| per_record(v, "numBytesOutPerSecond", "numRecordsOutPerSecond"))
        .or_else(|| io(v))
        .unwrap_or_else(|| {
            notes.push(format!("no byte and record counts for '{}': records of the default {DEFAULT_RECORD_SIZE} bytes", v.name));
            DEFAULT_RECORD_SIZE
        });
    let keyed = keyed_vertex(v, order, nodes);
    let split = keyed.and_then(|d| split_keys(bundle, d)).map(|(keys, measured)| {
        notes.push(format!("'{}': keys are not in Flink's REST API; {DEFAULT_KEYS} uniform keys would split records evenly, but the keyed subtasks read {measured}: {keys} uniform keys split them so (the fewest that do, within {} points)", v.name, SPLIT_TOLERANCE_PERMILLE / 10));
        keys
    });
    let sized = || {
        let (keys, why) = keyed.and_then(|d| size_keys(bundle, d))?;
        notes.push(format!(
            "'{}': keys are not in Flink's REST API; {why}",
            v.name
        ));
        Some(keys)
    };
    let keys = split.or_else(sized).unwrap_or_else(|| {
        notes.push(format!(
            "'{}': keys are not in Flink's REST API: {DEFAULT_KEYS} uniformly used keys",
            v.name
        ));
        DEFAULT_KEYS
    });
    OperatorKind::Datagen {
        rate,
        record_size,
        keys,
        key_distribution: KeyDistribution::Uniform,
        bounded: None,
    }
}

/// The vertex's busy time per record since it started: `accumulated-busy-time` over
/// `read-records` (or `write-records` for a source chain) in `/jobs/:id`, both summed over its
/// subtasks. `None` before the REST metric store has them.
fn accumulated_per_record(v: &JobVertexDetailsInfo, records: &str) -> Option<f64> {
    let m = v.metrics.as_ref()?;
    let n = if records == "numRecordsInPerSecond" {
        m.read_records
    } else {
        m.write_records
    };
    (n > 0 && m.accumulated_busy_time.is_finite() && m.accumulated_busy_time > 0.0)
        .then(|| m.accumulated_busy_time / n as f64)
}

/// The vertex's measured busy time per record (`records`: in, or out for a source chain) as
/// the first operator's cost; the operators after it keep their kinds' defaults and `before` is
/// what runs ahead of it (a chain's source), both subtracted so the vertex costs what was
/// measured. The accumulated times come first: `busyTimeMsPerSecond` is a `TimerGauge` whose
/// first minute still counts the task's first seconds (task/timer_gauge.rs) and its window is
/// not the meter's; its ratio to the rate (median over subtasks) serves when they are missing.
fn cost(
    bundle: &JobBundle,
    v: &JobVertexDetailsInfo,
    chain: &mut [OperatorSpec],
    records: &str,
    before: Micros,
    notes: &mut Vec<String>,
) {
    let gauged = || {
        median(
            (0..v.parallelism)
                .filter_map(|i| {
                    let busy = bundle.subtask_metric(&v.id, i, "busyTimeMsPerSecond")?;
                    let n = bundle.subtask_metric(&v.id, i, records)? * meter_scale(bundle, v);
                    (n > 0.0 && busy.is_finite()).then(|| busy / n)
                })
                .collect(),
        )
    };
    let Some(ms) = accumulated_per_record(v, records).or_else(gauged) else {
        notes.push(format!("'{}' has no busyTimeMsPerSecond and {records} to divide: its operators cost their kinds' defaults", v.name));
        return;
    };
    let rest: u64 = chain[1..]
        .iter()
        .map(|o| o.kind.default_cost_per_record())
        .sum();
    let us = ((ms * 1000.0).round() as u64)
        .saturating_sub(rest + before)
        .max(1);
    chain[0].cost_per_record = Some(format!("{us}us"));
}
