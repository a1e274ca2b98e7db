//! The bundle `barrierlab collect` (and `scripts/collect.sh`) writes, and its reader.
//!
//! A bundle is one JSON object (docs/collect.md): a header under `barrierlab_bundle`, then
//! Flink's response bodies as Flink sent them, under the same keys as the simulator's
//! `run --format json` report where the two hold the same endpoint (`job`, `checkpoints`,
//! `config`, `details`, `subtasks`, `backpressure`, `metrics`). A request that failed leaves its
//! key out and is listed in the header instead.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::Deserialize;
use serde_json::Value;

use super::rest::{
    AggregatedMetric, CheckpointConfigInfo, CheckpointStatistics, CheckpointingStatistics,
    DashboardConfiguration, JobDetailsInfo, JobVertexBackPressureInfo, JobVertexDetailsInfo,
    Metric, TaskCheckpointStatisticsWithSubtaskDetails,
};

/// The key of the header; its presence tells a bundle from any other JSON.
pub const BUNDLE_KEY: &str = "barrierlab_bundle";

/// The bundle format this reader reads (and `collect` writes).
pub const FORMAT_VERSION: u32 = 1;

/// A request that failed while collecting: what was asked, the HTTP status if one came back,
/// and why (Flink's own message when it sent one).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct FailedRequest {
    pub request: String,
    #[serde(default)]
    pub status: Option<u16>,
    pub error: String,
}

/// A request left out on purpose, or whose failure is expected (the 404 Flink answers for a
/// checkpoint still in progress, or one gone from its history), with the reason.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct SkippedRequest {
    pub request: String,
    pub reason: String,
}

/// The bundle's header.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct BundleHeader {
    /// The bundle format ([`FORMAT_VERSION`]).
    pub format_version: u32,
    /// What wrote it: `barrierlab collect 0.1.0`, `scripts/collect.sh`.
    #[serde(default)]
    pub collector: String,
    /// The REST API's base URL, as given.
    #[serde(default)]
    pub rest_url: String,
    /// The job's id (`JobID`, 32 hex digits).
    pub job_id: String,
    /// When the collection started, RFC 3339 in UTC.
    #[serde(default)]
    pub collected_at: String,
    /// The same, in epoch milliseconds.
    #[serde(default)]
    pub collected_at_ms: Option<u64>,
    /// `flink-version` from `GET /config`; `None` when that request failed.
    #[serde(default)]
    pub flink_version: Option<String>,
    /// `--checkpoints N`: how many of the newest checkpoints were asked for in detail.
    #[serde(default)]
    pub checkpoints_requested: Option<u64>,
    #[serde(default)]
    pub failed: Vec<FailedRequest>,
    #[serde(default)]
    pub skipped: Vec<SkippedRequest>,
}

/// Per vertex (by `JobVertexID`), per subtask index, the metrics it answered.
pub type SubtaskMetrics = BTreeMap<String, BTreeMap<u32, Vec<Metric>>>;

/// Per checkpoint id, per `JobVertexID`: `/checkpoints/details/:cid/subtasks/:vid`.
pub type SubtaskDetails =
    BTreeMap<u64, BTreeMap<String, TaskCheckpointStatisticsWithSubtaskDetails>>;

/// The top level as it is read; [`read_bundle`] checks it into a [`JobBundle`].
#[derive(Deserialize)]
struct RawBundle {
    #[serde(rename = "barrierlab_bundle")]
    header: Option<BundleHeader>,
    flink_config: Option<DashboardConfiguration>,
    job: Option<JobDetailsInfo>,
    checkpoints: Option<CheckpointingStatistics>,
    config: Option<CheckpointConfigInfo>,
    #[serde(default)]
    details: BTreeMap<u64, CheckpointStatistics>,
    #[serde(default)]
    subtasks: SubtaskDetails,
    #[serde(default)]
    backpressure: BTreeMap<String, JobVertexBackPressureInfo>,
    #[serde(default)]
    metrics: SubtaskMetrics,
    #[serde(default)]
    metrics_aggregated: BTreeMap<String, Vec<AggregatedMetric>>,
}

