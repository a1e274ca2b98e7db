//! The job's REST shapes beside the checkpoint ones: `/jobs/:id` in brief (`JobDetailsInfo`) and
//! `/jobs/:id/vertices/:vid/backpressure` (`JobVertexBackPressureInfo`).

use std::collections::BTreeMap;

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use super::{JobStatus, Simulation};

/// A status as Flink spells it (`RUNNING`), not as the enum's derived form would (`Running`).
fn flink_name<S: Serializer>(status: &JobStatus, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(status.flink_name())
}

/// `JobDetailsInfo.JobVertexDetailsInfo`, the fields the playground reports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct JobVertexDetailsInfo {
    /// The `JobVertexID`, which keys every other REST map.
    pub id: String,
    pub name: String,
    pub parallelism: u32,
    #[serde(rename = "maxParallelism")]
    pub max_parallelism: u32,
    /// Flink's `ExecutionState`; here every vertex reports the job's status.
    #[serde(serialize_with = "flink_name")]
    pub status: JobStatus,
    /// When the subtasks were RUNNING (ms).
    #[serde(rename = "start-time")]
    pub start_time: u64,
}

/// `JobDetailsInfo.timestamps`: when the job entered each status (ms); only RUNNING is kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct JobStatusTimestamps {
    #[serde(rename = "RUNNING")]
    pub running: u64,
}

/// `JobDetailsInfo` in brief: the job's id, name and state, and its vertices.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct JobDetailsInfo {
    pub jid: String,
    pub name: String,
    #[serde(serialize_with = "flink_name")]
    pub state: JobStatus,
    #[serde(rename = "start-time")]
    pub start_time: u64,
    pub now: u64,
    pub timestamps: JobStatusTimestamps,
    /// Not Flink's: when the first deployment's tasks were all RUNNING (the harness measures the
    /// first trigger from there).
    #[serde(rename = "first-tasks-running")]
    pub first_tasks_running: Option<u64>,
    pub vertices: Vec<JobVertexDetailsInfo>,
}

/// `JobVertexBackPressureInfo.VertexBackPressureLevel`: OK ≤ 10 %, LOW ≤ 50 %, HIGH.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum VertexBackPressureLevel {
    Ok,
    Low,
    High,
}

impl VertexBackPressureLevel {
    /// The level of a back-pressured share given in thousandths.
    pub fn of(ratio_milli: u64) -> Self {
        if ratio_milli <= 100 {
            Self::Ok
        } else if ratio_milli <= 500 {
            Self::Low
        } else {
            Self::High
        }
    }

    /// The REST spelling: `ok`, `low`, `high`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::Low => "low",
            Self::High => "high",
        }
    }
}

/// The REST spelling of [`VertexBackPressureLevel::of`].
pub fn backpressure_level(ratio_milli: u64) -> &'static str {
    VertexBackPressureLevel::of(ratio_milli).as_str()
}

/// A level under both names Flink writes it with, `backpressure-level` and `backpressureLevel`:
/// one value, so the two can never disagree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BackPressureLevelFields(pub VertexBackPressureLevel);

impl Serialize for BackPressureLevelFields {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(2))?;
        map.serialize_entry("backpressure-level", &self.0)?;
        map.serialize_entry("backpressureLevel", &self.0)?;
        map.end()
    }
}

/// `JobVertexBackPressureInfo.VertexBackPressureStatus`: the sample is always current here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum VertexBackPressureStatus {
    Ok,
}

/// `JobVertexBackPressureInfo.SubtaskBackPressureInfo`, with the subtask's record counts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SubtaskBackPressureInfo {
    pub subtask: u32,
    #[serde(rename = "attempt-number")]
    pub attempt_number: u32,
    #[serde(flatten)]
    pub level: BackPressureLevelFields,
    /// The back-pressured share of the window.
    pub ratio: f64,
    #[serde(rename = "idleRatio")]
    pub idle_ratio: f64,
    #[serde(rename = "busyRatio")]
    pub busy_ratio: f64,
    #[serde(rename = "records-in")]
    pub records_in: u64,
    #[serde(rename = "records-out")]
    pub records_out: u64,
}

/// `JobVertexBackPressureInfo`: the vertex's worst subtask sets its level.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JobVertexBackPressureInfo {
    pub status: VertexBackPressureStatus,
    #[serde(flatten)]
    pub level: BackPressureLevelFields,
    #[serde(rename = "end-timestamp")]
    pub end_timestamp: u64,
    pub subtasks: Vec<SubtaskBackPressureInfo>,
}

