//! "Why was checkpoint N slow?" for a real job: the bundle's own figures, no simulation.
//!
//! For each checkpoint in the bundle's `details` this finds the critical subtask (the one whose
//! acknowledgement came last, by `ack_timestamp`), splits its time into Flink's phases (start
//! delay, alignment, sync, async, and the acknowledgement: what the subtask's own figures do not
//! cover) and gathers the evidence the bundle holds for the phase that dominated: backpressure
//! levels, ratios and busy time for a start delay; processed and persisted data for an
//! alignment; checkpointed and state size for the async phase. [`explain`] returns it typed; the
//! CLI (`barrierlab explain`) and, later, the playground put it in words.
//!
//! Pure: a [`JobBundle`] in, an [`Explanation`] out. Times are Flink's milliseconds.

use std::collections::BTreeMap;
use std::fmt;

use super::bundle::JobBundle;
use super::rest::{
    CheckpointStatistics, CheckpointStatsStatus, RestAPICheckpointType,
    SubtaskCheckpointStatistics, VertexBackPressureLevel,
};

/// A checkpoint is slow when it took more than a tenth of the checkpoint interval end to end, or
/// when one subtask spent more than [`SLOW_PHASE_MS`] in one phase: the rule of the simulator's
/// "why was checkpoint N slow?" (`stats::why`), in milliseconds.
pub const SLOW_SHARE_OF_INTERVAL: i64 = 10;
pub const SLOW_PHASE_MS: i64 = 1_000;

/// An incremental checkpoint whose critical subtask uploaded more than this many times its usual
/// checkpointed size (the median over the bundle's other checkpoints) re-uploaded more than usual.
pub const REUPLOAD_FACTOR: u64 = 2;

/// One phase of a subtask's part in a checkpoint, as Flink's per-subtask details name them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Phase {
    /// `start_delay`: from the trigger until the subtask's first barrier arrived.
    StartDelay,
    /// `alignment.duration`: from the first barrier until the last, across input channels.
    Alignment,
    /// `checkpoint.sync`: the synchronous snapshot.
    Sync,
    /// `checkpoint.async`: the asynchronous part, state upload.
    Async,
    /// What the subtask's figures do not cover: `end_to_end_duration` minus the four above
    /// (the acknowledgement's way to the JobManager, and any time between the phases).
    Acknowledgement,
}

impl Phase {
    pub const ALL: [Phase; 5] = [
        Phase::StartDelay,
        Phase::Alignment,
        Phase::Sync,
        Phase::Async,
        Phase::Acknowledgement,
    ];

    /// The phase's name as the Web UI's checkpoint details print it.
    pub fn name(self) -> &'static str {
        match self {
            Phase::StartDelay => "start delay",
            Phase::Alignment => "alignment",
            Phase::Sync => "sync",
            Phase::Async => "async",
            Phase::Acknowledgement => "acknowledgement",
        }
    }
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A subtask named as the Web UI names it: the job vertex and the subtask index.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct SubtaskRef {
    /// `JobVertexID`.
    pub vertex_id: String,
    /// The vertex's name (the chain's, `A -> B`), verbatim from the bundle.
    pub vertex_name: String,
    pub index: u32,
}

/// How a subtask spent its time when the bundle was collected: `GET …/backpressure` (ratios,
/// 0–1) and its metrics (ms per second). Absent figures are `None`.
#[derive(Debug, Clone, PartialEq)]
pub struct SubtaskLoad {
    pub subtask: SubtaskRef,
    pub backpressure_level: Option<VertexBackPressureLevel>,
    /// The back-pressured share (`ratio`).
    pub ratio: Option<f64>,
    pub busy_ratio: Option<f64>,
    pub idle_ratio: Option<f64>,
    pub busy_time_ms_per_second: Option<f64>,
    pub back_pressured_time_ms_per_second: Option<f64>,
}

/// A vertex's backpressure as `GET …/backpressure` reported it.
#[derive(Debug, Clone, PartialEq)]
pub struct VertexBackpressure {
    pub vertex_id: String,
    pub vertex_name: String,
    /// `backpressureLevel` (the vertex's: its worst subtask's).
    pub level: Option<VertexBackPressureLevel>,
    /// The largest back-pressured `ratio` over its subtasks.
    pub max_ratio: Option<f64>,
    /// The plan's ship strategy on the edge from it into the vertex explained (`HASH`, …), when
    /// it is an input of that vertex.
    pub ship_strategy: Option<String>,
}

