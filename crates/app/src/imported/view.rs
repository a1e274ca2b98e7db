//! A bundle as the Web UI's checkpoint tabs show a job: the job graph with backpressure, the
//! Overview, History, Summary and Configuration, and one checkpoint's per-subtask details. Plain
//! data with Flink's labels and figures formatted; the components only lay it out.

use barrierlab_engine::import::rest::{
    CheckpointStatistics, CheckpointStatsStatus, CheckpointingStatistics, StatsSummaryDto,
    VertexBackPressureLevel,
};
use barrierlab_engine::import::JobBundle;

use crate::format::{bytes, rest_millis};

/// One job vertex (operator chain) of the job graph.
#[derive(Debug, Clone, PartialEq)]
pub struct VertexView {
    pub id: String,
    pub name: String,
    pub parallelism: u32,
    pub status: String,
    /// `backpressureLevel` from `GET …/backpressure`: `OK`, `LOW`, `HIGH`, or `-` without it.
    pub backpressure: String,
    /// Backpressured (max) and Busy (max) over the subtasks, as the Web UI's graph shows them.
    pub backpressured_max: Option<f64>,
    pub busy_max: Option<f64>,
    /// The plan's inputs: upstream vertex name and ship strategy.
    pub inputs: Vec<(String, String)>,
}

/// One row of the History tab.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryRow {
    pub id: u64,
    pub status: String,
    pub savepoint: bool,
    pub acknowledged: String,
    pub trigger_time: String,
    pub latest_ack: String,
    pub end_to_end: String,
    pub checkpointed_size: String,
    pub full_size: String,
    pub processed_persisted: String,
    /// The bundle has per-subtask details of it (Flink's history rows of the newest N only).
    pub has_details: bool,
}

/// A labelled figure (Overview, Configuration).
pub type Field = (&'static str, String);

/// One row of the Summary tab: min, average, max and Flink's percentiles.
#[derive(Debug, Clone, PartialEq)]
pub struct SummaryRow {
    pub label: &'static str,
    /// Minimum, Average, Maximum, p50, p90, p95, p99, p99.9 (`-` where Flink sent NaN).
    pub values: [String; 8],
}

pub const SUMMARY_COLUMNS: [&str; 8] = [
    "Minimum", "Average", "Maximum", "p50", "p90", "p95", "p99", "p99.9",
];

/// The Overview tab.
#[derive(Debug, Clone, PartialEq)]
pub struct Overview {
    pub counts: Vec<Field>,
    pub latest_completed: Option<Vec<Field>>,
    pub latest_failed: Option<Vec<Field>>,
    pub latest_savepoint: Option<Vec<Field>>,
    pub latest_restored: Option<Vec<Field>>,
}

/// One subtask's row of a checkpoint's details, in the Web UI's columns.
#[derive(Debug, Clone, PartialEq)]
pub struct SubtaskRow {
    pub vertex: String,
    pub index: u32,
    pub status: String,
    pub ack: String,
    pub end_to_end: String,
    pub checkpointed_size: String,
    pub sync: String,
    pub async_: String,
    pub processed_persisted: String,
    pub alignment: String,
    pub start_delay: String,
    pub unaligned: String,
}

/// Everything but the per-checkpoint parts, computed once when the bundle opens.
#[derive(Debug, Clone, PartialEq)]
pub struct JobView {
    pub name: String,
    pub job_id: String,
    pub state: String,
    pub flink_version: String,
    pub collected_at: String,
    pub rest_url: String,
    pub notes: Vec<String>,
    pub vertices: Vec<VertexView>,
    /// `None` when the bundle has no `/checkpoints` (no checkpoint yet, or not checkpointing).
    pub overview: Option<Overview>,
    /// Newest first, as Flink lists them.
    pub history: Vec<HistoryRow>,
    pub summary: Vec<SummaryRow>,
    pub config: Vec<Field>,
}

fn level(l: Option<VertexBackPressureLevel>) -> &'static str {
    match l {
        Some(VertexBackPressureLevel::Ok) => "OK",
        Some(VertexBackPressureLevel::Low) => "LOW",
        Some(VertexBackPressureLevel::High) => "HIGH",
        Some(VertexBackPressureLevel::Unknown) | None => "-",
    }
}