impl Simulation {
    /// `/jobs/:id` in brief: the job's id, name and state, when it and its tasks started
    /// (`vertices[].start-time` is when the subtasks were RUNNING), and the vertices with their
    /// `JobVertexID`s, which key every other REST map.
    pub fn job_info(&self) -> JobDetailsInfo {
        let ids = self.job_vertex_ids();
        let vertices = self
            .graph
            .vertices
            .iter()
            .map(|v| JobVertexDetailsInfo {
                id: ids[v.id as usize].clone(),
                name: v.name.clone(),
                parallelism: v.parallelism,
                max_parallelism: v.max_parallelism,
                status: self.status,
                start_time: self.tasks_running_at / 1000,
            })
            .collect();
        JobDetailsInfo {
            jid: self.coordinator.job_id().to_string(),
            name: self.scenario.name.clone(),
            state: self.status,
            start_time: 0,
            now: self.now / 1000,
            timestamps: JobStatusTimestamps { running: 0 },
            first_tasks_running: self.first_tasks_running_at.map(|t| t / 1000),
            vertices,
        }
    }

    /// `/jobs/:id/vertices/:vid/backpressure` for every vertex, by `JobVertexID`. Like Flink's
    /// handler it reads the tasks' gauges (`backPressuredTimeMsPerSecond`, `idleTimeMsPerSecond`,
    /// `busyTimeMsPerSecond`): the mean over up to 60 s of 5 s slots (task/timer_gauge.rs), not
    /// the last second. The playground's live views read the seconds instead.
    pub fn backpressure(&self) -> BTreeMap<String, JobVertexBackPressureInfo> {
        let ids = self.job_vertex_ids();
        let mut out = BTreeMap::new();
        for v in &self.graph.vertices {
            let mut worst = 0;
            let subtasks = self
                .vertex_tasks(v.id)
                .map(|t| {
                    let g = t.time.gauges_at(self.now);
                    let bp_milli = g.backpressured;
                    worst = worst.max(bp_milli);
                    SubtaskBackPressureInfo {
                        subtask: t.id.subtask,
                        attempt_number: 0,
                        level: BackPressureLevelFields(VertexBackPressureLevel::of(bp_milli)),
                        ratio: bp_milli as f64 / 1000.0,
                        idle_ratio: g.idle as f64 / 1000.0,
                        busy_ratio: g.busy() as f64 / 1000.0,
                        records_in: t.records_in,
                        records_out: t.records_out,
                    }
                })
                .collect();
            out.insert(
                ids[v.id as usize].clone(),
                JobVertexBackPressureInfo {
                    status: VertexBackPressureStatus::Ok,
                    level: BackPressureLevelFields(VertexBackPressureLevel::of(worst)),
                    end_timestamp: self.now / 1000,
                    subtasks,
                },
            );
        }
        out
    }
}

/// One entry of `/jobs/:id/vertices/:vid/subtasks/:n/metrics`: Flink sends values as strings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Metric {
    pub id: String,
    pub value: String,
}

impl Simulation {
    /// Per vertex (by `JobVertexID`) and subtask, the gauges of each input gate's
    /// `BufferDebloater` (`Shuffle.Netty.Input.<gate>.debloatedBufferSize` and
    /// `.estimatedTimeToConsumeBuffersMs`); empty without debloating.
    pub fn subtask_metrics(&self) -> BTreeMap<String, Vec<Vec<Metric>>> {
        let mut out = BTreeMap::new();
        if !self.net.debloating() {
            return out;
        }
        let ids = self.job_vertex_ids();
        for v in &self.graph.vertices {
            let subtasks: Vec<Vec<Metric>> = self
                .vertex_tasks(v.id)
                .map(|t| {
                    let mut metrics = Vec::new();
                    for (i, &gate) in t.input_gates.iter().enumerate() {
                        let Some((size, time)) = self.net.debloater_gauges(gate) else {
                            continue;
                        };
                        let prefix = format!("Shuffle.Netty.Input.{i}");
                        metrics.push(Metric {
                            id: format!("{prefix}.debloatedBufferSize"),
                            value: size.to_string(),
                        });
                        metrics.push(Metric {
                            id: format!("{prefix}.estimatedTimeToConsumeBuffersMs"),
                            value: (time / 1000).to_string(),
                        });
                    }
                    metrics
                })
                .collect();
            if subtasks.iter().any(|m| !m.is_empty()) {
                out.insert(ids[v.id as usize].clone(), subtasks);
            }
        }
        out
    }
}