/// What the bundle says about the phase that dominated.
#[derive(Debug, Clone, PartialEq)]
pub enum Evidence {
    /// The barrier was stuck behind data. `critical` is the subtask's own load; `upstream` its
    /// vertex's inputs (from the plan) with their backpressure. A source has no inputs: its start
    /// delay is the trigger RPC's way to it and the wait in its mailbox.
    StartDelay {
        is_source: bool,
        critical: SubtaskLoad,
        upstream: Vec<VertexBackpressure>,
    },
    /// Waiting for barriers on the other channels; `processed`/`persisted` are the bytes
    /// processed during alignment and persisted as in-flight data (unaligned).
    Alignment {
        processed: u64,
        persisted: u64,
        unaligned: bool,
        upstream: Vec<VertexBackpressure>,
    },
    /// The synchronous snapshot.
    Sync { sync_ms: i64 },
    /// State upload: what the subtask wrote (`checkpointed_size`) of how much state
    /// (`state_size`). `incremental`: the bundle's figures for it differ (Flink reports the full
    /// state as `state_size` and the uploaded part as `checkpointed_size`), as with incremental
    /// RocksDB checkpoints. `usual_checkpointed_size`: the median over the bundle's other
    /// checkpoints for the same subtask; `reuploaded` when this one is over
    /// [`REUPLOAD_FACTOR`] times that on an incremental checkpoint.
    Async {
        async_ms: i64,
        checkpointed_size: u64,
        state_size: u64,
        state_backend: Option<String>,
        incremental: bool,
        usual_checkpointed_size: Option<u64>,
        reuploaded: bool,
    },
    /// Time after the subtask's phases: `ack_latency` = (ack − trigger) − the four phases;
    /// `after_last_ack` = `end_to_end_duration` − (ack − trigger).
    Acknowledgement {
        ack_latency: i64,
        after_last_ack: i64,
    },
}

/// The critical subtask's figures.
#[derive(Debug, Clone, PartialEq)]
pub struct CriticalSubtask {
    pub subtask: SubtaskRef,
    pub ack_timestamp: i64,
    /// Its `end_to_end_duration` (ack − trigger).
    pub end_to_end_duration: i64,
    /// Each phase's milliseconds, in [`Phase::ALL`]'s order; the acknowledgement is the
    /// checkpoint's `end_to_end_duration` minus the other four.
    pub phases: [(Phase, i64); 5],
    pub checkpointed_size: u64,
    pub state_size: u64,
    pub unaligned_checkpoint: bool,
}

impl CriticalSubtask {
    pub fn phase(&self, phase: Phase) -> i64 {
        self.phases
            .iter()
            .find(|(p, _)| *p == phase)
            .map_or(0, |(_, ms)| *ms)
    }
}

/// One checkpoint, explained.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckpointExplanation {
    pub id: u64,
    pub status: CheckpointStatsStatus,
    /// `end_to_end_duration` (ms; for one in progress, until its latest acknowledgement).
    pub end_to_end_duration: i64,
    pub trigger_timestamp: i64,
    pub checkpointed_size: u64,
    pub state_size: u64,
    pub processed_data: u64,
    pub persisted_data: u64,
    pub num_subtasks: u32,
    pub num_acknowledged_subtasks: u32,
    /// Unaligned (`checkpoint_type` `UNALIGNED_CHECKPOINT`).
    pub unaligned: bool,
    pub failure_message: Option<String>,
    /// The rule of [`SLOW_SHARE_OF_INTERVAL`] and [`SLOW_PHASE_MS`]; a failed checkpoint is slow.
    pub slow: bool,
    /// The subtask whose acknowledgement came last; `None` without per-subtask details.
    pub critical: Option<CriticalSubtask>,
    /// Without per-subtask details: the vertex whose `latest_ack_timestamp` came last.
    pub critical_vertex: Option<(String, String)>,
    /// Subtasks that had not acknowledged (in progress or failed).
    pub pending: Vec<SubtaskRef>,
    /// The phase that took longest on the critical subtask (ties go to the earlier phase).
    pub dominant: Option<Phase>,
    pub evidence: Option<Evidence>,
}