/// A bundle, read and checked: a real Flink job's checkpoint statistics, typed.
#[derive(Debug, Clone, PartialEq)]
pub struct JobBundle {
    pub header: BundleHeader,
    /// `GET /config`.
    pub flink_config: Option<DashboardConfiguration>,
    /// `GET /jobs/:id`: vertices, parallelism, the plan.
    pub job: JobDetailsInfo,
    /// `GET /jobs/:id/checkpoints`; `None` when the job does not checkpoint (Flink answers 404)
    /// or the request failed.
    pub checkpoints: Option<CheckpointingStatistics>,
    /// `GET /jobs/:id/checkpoints/config`; `None` likewise.
    pub config: Option<CheckpointConfigInfo>,
    /// `GET /jobs/:id/checkpoints/details/:cid`, by checkpoint id.
    pub details: BTreeMap<u64, CheckpointStatistics>,
    /// `GET /jobs/:id/checkpoints/details/:cid/subtasks/:vid`.
    pub subtasks: SubtaskDetails,
    /// `GET /jobs/:id/vertices/:vid/backpressure`, by `JobVertexID`.
    pub backpressure: BTreeMap<String, JobVertexBackPressureInfo>,
    /// `GET /jobs/:id/vertices/:vid/subtasks/:n/metrics?get=…`.
    pub metrics: SubtaskMetrics,
    /// `GET /jobs/:id/vertices/:vid/subtasks/metrics?get=…`, by `JobVertexID`.
    pub metrics_aggregated: BTreeMap<String, Vec<AggregatedMetric>>,
    /// What the reader noticed without refusing the bundle: failed or skipped requests, data
    /// about vertices the job does not have, a job without checkpoints.
    pub notes: Vec<String>,
}

impl JobBundle {
    /// The vertex with this `JobVertexID`.
    pub fn vertex(&self, id: &str) -> Option<&JobVertexDetailsInfo> {
        self.job.vertices.iter().find(|v| v.id == id)
    }

    /// The vertex's name as the Web UI shows it, or the id itself for an unknown vertex.
    pub fn vertex_name<'a>(&'a self, id: &'a str) -> &'a str {
        self.vertex(id).map_or(id, |v| v.name.as_str())
    }

    /// Flink's checkpoint history, newest first (empty without checkpoints).
    pub fn history(&self) -> &[CheckpointStatistics] {
        self.checkpoints.as_ref().map_or(&[], |c| &c.history[..])
    }

    /// One subtask's metric as a number, e.g. `busyTimeMsPerSecond`.
    pub fn subtask_metric(&self, vertex: &str, subtask: u32, metric: &str) -> Option<f64> {
        self.metrics
            .get(vertex)?
            .get(&subtask)?
            .iter()
            .find(|m| m.id == metric)?
            .value_f64()
    }

    /// The Flink version the bundle was collected from, when known.
    pub fn flink_version(&self) -> Option<&str> {
        self.header.flink_version.as_deref()
    }
}

/// Why a text is not a bundle this reader can use. Each message says what was found and what to
/// do; none loses anything (the reader never changes its input).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BundleError {
    /// Nothing but whitespace.
    Empty,
    /// Valid JSON up to where it stops: the file was cut off.
    Truncated { line: usize, column: usize },
    /// Not JSON at all (`what` names what it looks like, when it can tell).
    NotJson {
        line: usize,
        column: usize,
        detail: String,
        what: Option<&'static str>,
    },
    /// JSON, but not a bundle: `what` says what it seems to be instead.
    Foreign { what: String },
    /// A bundle collected from Flink 1.x, whose REST shapes this reader does not take.
    Flink1 { version: String },
    /// A bundle of a newer (or unknown) format.
    UnsupportedFormat { version: u32 },
    /// The job itself (`/jobs/:id`) is missing: nothing to show.
    NoJob { reason: String },
    /// A section does not have the shape Flink gives it.
    Invalid { section: String, message: String },
}

