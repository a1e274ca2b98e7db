//! What a scenario will cost to simulate, worked out before it runs, and the budget a run stays in
//! unless the user consents to more.
//!
//! The estimate is an upper bound per simulated second, from the scenario alone: records flow
//! from the datagens' rates through every operator (filters thin them, broadcast multiplies them
//! by the consumers' parallelism, a chain with a per-record cost passes at most `parallelism x
//! 1 s / cost`), records become network buffers (`taskmanager.memory.segment-size`, a record
//! larger than a segment spans several; with buffer debloating, of `min-segment-size`), every producing subtask's output flusher wakes once per
//! `execution.buffer-timeout.interval` (sending at most one buffer per channel), and every checkpoint sends a barrier through every channel
//! and an acknowledgement from every subtask. `barrierlab fuzz-scenarios` checks that no
//! accepted scenario's run exceeds its estimate.
//!
//! Integer arithmetic only, saturating: an absurd scenario gives `u64::MAX`, not an overflow.

use std::fmt;

use super::faults::Fault;
use super::job_graph::JobGraph;
use super::model::{OperatorKind, Partitioner, Scenario};
use crate::types::{parse_duration, Micros, MICROS_PER_SEC};

/// The work a run may take per simulated second without the user's consent. `barrierlab bench`'s
/// 512-subtask job at 1 M records/s, the largest job the playground is meant to run live, is
/// estimated at 16.6 M (its runs do 6-8 % of that: the estimate is a loose upper bound).
pub const BUDGET_WORK_PER_SECOND: u64 = 20_000_000;

/// The longest run (in simulated work) a single request may take without consent: ten minutes of
/// simulated time at the full per-second budget, plus the start (see [`CostEstimate::work_for`]);
/// a link's `until=` catch-up (at most 600 s) is held to it.
pub const BUDGET_WORK_PER_RUN: u64 = BUDGET_WORK_PER_SECOND * 601;

/// Network channels a job may have without consent: each holds buffers and credit state, so a
/// browser tab's memory, not time, runs out first (512 x 512 subtasks over one hash edge).
pub const BUDGET_CHANNELS: u64 = 512 * 512;

/// Events a record-hop costs at most: the mailbox action that processes it and, for a source,
/// the wake-up when it is due.
const EVENTS_PER_HOP: u64 = 2;
/// Events per network buffer at most: emit, transfer, delivery, credit back, consumption, recycle.
const EVENTS_PER_BUFFER: u64 = 6;
/// Events per checkpoint per subtask (trigger or barrier, snapshot, async part, ack, notify,
/// timers) and per channel (barrier, channel state, announcement).
const EVENTS_PER_CHECKPOINT_SUBTASK: u64 = 12;
const EVENTS_PER_CHECKPOINT_CHANNEL: u64 = 4;
/// Periodic events per subtask per second that do not depend on records (metrics, idle wakes).
const EVENTS_PER_SUBTASK_SECOND: u64 = 64;

/// Per simulated second, upper bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CostEstimate {
    /// Records entering a task (a source's emitted records count as a hop), as `records-in`.
    pub record_hops: u64,
    /// Network buffers sent over all channels.
    pub buffers: u64,
    /// Scheduled events of the simulation loop.
    pub events: u64,
    /// Bytes sent over the network.
    pub bytes: u64,
    pub subtasks: u64,
    pub channels: u64,
    /// Faults in the script: each may fail the job over, and a restart costs at most a second's
    /// worth of work (redeployment, and the sources' rate limiters bursting a second of records).
    pub faults: u64,
    /// Work one burst of every source can add beyond the per-second figures: an action
    /// generates every record due (up to `MAX_RECORDS_PER_SOURCE_ACTION`, a second of stored permits
    /// after a stall) and pays their cost afterwards, so a source slower than its rate still
    /// emits that many at the start and after each restart.
    pub burst: u64,
}

impl CostEstimate {
    /// The single figure the budget is about: record-hops plus events.
    pub fn work_per_second(&self) -> u64 {
        self.record_hops.saturating_add(self.events)
    }