/// Across the explained checkpoints.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    /// Checkpoints with a dominant phase (those whose critical subtask acknowledged).
    pub explained: usize,
    /// How many of them each phase dominated, in [`Phase::ALL`]'s order, zeros left out.
    pub by_phase: Vec<(Phase, usize)>,
    /// The phase that dominated most of them (ties to the earlier phase).
    pub dominant: Option<Phase>,
    /// The subtask most often critical among the checkpoints `dominant` dominated, and how often.
    pub critical: Option<(SubtaskRef, usize)>,
    /// Vertices whose `backpressureLevel` was `low` or `high` at collection, worst first.
    pub backpressured: Vec<VertexBackpressure>,
    /// The busiest subtask by `busyTimeMsPerSecond` (or `busyRatio`), when the bundle has it.
    pub busiest: Option<SubtaskLoad>,
    /// `unaligned_checkpoints` from the checkpoint config, when collected.
    pub unaligned_enabled: Option<bool>,
    /// `interval` from the checkpoint config (ms), when collected.
    pub interval: Option<i64>,
}

/// The answer for a bundle.
#[derive(Debug, Clone, PartialEq)]
pub struct Explanation {
    pub job_name: String,
    pub job_id: String,
    /// Oldest first.
    pub checkpoints: Vec<CheckpointExplanation>,
    pub summary: Summary,
}

/// Why there is nothing to explain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExplainError {
    /// The bundle holds no checkpoint details. `history` is how many checkpoints Flink's
    /// history listed; `failed` how many details requests failed or were skipped.
    NoDetails { history: usize, failed: usize },
    /// `--checkpoint N` for a checkpoint the bundle has no details of.
    UnknownCheckpoint { id: u64, available: Vec<u64> },
}

impl fmt::Display for ExplainError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Self::NoDetails { history: 0, .. } => write!(
                f,
                "the bundle holds no checkpoint details: the job had no checkpoint when it was \
                 collected (or does not checkpoint); collect it again once a checkpoint completed"
            ),
            Self::NoDetails { history, failed } => write!(
                f,
                "the bundle holds no checkpoint details: Flink's history lists {history} \
                 checkpoint(s), but no GET /jobs/:id/checkpoints/details/:cid answered \
                 ({failed} failed or skipped, listed in the bundle's header); collect it again \
                 with --checkpoints N"
            ),
            Self::UnknownCheckpoint { id, available } => {
                let ids: Vec<String> = available.iter().map(u64::to_string).collect();
                write!(
                    f,
                    "the bundle has no details of checkpoint {id}; it has {}",
                    if ids.is_empty() {
                        "none".into()
                    } else {
                        format!("checkpoint(s) {}", ids.join(", "))
                    }
                )
            }
        }
    }
}

impl std::error::Error for ExplainError {}

/// Explains every checkpoint in the bundle's details, or only `only`.
pub fn explain(bundle: &JobBundle, only: Option<u64>) -> Result<Explanation, ExplainError> {
    if bundle.details.is_empty() {
        let failed = bundle
            .header
            .failed
            .iter()
            .map(|f| &f.request)
            .chain(bundle.header.skipped.iter().map(|s| &s.request))
            .filter(|r| r.contains("/checkpoints/details/"))
            .count();
        return Err(ExplainError::NoDetails {
            history: bundle.history().len(),
            failed,
        });
    }
    let ids: Vec<u64> = match only {
        Some(id) if bundle.details.contains_key(&id) => vec![id],
        Some(id) => {
            return Err(ExplainError::UnknownCheckpoint {
                id,
                available: bundle.details.keys().copied().collect(),
            })
        }
        None => bundle.details.keys().copied().collect(),
    };
    let checkpoints: Vec<CheckpointExplanation> = ids
        .iter()
        .map(|id| explain_one(bundle, &bundle.details[id]))
        .collect();
    let summary = summarize(bundle, &checkpoints);
    Ok(Explanation {
        job_name: bundle.job.name.clone(),
        job_id: bundle.job.jid.clone(),
        checkpoints,
        summary,
    })
}

fn subtask_ref(bundle: &JobBundle, vertex: &str, index: u32) -> SubtaskRef {
    SubtaskRef {
        vertex_id: vertex.to_owned(),
        vertex_name: bundle.vertex_name(vertex).to_owned(),
        index,
    }
}

/// Vertex order as the job lists them (sources first), for deterministic tie-breaks.
fn vertex_rank(bundle: &JobBundle, vertex: &str) -> usize {
    bundle
        .job
        .vertices
        .iter()
        .position(|v| v.id == vertex)
        .unwrap_or(usize::MAX)
}