impl fmt::Display for BundleError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Self::Empty => write!(f, "the file is empty: expected a bundle written by `barrierlab collect` or scripts/collect.sh"),
            Self::Truncated { line, column } => write!(
                f,
                "the JSON stops early (at line {line}, column {column}): the bundle was cut off \
                 while it was written or copied; collect it again"
            ),
            Self::NotJson { line, column, detail, what } => match what {
                Some(what) => write!(
                    f,
                    "this is {what}, not JSON: expected a bundle written by `barrierlab collect` \
                     or scripts/collect.sh"
                ),
                None => write!(f, "not JSON (line {line}, column {column}: {detail})"),
            },
            Self::Foreign { what } => write!(
                f,
                "not a Barrier Lab bundle: {what}. A bundle is written by `barrierlab collect \
                 --rest URL --job ID` or scripts/collect.sh (docs/collect.md)"
            ),
            Self::Flink1 { version } => write!(
                f,
                "this bundle was collected from Flink {version}: Barrier Lab reads Flink 2.x \
                 (its REST API's shapes and checkpointing differ from 1.x)"
            ),
            Self::UnsupportedFormat { version } => write!(
                f,
                "bundle format {version} is not one this Barrier Lab reads (it reads format \
                 {FORMAT_VERSION}); a newer Barrier Lab wrote it"
            ),
            Self::NoJob { reason } => write!(f, "the bundle has no job (GET /jobs/:id): {reason}"),
            Self::Invalid { section, message } => {
                write!(f, "the bundle's `{section}` is not what Flink sends: {message}")
            }
        }
    }
}

impl std::error::Error for BundleError {}

/// A request as messages show it: the metrics query (`?get=busyTimeMsPerSecond,…`, seven names
/// long) shortened to its first name.
pub fn short_request(request: &str) -> String {
    match request.split_once("?get=") {
        Some((path, names)) if names.contains(',') => {
            let first = names.split(',').next().unwrap_or("");
            format!("{path}?get={first},…")
        }
        _ => request.to_string(),
    }
}

/// Reads and checks a bundle. Fast on large bundles (one typed pass; 10 000 checkpoints of
/// history read in a fraction of a second in release builds); only a text that fails that pass
/// is looked at again, to say where and why.
pub fn read_bundle(text: &str) -> Result<JobBundle, BundleError> {
    if text.trim().is_empty() {
        return Err(BundleError::Empty);
    }
    match serde_json::from_str::<RawBundle>(text) {
        Ok(raw) => match raw.header {
            Some(_) => check(raw),
            None => Err(diagnose(text)),
        },
        Err(e) => Err(diagnose_error(text, e)),
    }
}