    /// Work for `micros` of simulated time, plus one second's worth for the start and for each
    /// fault (a source's rate limiter can burst a second of records after a stall or a restart).
    pub fn work_for(&self, micros: Micros) -> u64 {
        let per = self.work_per_second();
        mul_div(per, micros, MICROS_PER_SEC).saturating_add(
            per.saturating_add(self.burst)
                .saturating_mul(self.faults.saturating_add(1)),
        )
    }

    /// Why this scenario needs consent, or `None` when it is within the budget.
    pub fn over_budget(&self) -> Option<String> {
        if self.channels > BUDGET_CHANNELS {
            return Some(format!(
                "this scenario has {} network channels (subtask to subtask over its edges), above the budget of {}: its buffers and credits would take more memory than a browser tab has",
                human(self.channels),
                human(BUDGET_CHANNELS)
            ));
        }
        let work = self.work_per_second();
        (work > BUDGET_WORK_PER_SECOND).then(|| {
            let times = work / BUDGET_WORK_PER_SECOND;
            format!(
                "this scenario is estimated at {} of work per simulated second ({}), above the budget of {}{}",
                human(work),
                self,
                human(BUDGET_WORK_PER_SECOND),
                if times >= 2 {
                    format!(" ({times} times the budget)")
                } else {
                    String::new()
                }
            )
        })
    }

    /// Why a run of `micros` needs consent (too costly per second, or too long in total).
    pub fn run_over_budget(&self, micros: Micros) -> Option<String> {
        self.over_budget().or_else(|| {
            let work = self.work_for(micros);
            (work > BUDGET_WORK_PER_RUN).then(|| {
                format!(
                    "running {} s of this scenario is estimated at {} of work, above the budget of {} per run ({} s at the per-second budget)",
                    micros / MICROS_PER_SEC,
                    human(work),
                    human(BUDGET_WORK_PER_RUN),
                    BUDGET_WORK_PER_RUN / BUDGET_WORK_PER_SECOND
                )
            })
        })
    }
}

impl fmt::Display for CostEstimate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} record-hops/s, {} events/s, {} network buffers/s over {} channels, {} subtasks",
            human(self.record_hops),
            human(self.events),
            human(self.buffers),
            human(self.channels),
            human(self.subtasks)
        )
    }
}

/// `1.2 M`, `35 k`, `812`; `u64::MAX` reads as "unbounded".
pub fn human(n: u64) -> String {
    match n {
        u64::MAX => "unbounded".into(),
        n if n >= 10_000_000_000_000 => format!("{:.1e}", n as f64),
        n if n >= 1_000_000_000 => format!("{}.{} G", n / 1_000_000_000, n / 100_000_000 % 10),
        n if n >= 1_000_000 => format!("{}.{} M", n / 1_000_000, n / 100_000 % 10),
        n if n >= 10_000 => format!("{} k", n / 1_000),
        n => n.to_string(),
    }
}

fn mul_div(a: u64, b: u64, c: u64) -> u64 {
    u64::try_from(u128::from(a) * u128::from(b) / u128::from(c.max(1))).unwrap_or(u64::MAX)
}

impl Scenario {
    /// Validates, then estimates the cost per simulated second.
    pub fn cost_estimate(&self) -> Result<CostEstimate, String> {
        let graph = self.job_graph()?;
        Ok(estimate(self, &graph))
    }
}