fn explain_one(bundle: &JobBundle, cp: &CheckpointStatistics) -> CheckpointExplanation {
    let per_vertex = bundle.subtasks.get(&cp.id);
    let all = || {
        per_vertex
            .into_iter()
            .flatten()
            .flat_map(|(v, d)| d.subtasks.iter().map(move |s| (v.as_str(), s)))
    };
    let mut pending: Vec<SubtaskRef> = all()
        .filter(|(_, s)| !s.is_completed())
        .map(|(v, s)| subtask_ref(bundle, v, s.index))
        .collect();
    pending.sort_by_key(|s| (vertex_rank(bundle, &s.vertex_id), s.index));
    // The last acknowledgement; among equal ones the longest, then the vertex listed last (the
    // most downstream), then the highest index. While a subtask has not acknowledged, nobody's
    // acknowledgement was the last.
    let critical = all()
        .filter(|(_, s)| s.is_completed())
        .max_by_key(|(v, s)| {
            (
                s.ack_timestamp,
                s.end_to_end_duration,
                vertex_rank(bundle, v),
                s.index,
            )
        })
        .filter(|_| pending.is_empty())
        .map(|(vertex, s)| critical_subtask(bundle, cp, vertex, s));
    let critical_vertex = if critical.is_none() && pending.is_empty() {
        cp.tasks
            .iter()
            .filter(|(_, t)| t.latest_ack_timestamp > 0)
            .max_by_key(|(v, t)| (t.latest_ack_timestamp, vertex_rank(bundle, v)))
            .map(|(v, _)| (v.clone(), bundle.vertex_name(v).to_owned()))
    } else {
        None
    };
    let dominant = critical.as_ref().map(|c| {
        // The first of the longest: ties go to the earlier phase.
        c.phases
            .iter()
            .rev()
            .max_by_key(|(_, ms)| *ms)
            .map_or(Phase::StartDelay, |(p, _)| *p)
    });
    let evidence = dominant
        .zip(critical.as_ref())
        .map(|(phase, c)| evidence(bundle, cp, c, phase));
    let interval = bundle
        .config
        .as_ref()
        .map(|c| c.interval)
        .filter(|i| *i > 0);
    let longest_phase = per_vertex
        .into_iter()
        .flat_map(|m| m.values())
        .flat_map(|d| &d.subtasks)
        .map(|s| {
            let (sync, async_) = s.checkpoint.as_ref().map_or((0, 0), |c| (c.sync, c.async_));
            let alignment = s.alignment.as_ref().map_or(0, |a| a.duration);
            s.start_delay
                .unwrap_or(0)
                .max(alignment)
                .max(sync)
                .max(async_)
        })
        .max()
        .unwrap_or(0);
    let slow = cp.status == CheckpointStatsStatus::FAILED
        || interval.is_some_and(|i| cp.end_to_end_duration > i / SLOW_SHARE_OF_INTERVAL)
        || longest_phase > SLOW_PHASE_MS;
    CheckpointExplanation {
        id: cp.id,
        status: cp.status,
        end_to_end_duration: cp.end_to_end_duration,
        trigger_timestamp: cp.trigger_timestamp,
        checkpointed_size: cp.checkpointed_size,
        state_size: cp.state_size,
        processed_data: cp.processed_data,
        persisted_data: cp.persisted_data,
        num_subtasks: cp.num_subtasks,
        num_acknowledged_subtasks: cp.num_acknowledged_subtasks,
        unaligned: cp.checkpoint_type == Some(RestAPICheckpointType::UnalignedCheckpoint),
        failure_message: cp.failure_message.clone(),
        slow,
        critical,
        critical_vertex,
        pending,
        dominant,
        evidence,
    }
}