pub fn status(s: CheckpointStatsStatus) -> &'static str {
    match s {
        CheckpointStatsStatus::IN_PROGRESS => "IN_PROGRESS",
        CheckpointStatsStatus::COMPLETED => "COMPLETED",
        CheckpointStatsStatus::FAILED => "FAILED",
        CheckpointStatsStatus::Unknown => "UNKNOWN",
    }
}

/// An epoch-millisecond timestamp as UTC date and time (`2026-12-02 08:57:30.552 UTC`); `-`
/// for Flink's `-1`. UTC rather than the browser's zone: the same text natively and in tests.
pub fn timestamp(ms: i64) -> String {
    if ms < 0 {
        return "-".into();
    }
    let days = ms.div_euclid(86_400_000);
    let of_day = ms.rem_euclid(86_400_000);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}.{:03} UTC",
        of_day / 3_600_000,
        of_day / 60_000 % 60,
        of_day / 1_000 % 60,
        of_day % 1_000
    )
}

fn inflight(processed: u64, persisted: u64) -> String {
    format!("{} ({})", bytes(processed), bytes(persisted))
}

fn vertices(b: &JobBundle) -> Vec<VertexView> {
    let plan = b.job.plan.as_ref();
    b.job
        .vertices
        .iter()
        .map(|v| {
            let bp = b.backpressure.get(&v.id);
            let max = |f: fn(&barrierlab_engine::import::rest::SubtaskBackPressureInfo) -> f64| {
                bp.and_then(|bp| {
                    bp.subtasks
                        .iter()
                        .map(f)
                        .filter(|x| x.is_finite())
                        .reduce(f64::max)
                })
            };
            let inputs = plan
                .and_then(|p| p.nodes.iter().find(|n| n.id == v.id))
                .map(|n| {
                    n.inputs
                        .iter()
                        .map(|i| (b.vertex_name(&i.id).to_string(), i.ship_strategy.clone()))
                        .collect()
                })
                .unwrap_or_default();
            VertexView {
                id: v.id.clone(),
                name: v.name.clone(),
                parallelism: v.parallelism,
                status: v.status.clone(),
                backpressure: level(bp.and_then(|bp| bp.backpressure_level)).into(),
                backpressured_max: max(|s| s.ratio),
                busy_max: max(|s| s.busy_ratio),
                inputs,
            }
        })
        .collect()
}

fn history_row(c: &CheckpointStatistics, has_details: bool) -> HistoryRow {
    HistoryRow {
        id: c.id,
        status: status(c.status).into(),
        savepoint: c.is_savepoint,
        acknowledged: format!("{}/{}", c.num_acknowledged_subtasks, c.num_subtasks),
        trigger_time: timestamp(c.trigger_timestamp),
        latest_ack: timestamp(c.latest_ack_timestamp),
        end_to_end: rest_millis(c.end_to_end_duration),
        checkpointed_size: bytes(c.checkpointed_size),
        full_size: bytes(c.state_size),
        processed_persisted: inflight(c.processed_data, c.persisted_data),
        has_details,
    }
}

fn latest(c: &CheckpointStatistics) -> Vec<Field> {
    let mut f = vec![
        ("ID", c.id.to_string()),
        ("Trigger Time", timestamp(c.trigger_timestamp)),
        ("End to End Duration", rest_millis(c.end_to_end_duration)),
        ("Checkpointed Data Size", bytes(c.checkpointed_size)),
        ("Full Checkpoint Data Size", bytes(c.state_size)),
    ];
    if let Some(p) = &c.external_path {
        f.push(("Path", p.clone()));
    }
    if let Some(t) = c.failure_timestamp.filter(|t| *t >= 0) {
        f.push(("Failure Time", timestamp(t)));
    }
    if let Some(m) = &c.failure_message {
        f.push(("Cause", m.clone()));
    }
    f
}