/// The cost of simulating `scenario` (already chained into `graph`) per simulated second.
pub fn estimate(scenario: &Scenario, graph: &JobGraph) -> CostEstimate {
    let ops = &scenario.operators;
    let cfg = &graph.config;
    // Buffer debloating may shrink buffers down to `min-segment-size`: the bound takes the smallest.
    let segment = match &cfg.debloat {
        Some(d) => u64::from(d.min_size.min(d.starting_size)),
        None => cfg.segment_size,
    }
    .max(1);
    // Records per second leaving each operator, and the largest record size reaching it.
    let mut out = vec![0u64; ops.len()];
    let mut size = vec![0u64; ops.len()];
    let mut est = CostEstimate {
        faults: scenario.faults.len() as u64,
        ..CostEstimate::default()
    };
    for v in &graph.vertices {
        let p = u64::from(v.parallelism);
        est.subtasks = est.subtasks.saturating_add(p);
        // A chain passes at most one record per microsecond of cost per subtask (at least one
        // record per action: a cost of 0 has no limit).
        let chain_cost: u64 = v
            .operators
            .iter()
            .map(|&op| lowest_cost(scenario, op))
            .fold(0, u64::saturating_add);
        let capacity = if chain_cost == 0 {
            u64::MAX
        } else {
            mul_div(p, MICROS_PER_SEC, chain_cost)
        };
        let head = v.operators[0];
        // Record sizes: a datagen's own; downstream, the largest input's (an upper bound: keyed
        // operators emit smaller records).
        let (mut rate, rsize) = match &ops[head].kind {
            OperatorKind::Datagen {
                rate, record_size, ..
            } => (*rate, *record_size),
            _ => {
                let mut r = 0u64;
                let mut s = 0u64;
                for e in &v.inputs {
                    let from = scenario_from(scenario, e.scenario_edge);
                    let fan = if e.partitioner == Partitioner::Broadcast {
                        p
                    } else {
                        1
                    };
                    r = r.saturating_add(out[from].saturating_mul(fan));
                    s = s.max(size[from]);
                }
                (r, s)
            }
        };
        rate = rate.min(capacity);
        est.record_hops = est.record_hops.saturating_add(rate);
        for &op in &v.operators {
            if let OperatorKind::Filter { keep_percent } = ops[op].kind {
                rate = mul_div(rate, u64::from(keep_percent.min(100)), 100);
            }
            out[op] = rate;
            size[op] = rsize;
        }
        // Processing-time timers fire at most once per (window, key) that received a record.
        let timers = v
            .operators
            .iter()
            .filter(|&&op| matches!(ops[op].kind, OperatorKind::KeyedWindowSum { .. }))
            .count() as u64;
        est.events = est.events.saturating_add(rate.saturating_mul(timers));
    }
    // A burst: each source subtask's largest action, through every vertex (broadcast edges
    // copying it to each consumer), with its hops' events and the buffers it fills.
    let fan_out: u64 = graph
        .edges()
        .filter(|e| e.partitioner == Partitioner::Broadcast)
        .map(|e| u64::from(graph.vertices[e.target_vertex as usize].parallelism))
        .fold(1, u64::saturating_mul);
    let mut burst_records = 0u64;
    let mut burst_bytes = 0u64;
    for v in &graph.vertices {
        if let OperatorKind::Datagen {
            rate, record_size, ..
        } = &ops[v.operators[0]].kind
        {
            let p = u64::from(v.parallelism).max(1);
            let per_subtask = rate
                .div_ceil(p)
                .min(u64::from(crate::types::MAX_RECORDS_PER_SOURCE_ACTION) + 7);
            burst_records = burst_records.saturating_add(per_subtask.saturating_mul(p));
            burst_bytes = burst_bytes.saturating_add(
                per_subtask
                    .saturating_mul(p)
                    .saturating_mul((*record_size).max(1)),
            );
        }
    }
    let burst_hops = burst_records
        .saturating_mul(graph.vertices.len() as u64)
        .saturating_mul(fan_out);
    // Network edges: buffers and channels.
    for e in graph.edges() {
        let from = graph.vertices[e.source_vertex as usize].parallelism as u64;
        let to = graph.vertices[e.target_vertex as usize].parallelism as u64;
        let channels = match e.partitioner {
            Partitioner::Forward => from,
            Partitioner::Rescale => from.max(to),
            _ => from.saturating_mul(to),
        };
        est.channels = est.channels.saturating_add(channels);
        let tail = scenario_from(scenario, e.scenario_edge);
        let fan = if e.partitioner == Partitioner::Broadcast {
            to
        } else {
            1
        };
        let records = out[tail].saturating_mul(fan);
        let rsize = size[tail].max(1);
        let bytes = records.saturating_mul(rsize);
        est.bytes = est.bytes.saturating_add(bytes);
        // Full buffers, plus every record's partial last segment when records span segments,
        // plus at most one flush per channel per buffer timeout (never more than one per record).
        let spans = if rsize > segment {
            records.saturating_mul(rsize.div_ceil(segment))
        } else {
            bytes / segment
        };
        let timeout = if cfg.buffer_timeout_enabled {
            cfg.buffer_timeout
        } else {
            0
        };
        let flushes = if timeout == 0 {
            records
        } else {
            records.min(mul_div(channels, MICROS_PER_SEC, timeout).saturating_add(channels))
        };
        est.buffers = est
            .buffers
            .saturating_add(spans)
            .saturating_add(flushes)
            .saturating_add(records.min(channels));
    }
    // Each subtask with outputs runs an `OutputFlusher`: one event per buffer timeout, data or not.
    if cfg.buffer_timeout_enabled && cfg.buffer_timeout > 0 {
        let flushing: u64 = graph
            .vertices
            .iter()
            .filter(|v| !v.outputs.is_empty())
            .map(|v| u64::from(v.parallelism))
            .sum();
        est.events =
            est.events
                .saturating_add(mul_div(flushing, MICROS_PER_SEC, cfg.buffer_timeout));
    }
    // Buffer debloating: every subtask with inputs runs a recalculation mail per period, and each
    // may announce a new size to every producer of its channels.
    if let Some(d) = &cfg.debloat {
        let consuming: u64 = graph
            .vertices
            .iter()
            .filter(|v| !v.inputs.is_empty())
            .map(|v| u64::from(v.parallelism))
            .sum();
        let per_second = mul_div(1, MICROS_PER_SEC, d.period.max(1)).saturating_add(1);
        est.events = est.events.saturating_add(
            per_second.saturating_mul(consuming.saturating_mul(2).saturating_add(est.channels)),
        );
    }
    let checkpoints_per_second = match cfg.checkpoint_interval {
        Some(interval) => mul_div(MICROS_PER_SEC, 1, interval).saturating_add(1),
        None => 0,
    };
    let per_checkpoint = est
        .subtasks
        .saturating_mul(EVENTS_PER_CHECKPOINT_SUBTASK)
        .saturating_add(est.channels.saturating_mul(EVENTS_PER_CHECKPOINT_CHANNEL));
    let burst_buffers = burst_bytes
        .saturating_mul(graph.vertices.len() as u64)
        .saturating_mul(fan_out)
        / segment
        + est.channels;
    est.burst = burst_hops
        .saturating_mul(1 + EVENTS_PER_HOP)
        .saturating_add(burst_buffers.saturating_mul(EVENTS_PER_BUFFER));
    est.events = est
        .events
        .saturating_add(est.record_hops.saturating_mul(EVENTS_PER_HOP))
        .saturating_add(est.buffers.saturating_mul(EVENTS_PER_BUFFER))
        .saturating_add(checkpoints_per_second.saturating_mul(per_checkpoint))
        .saturating_add(est.subtasks.saturating_mul(EVENTS_PER_SUBTASK_SECOND))
        .saturating_add(est.channels.saturating_mul(EVENTS_PER_SUBTASK_SECOND / 4));
    est
}

/// An operator's per-record cost, or the lowest a `slow` fault gives it during the run.
fn lowest_cost(scenario: &Scenario, op: usize) -> Micros {
    let spec = &scenario.operators[op];
    let own = spec.cost_per_record_micros().unwrap_or(0);
    scenario
        .faults
        .iter()
        .filter_map(|f| match f {
            Fault::Slow {
                operator,
                cost_per_record,
                ..
            } if *operator == spec.name => Some(parse_duration(cost_per_record).unwrap_or(0)),
            _ => None,
        })
        .fold(own, Micros::min)
}

fn scenario_from(scenario: &Scenario, edge: usize) -> usize {
    scenario
        .operator_index(&scenario.edges[edge].from)
        .unwrap_or(0)
}