fn critical_subtask(
    bundle: &JobBundle,
    cp: &CheckpointStatistics,
    vertex: &str,
    s: &SubtaskCheckpointStatistics,
) -> CriticalSubtask {
    let ack = s.ack_timestamp.unwrap_or(cp.trigger_timestamp);
    let own = s
        .end_to_end_duration
        .unwrap_or(ack - cp.trigger_timestamp)
        .max(0);
    let start_delay = s.start_delay.unwrap_or(0).max(0);
    let alignment = s.alignment.as_ref().map_or(0, |a| a.duration).max(0);
    let (sync, async_) = s
        .checkpoint
        .as_ref()
        .map_or((0, 0), |c| (c.sync.max(0), c.async_.max(0)));
    // The checkpoint's end to end, or the subtask's where Flink has none (-1).
    let total = if cp.end_to_end_duration >= 0 {
        cp.end_to_end_duration.max(own)
    } else {
        own
    };
    let acknowledgement = (total - start_delay - alignment - sync - async_).max(0);
    CriticalSubtask {
        subtask: subtask_ref(bundle, vertex, s.index),
        ack_timestamp: ack,
        end_to_end_duration: own,
        phases: [
            (Phase::StartDelay, start_delay),
            (Phase::Alignment, alignment),
            (Phase::Sync, sync),
            (Phase::Async, async_),
            (Phase::Acknowledgement, acknowledgement),
        ],
        checkpointed_size: s.checkpointed_size.unwrap_or(0),
        state_size: s.state_size.unwrap_or(0),
        unaligned_checkpoint: s.unaligned_checkpoint.unwrap_or(false),
    }
}

fn evidence(
    bundle: &JobBundle,
    cp: &CheckpointStatistics,
    c: &CriticalSubtask,
    phase: Phase,
) -> Evidence {
    let vertex = &c.subtask.vertex_id;
    match phase {
        Phase::StartDelay => {
            let upstream = upstream(bundle, vertex);
            let is_source = bundle
                .job
                .plan
                .as_ref()
                .and_then(|p| p.nodes.iter().find(|n| &n.id == vertex))
                .is_some_and(|n| n.inputs.is_empty());
            Evidence::StartDelay {
                is_source,
                critical: load(bundle, vertex, c.subtask.index),
                upstream,
            }
        }
        Phase::Alignment => {
            let s = subtask(bundle, cp.id, vertex, c.subtask.index);
            let a = s.and_then(|s| s.alignment.as_ref());
            Evidence::Alignment {
                processed: a.map_or(0, |a| a.processed),
                persisted: a.map_or(0, |a| a.persisted),
                unaligned: c.unaligned_checkpoint,
                upstream: upstream(bundle, vertex),
            }
        }
        Phase::Sync => Evidence::Sync {
            sync_ms: c.phase(Phase::Sync),
        },
        Phase::Async => {
            // Every checkpoint of the bundle's, for this subtask: (id, checkpointed, state).
            let sizes: Vec<(u64, u64, u64)> = bundle
                .subtasks
                .iter()
                .filter_map(|(id, m)| {
                    let s = m
                        .get(vertex)?
                        .subtasks
                        .iter()
                        .find(|s| s.index == c.subtask.index && s.is_completed())?;
                    Some((*id, s.checkpointed_size?, s.state_size?))
                })
                .collect();
            let incremental = sizes.iter().any(|(_, cs, ss)| cs < ss);
            let mut others: Vec<u64> = sizes
                .iter()
                .filter(|(id, _, _)| *id != cp.id)
                .map(|(_, cs, _)| *cs)
                .collect();
            others.sort_unstable();
            let usual = others.get(others.len() / 2).copied();
            let reuploaded = incremental
                && usual.is_some_and(|u| c.checkpointed_size > u.saturating_mul(REUPLOAD_FACTOR));
            Evidence::Async {
                async_ms: c.phase(Phase::Async),
                checkpointed_size: c.checkpointed_size,
                state_size: c.state_size,
                state_backend: bundle
                    .config
                    .as_ref()
                    .map(|c| c.state_backend.clone())
                    .filter(|s| !s.is_empty()),
                incremental,
                usual_checkpointed_size: usual,
                reuploaded,
            }
        }
        Phase::Acknowledgement => {
            let own = c.ack_timestamp - cp.trigger_timestamp;
            let phases: i64 = c.phases[..4].iter().map(|(_, ms)| ms).sum();
            Evidence::Acknowledgement {
                ack_latency: (own - phases).max(0),
                after_last_ack: (cp.end_to_end_duration - own).max(0),
            }
        }
    }
}

fn subtask<'a>(
    bundle: &'a JobBundle,
    id: u64,
    vertex: &str,
    index: u32,
) -> Option<&'a SubtaskCheckpointStatistics> {
    bundle
        .subtasks
        .get(&id)?
        .get(vertex)?
        .subtasks
        .iter()
        .find(|s| s.index == index)
}