/// `/checkpoints` with something to show: Flink answers a job that has not triggered a
/// checkpoint yet with zero counts and an empty history.
fn checkpoints(b: &JobBundle) -> Option<&CheckpointingStatistics> {
    b.checkpoints
        .as_ref()
        .filter(|c| c.counts.total > 0 || !c.history.is_empty())
}

fn overview(b: &JobBundle) -> Option<Overview> {
    let c = checkpoints(b)?;
    let n = &c.counts;
    let latest_of = |pick: fn(
        &barrierlab_engine::import::rest::LatestCheckpoints,
    ) -> Option<&CheckpointStatistics>| {
        c.latest.as_ref().and_then(pick).map(latest)
    };
    Some(Overview {
        counts: vec![
            ("Triggered", n.total.to_string()),
            ("In Progress", n.in_progress.to_string()),
            ("Completed", n.completed.to_string()),
            ("Failed", n.failed.to_string()),
            ("Restored", n.restored.to_string()),
        ],
        latest_completed: latest_of(|l| l.completed.as_ref()),
        latest_failed: latest_of(|l| l.failed.as_ref()),
        latest_savepoint: latest_of(|l| l.savepoint.as_ref()),
        latest_restored: c
            .latest
            .as_ref()
            .and_then(|l| l.restored.as_ref())
            .map(|r| {
                let mut f = vec![
                    ("ID", r.id.to_string()),
                    ("Restore Time", timestamp(r.restore_timestamp)),
                    (
                        "Type",
                        if r.is_savepoint {
                            "Savepoint"
                        } else {
                            "Checkpoint"
                        }
                        .into(),
                    ),
                ];
                if let Some(p) = &r.external_path {
                    f.push(("Path", p.clone()));
                }
                f
            }),
    })
}

fn summary_row(label: &'static str, s: &StatsSummaryDto, fmt: fn(f64) -> String) -> SummaryRow {
    let v = |x: f64| if x.is_finite() { fmt(x) } else { "-".into() };
    SummaryRow {
        label,
        values: [
            v(s.min),
            v(s.avg),
            v(s.max),
            v(s.p50),
            v(s.p90),
            v(s.p95),
            v(s.p99),
            v(s.p999),
        ],
    }
}

fn summary(b: &JobBundle) -> Vec<SummaryRow> {
    let Some(s) = checkpoints(b).and_then(|c| c.summary.as_ref()) else {
        return Vec::new();
    };
    let ms = |x: f64| rest_millis(x.round() as i64);
    let size = |x: f64| bytes(x.max(0.0).round() as u64);
    [
        (
            "End to End Duration",
            &s.end_to_end_duration,
            ms as fn(f64) -> String,
        ),
        ("Checkpointed Data Size", &s.checkpointed_size, size),
        ("Full Checkpoint Data Size", &s.state_size, size),
        ("Processed in-flight data", &s.processed_data, size),
        ("Persisted in-flight data", &s.persisted_data, size),
    ]
    .into_iter()
    .filter_map(|(label, dto, fmt)| dto.as_ref().map(|d| summary_row(label, d, fmt)))
    .collect()
}