fn check(raw: RawBundle) -> Result<JobBundle, BundleError> {
    let header = raw.header.expect("checked by the caller");
    let mut notes = Vec::new();
    check_header(&header, &mut notes)?;
    let Some(job) = raw.job else {
        let reason = header
            .failed
            .iter()
            .find(|f| f.request.trim_end_matches('/') == format!("/jobs/{}", header.job_id))
            .map(|f| format!("the request failed at collection: {}", f.error))
            .unwrap_or_else(|| "the key `job` is missing".to_string());
        return Err(BundleError::NoJob { reason });
    };
    if job.jid != header.job_id {
        return Err(BundleError::Invalid {
            section: "job".into(),
            message: format!(
                "it describes job {} but the header says {}",
                job.jid, header.job_id
            ),
        });
    }
    for (id, d) in &raw.details {
        if d.id != *id {
            return Err(BundleError::Invalid {
                section: format!("details.{id}"),
                message: format!("it holds checkpoint {}", d.id),
            });
        }
    }
    for (id, per_vertex) in &raw.subtasks {
        for (vertex, s) in per_vertex {
            if s.task.id != *id {
                return Err(BundleError::Invalid {
                    section: format!("subtasks.{id}.{vertex}"),
                    message: format!("it holds checkpoint {}", s.task.id),
                });
            }
        }
    }

    for f in &header.failed {
        let status = f.status.map(|s| format!("HTTP {s}: ")).unwrap_or_default();
        notes.push(format!(
            "not collected: GET {} ({status}{})",
            short_request(&f.request),
            f.error
        ));
    }
    for s in &header.skipped {
        notes.push(format!(
            "skipped: GET {} ({})",
            short_request(&s.request),
            s.reason
        ));
    }
    if job.vertices.is_empty() {
        notes.push("the job has no vertices".into());
    }
    let known: BTreeSet<&str> = job.vertices.iter().map(|v| v.id.as_str()).collect();
    let mut unknown = BTreeSet::new();
    for d in raw.details.values() {
        unknown.extend(d.tasks.keys().filter(|v| !known.contains(v.as_str())));
    }
    for per_vertex in raw.subtasks.values() {
        unknown.extend(per_vertex.keys().filter(|v| !known.contains(v.as_str())));
    }
    unknown.extend(
        raw.backpressure
            .keys()
            .filter(|v| !known.contains(v.as_str())),
    );
    unknown.extend(raw.metrics.keys().filter(|v| !known.contains(v.as_str())));
    unknown.extend(
        raw.metrics_aggregated
            .keys()
            .filter(|v| !known.contains(v.as_str())),
    );
    if !unknown.is_empty() {
        let list: Vec<&str> = unknown.iter().map(|s| s.as_str()).collect();
        notes.push(format!(
            "statistics for vertices the job does not list (kept, not shown): {}",
            list.join(", ")
        ));
    }
    let parallelism: BTreeMap<&str, u32> = job
        .vertices
        .iter()
        .map(|v| (v.id.as_str(), v.parallelism))
        .collect();
    for (id, per_vertex) in &raw.subtasks {
        for (vertex, s) in per_vertex {
            if let Some(&p) = parallelism.get(vertex.as_str()) {
                if s.subtasks.len() != p as usize {
                    notes.push(format!(
                        "checkpoint {id}: {} subtasks for vertex {vertex}, whose parallelism is \
                         {p} (rescaled?)",
                        s.subtasks.len()
                    ));
                }
            }
        }
    }
    match &raw.checkpoints {
        None if raw.config.is_none() => notes.push(
            "no checkpoint statistics: the job does not checkpoint, or Flink did not answer".into(),
        ),
        None => notes.push("no checkpoint statistics (GET /jobs/:id/checkpoints failed)".into()),
        Some(c) if c.history.is_empty() => {
            notes.push("the job has no checkpoints yet: Flink's history is empty".into())
        }
        Some(_) => {}
    }
    Ok(JobBundle {
        header,
        flink_config: raw.flink_config,
        job,
        checkpoints: raw.checkpoints,
        config: raw.config,
        details: raw.details,
        subtasks: raw.subtasks,
        backpressure: raw.backpressure,
        metrics: raw.metrics,
        metrics_aggregated: raw.metrics_aggregated,
        notes,
    })
}

/// The format version and the Flink version: refuses what this reader cannot read.
fn check_header(header: &BundleHeader, notes: &mut Vec<String>) -> Result<(), BundleError> {
    if header.format_version != FORMAT_VERSION {
        return Err(BundleError::UnsupportedFormat {
            version: header.format_version,
        });
    }
    match header.flink_version.as_deref().map(str::trim) {
        None | Some("") => notes.push(
            "the Flink version is unknown (GET /config was not collected); read as Flink 2.x"
                .into(),
        ),
        Some(v) => match v.split('.').next().and_then(|m| m.parse::<u32>().ok()) {
            Some(0 | 1) => {
                return Err(BundleError::Flink1 {
                    version: v.to_string(),
                })
            }
            Some(2) => {}
            Some(_) => notes.push(format!(
                "collected from Flink {v}, newer than the 2.x this reader knows; read as 2.x"
            )),
            None => notes.push(format!(
                "the Flink version '{v}' is not a version number; read as Flink 2.x"
            )),
        },
    }
    Ok(())
}