/// The subtask's load at collection: backpressure ratios and metrics.
fn load(bundle: &JobBundle, vertex: &str, index: u32) -> SubtaskLoad {
    let bp = bundle
        .backpressure
        .get(vertex)
        .and_then(|b| b.subtasks.iter().find(|s| s.subtask == index));
    let finite = |x: f64| Some(x).filter(|x| x.is_finite());
    SubtaskLoad {
        subtask: subtask_ref(bundle, vertex, index),
        backpressure_level: bp.and_then(|b| b.backpressure_level),
        ratio: bp.and_then(|b| finite(b.ratio)),
        busy_ratio: bp.and_then(|b| finite(b.busy_ratio)),
        idle_ratio: bp.and_then(|b| finite(b.idle_ratio)),
        busy_time_ms_per_second: bundle.subtask_metric(vertex, index, "busyTimeMsPerSecond"),
        back_pressured_time_ms_per_second: bundle.subtask_metric(
            vertex,
            index,
            "backPressuredTimeMsPerSecond",
        ),
    }
}

fn vertex_backpressure(bundle: &JobBundle, vertex: &str) -> VertexBackpressure {
    let bp = bundle.backpressure.get(vertex);
    VertexBackpressure {
        vertex_id: vertex.to_owned(),
        vertex_name: bundle.vertex_name(vertex).to_owned(),
        level: bp.and_then(|b| b.backpressure_level),
        max_ratio: bp.and_then(|b| {
            b.subtasks
                .iter()
                .map(|s| s.ratio)
                .filter(|r| r.is_finite())
                .reduce(f64::max)
        }),
        ship_strategy: None,
    }
}

/// The vertex's inputs in the plan, with their backpressure.
fn upstream(bundle: &JobBundle, vertex: &str) -> Vec<VertexBackpressure> {
    let Some(node) = bundle
        .job
        .plan
        .as_ref()
        .and_then(|p| p.nodes.iter().find(|n| n.id == vertex))
    else {
        return Vec::new();
    };
    node.inputs
        .iter()
        .map(|i| VertexBackpressure {
            ship_strategy: Some(i.ship_strategy.clone()).filter(|s| !s.is_empty()),
            ..vertex_backpressure(bundle, &i.id)
        })
        .collect()
}

fn summarize(bundle: &JobBundle, checkpoints: &[CheckpointExplanation]) -> Summary {
    let mut counts = BTreeMap::<Phase, usize>::new();
    for d in checkpoints.iter().filter_map(|c| c.dominant) {
        *counts.entry(d).or_default() += 1;
    }
    let explained = counts.values().sum();
    let by_phase: Vec<(Phase, usize)> = counts.iter().map(|(p, n)| (*p, *n)).collect();
    let dominant = by_phase
        .iter()
        .rev()
        .max_by_key(|(_, n)| *n)
        .map(|(p, _)| *p);
    let mut critical_counts = BTreeMap::<SubtaskRef, usize>::new();
    for c in checkpoints.iter().filter(|c| c.dominant == dominant) {
        if let Some(cr) = &c.critical {
            *critical_counts.entry(cr.subtask.clone()).or_default() += 1;
        }
    }
    let critical = critical_counts.into_iter().rev().max_by_key(|(_, n)| *n);
    let mut backpressured: Vec<VertexBackpressure> = bundle
        .job
        .vertices
        .iter()
        .map(|v| vertex_backpressure(bundle, &v.id))
        .filter(|v| {
            matches!(
                v.level,
                Some(VertexBackPressureLevel::Low | VertexBackPressureLevel::High)
            )
        })
        .collect();
    backpressured.sort_by_key(|v| std::cmp::Reverse(v.level));
    let busiest = bundle
        .job
        .vertices
        .iter()
        .flat_map(|v| (0..v.parallelism).map(move |n| load(bundle, &v.id, n)))
        .filter_map(|l| {
            let busy = l
                .busy_time_ms_per_second
                .or(l.busy_ratio.map(|r| r * 1000.0))?;
            Some((busy, l))
        })
        .filter(|(busy, _)| busy.is_finite())
        // The first of the busiest.
        .fold(None::<(f64, SubtaskLoad)>, |best, (busy, l)| match best {
            Some((b, _)) if b >= busy => best,
            _ => Some((busy, l)),
        })
        .map(|(_, l)| l);
    Summary {
        explained,
        by_phase,
        dominant,
        critical,
        backpressured,
        busiest,
        unaligned_enabled: bundle.config.as_ref().map(|c| c.unaligned_checkpoints),
        interval: bundle
            .config
            .as_ref()
            .map(|c| c.interval)
            .filter(|i| *i > 0),
    }
}