fn config(b: &JobBundle) -> Vec<Field> {
    let Some(c) = &b.config else {
        return Vec::new();
    };
    let on = |x: bool| if x { "Enabled" } else { "Disabled" }.to_string();
    let mut f = vec![
        (
            "Checkpointing Mode",
            match c.mode.as_str() {
                "exactly_once" => "Exactly Once".into(),
                "at_least_once" => "At Least Once".into(),
                other => other.to_string(),
            },
        ),
        ("Checkpoint Storage", c.checkpoint_storage.clone()),
        ("State Backend", c.state_backend.clone()),
        ("Interval", rest_millis(c.interval)),
        ("Timeout", rest_millis(c.timeout)),
        (
            "Minimum Pause Between Checkpoints",
            rest_millis(c.min_pause),
        ),
        (
            "Maximum Concurrent Checkpoints",
            c.max_concurrent.to_string(),
        ),
        ("Unaligned Checkpoints", on(c.unaligned_checkpoints)),
    ];
    if c.unaligned_checkpoints {
        f.push((
            "Aligned Checkpoint Timeout",
            rest_millis(c.aligned_checkpoint_timeout),
        ));
    }
    if let Some(e) = &c.externalization {
        f.push((
            "Persist Checkpoints Externally",
            if !e.enabled {
                "Disabled".into()
            } else if e.delete_on_cancellation {
                "Enabled (delete on cancellation)".into()
            } else {
                "Enabled (retain on cancellation)".into()
            },
        ));
    }
    f.push((
        "Tolerable Failed Checkpoints",
        c.tolerable_failed_checkpoints.to_string(),
    ));
    f.push((
        "Checkpoints With Finished Tasks",
        on(c.checkpoints_after_tasks_finish),
    ));
    f.push(("Changelog state-backend", on(c.state_changelog_enabled)));
    f
}

/// The job's views from its bundle.
pub fn job_view(b: &JobBundle) -> JobView {
    JobView {
        name: b.job.name.clone(),
        job_id: b.job.jid.clone(),
        state: b.job.state.clone(),
        flink_version: b.flink_version().unwrap_or("unknown").to_string(),
        collected_at: b.header.collected_at.clone(),
        rest_url: b.header.rest_url.clone(),
        notes: b.notes.clone(),
        vertices: vertices(b),
        overview: overview(b),
        history: b
            .history()
            .iter()
            .map(|c| history_row(c, b.subtasks.contains_key(&c.id)))
            .collect(),
        summary: summary(b),
        config: config(b),
    }
}

/// The per-subtask details of checkpoint `id`, vertex by vertex in the job's order, subtasks by
/// index; empty when the bundle has none.
pub fn subtask_rows(b: &JobBundle, id: u64) -> Vec<SubtaskRow> {
    let Some(per_vertex) = b.subtasks.get(&id) else {
        return Vec::new();
    };
    let order = |vid: &str| {
        b.job
            .vertices
            .iter()
            .position(|v| v.id == vid)
            .unwrap_or(usize::MAX)
    };
    let mut vertices: Vec<_> = per_vertex.iter().collect();
    vertices.sort_by_key(|(vid, _)| order(vid));
    let ms = |x: Option<i64>| x.map_or_else(|| "-".into(), rest_millis);
    let mut rows = Vec::new();
    for (vid, details) in vertices {
        let vertex = b.vertex_name(vid).to_string();
        let mut subtasks: Vec<_> = details.subtasks.iter().collect();
        subtasks.sort_by_key(|s| s.index);
        for s in subtasks {
            let done = s.is_completed();
            rows.push(SubtaskRow {
                vertex: vertex.clone(),
                index: s.index,
                status: if done {
                    "COMPLETED".into()
                } else {
                    s.status.to_uppercase()
                },
                ack: s.ack_timestamp.map_or_else(|| "-".into(), timestamp),
                end_to_end: ms(s.end_to_end_duration),
                checkpointed_size: s.checkpointed_size.map_or_else(|| "-".into(), bytes),
                sync: ms(s.checkpoint.as_ref().map(|c| c.sync)),
                async_: ms(s.checkpoint.as_ref().map(|c| c.async_)),
                processed_persisted: s
                    .alignment
                    .as_ref()
                    .map_or_else(|| "-".into(), |a| inflight(a.processed, a.persisted)),
                alignment: ms(s.alignment.as_ref().map(|a| a.duration)),
                start_delay: ms(s.start_delay),
                unaligned: match s.unaligned_checkpoint {
                    Some(true) => "Yes".into(),
                    Some(false) => "No".into(),
                    None => "-".into(),
                },
            });
        }
    }
    rows
}