/// The typed pass failed: say where and why.
fn diagnose_error(text: &str, e: serde_json::Error) -> BundleError {
    use serde_json::error::Category;
    match e.classify() {
        Category::Eof => BundleError::Truncated {
            line: e.line(),
            column: e.column(),
        },
        Category::Syntax | Category::Io => not_json(text, &e),
        Category::Data => diagnose(text),
    }
}

fn not_json(text: &str, e: &serde_json::Error) -> BundleError {
    let head = text.trim_start();
    let lower: String = head
        .chars()
        .take(64)
        .collect::<String>()
        .to_ascii_lowercase();
    let what = if lower.starts_with("<!doctype html") || lower.starts_with("<html") {
        Some("an HTML page (perhaps the Flink Web UI's page rather than its REST API's JSON)")
    } else if lower.starts_with('<') {
        Some("XML or HTML")
    } else if head.starts_with("#!") || lower.starts_with("set -") {
        Some("a shell script")
    } else if lower.starts_with("---") || lower.contains(": ") && !lower.starts_with('{') {
        Some("YAML or plain text (a Flink config.yaml?)")
    } else {
        None
    };
    // Text in the detail is the parser's message; the offending input is not echoed (it may be
    // anything, markup included).
    let detail = e.to_string();
    let detail = detail
        .split(" at line ")
        .next()
        .unwrap_or(&detail)
        .to_string();
    BundleError::NotJson {
        line: e.line(),
        column: e.column(),
        detail,
        what,
    }
}

/// Valid JSON that the typed pass refused or that has no header: what is it?
fn diagnose(text: &str) -> BundleError {
    let value: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => return diagnose_error_untyped(text, e),
    };
    let Some(obj) = value.as_object() else {
        let kind = match &value {
            Value::Array(a) => format!("a JSON array of {} items", a.len()),
            Value::String(_) => "a JSON string".into(),
            Value::Number(_) => "a JSON number".into(),
            Value::Bool(_) => "a JSON boolean".into(),
            _ => "JSON null".into(),
        };
        return BundleError::Foreign { what: kind };
    };
    let Some(header) = obj.get(BUNDLE_KEY) else {
        return BundleError::Foreign {
            what: foreign_object(obj),
        };
    };
    let header = match BundleHeader::deserialize(header) {
        Ok(h) => h,
        Err(e) => {
            // A Flink 1.x or newer-format header may differ in other fields: say that first.
            if let Some(v) = header.get("format_version").and_then(Value::as_u64) {
                if v != FORMAT_VERSION as u64 {
                    return BundleError::UnsupportedFormat {
                        version: u32::try_from(v).unwrap_or(u32::MAX),
                    };
                }
            }
            return BundleError::Invalid {
                section: BUNDLE_KEY.into(),
                message: e.to_string(),
            };
        }
    };
    if let Err(e) = check_header(&header, &mut Vec::new()) {
        return e;
    }
    if let Some(e) = first_bad_section(obj) {
        return e;
    }
    // Every section reads alone: only the whole failed (cannot happen with these types, but
    // say something true rather than panic).
    BundleError::Invalid {
        section: "(top level)".into(),
        message: "the bundle does not read as a whole".into(),
    }
}

fn diagnose_error_untyped(text: &str, e: serde_json::Error) -> BundleError {
    if e.classify() == serde_json::error::Category::Eof {
        BundleError::Truncated {
            line: e.line(),
            column: e.column(),
        }
    } else {
        not_json(text, &e)
    }
}

fn invalid(section: String, e: serde_json::Error) -> BundleError {
    BundleError::Invalid {
        section,
        message: e.to_string(),
    }
}

/// Reads `value` as `T`, naming `section` on failure.
fn section<'a, T: Deserialize<'a>>(section: &str, value: &'a Value) -> Result<T, BundleError> {
    T::deserialize(value).map_err(|e| invalid(section.to_string(), e))
}

/// Each section on its own, entry by entry, so the message names the checkpoint and vertex.
fn first_bad_section(obj: &serde_json::Map<String, Value>) -> Option<BundleError> {
    fn entries<'a>(name: &str, v: &'a Value) -> Result<Vec<(String, &'a Value)>, BundleError> {
        match v {
            Value::Object(m) => Ok(m.iter().map(|(k, v)| (format!("{name}.{k}"), v)).collect()),
            Value::Null => Ok(Vec::new()),
            other => Err(BundleError::Invalid {
                section: name.to_string(),
                message: format!("expected an object keyed by id, found {}", kind(other)),
            }),
        }
    }
    let check = || -> Result<(), BundleError> {
        if let Some(v) = obj.get("flink_config") {
            section::<Option<DashboardConfiguration>>("flink_config", v)?;
        }
        if let Some(v) = obj.get("job") {
            section::<Option<JobDetailsInfo>>("job", v)?;
        }
        if let Some(v) = obj.get("checkpoints") {
            section::<Option<CheckpointingStatistics>>("checkpoints", v)?;
        }
        if let Some(v) = obj.get("config") {
            section::<Option<CheckpointConfigInfo>>("config", v)?;
        }
        if let Some(v) = obj.get("details") {
            for (name, d) in entries("details", v)? {
                section::<CheckpointStatistics>(&name, d)?;
                let id = name.trim_start_matches("details.");
                if id.parse::<u64>().is_err() {
                    return Err(BundleError::Invalid {
                        section: name.clone(),
                        message: format!("'{id}' is not a checkpoint id"),
                    });
                }
            }
        }
        if let Some(v) = obj.get("subtasks") {
            for (name, per_vertex) in entries("subtasks", v)? {
                for (name, s) in entries(&name, per_vertex)? {
                    section::<TaskCheckpointStatisticsWithSubtaskDetails>(&name, s)?;
                }
            }
        }
        if let Some(v) = obj.get("backpressure") {
            for (name, b) in entries("backpressure", v)? {
                section::<JobVertexBackPressureInfo>(&name, b)?;
            }
        }
        if let Some(v) = obj.get("metrics") {
            for (name, per_subtask) in entries("metrics", v)? {
                for (name, m) in entries(&name, per_subtask)? {
                    section::<Vec<Metric>>(&name, m)?;
                }
            }
        }
        if let Some(v) = obj.get("metrics_aggregated") {
            for (name, m) in entries("metrics_aggregated", v)? {
                section::<Vec<AggregatedMetric>>(&name, m)?;
            }
        }
        Ok(())
    };
    check().err()
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// What a JSON object without a header seems to be.
fn foreign_object(obj: &serde_json::Map<String, Value>) -> String {
    let has = |k: &str| obj.contains_key(k);
    if has("fingerprint") && has("checkpoints") && has("details") {
        "it is a simulator report (`barrierlab run --format json`), not statistics collected \
         from Flink"
            .into()
    } else if has("operators") && (has("edges") || has("config")) {
        "it is a Barrier Lab scenario (open it in the editor, or `barrierlab run FILE`)".into()
    } else if has("jid") && has("vertices") {
        "it is a single `GET /jobs/:id` answer; the bundle holds that and the checkpoint \
         statistics beside it"
            .into()
    } else if has("counts") && has("history") {
        "it is a single `GET /jobs/:id/checkpoints` answer; the bundle holds that and the job \
         beside it"
            .into()
    } else if let Some(errors) = obj.get("errors").and_then(Value::as_array) {
        let first = errors
            .first()
            .and_then(Value::as_str)
            .and_then(|s| s.lines().next())
            .unwrap_or("");
        format!("it is an error answer from Flink's REST API (\"{first}\")")
    } else if has("jobs") {
        "it is a `GET /jobs` (or /jobs/overview) answer: pick a job id from it and collect that \
         job"
        .into()
    } else {
        let keys: Vec<&str> = obj.keys().take(8).map(String::as_str).collect();
        if keys.is_empty() {
            "it is an empty JSON object".into()
        } else {
            format!(
                "it has no `{BUNDLE_KEY}` header (its top-level keys: {})",
                keys.join(", ")
            )
        }
    }
}
