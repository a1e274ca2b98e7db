//! `barrierlab collect`: a live Flink 2.x REST API into one bundle (docs/collect.md), and
//! `collect --check FILE`, which reads a bundle back with the engine's reader.
//!
//! Flink's bodies go into the bundle byte for byte (`RawValue`); only the header is ours. A
//! request that fails is listed in the header and on stderr and the rest goes on; only a job
//! that cannot be read at all (`GET /jobs/:id`) leaves nothing usable, and then nothing is
//! written and the exit status is 1.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use barrierlab_engine::import::rest::{COLLECTED_METRICS, OPTIONAL_METRICS};
use barrierlab_engine::import::{read_bundle, short_request, JobBundle, FORMAT_VERSION};
use barrierlab_engine::types::{parse_duration, MICROS_PER_MS};
use clap::Args;

use crate::explain::printable;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

#[derive(Args)]
pub struct CollectArgs {
    /// The REST API's base URL: the JobManager's rest.address and rest.port
    /// (http://localhost:8081), or a proxy's URL in front of it.
    #[arg(long, value_name = "URL", required_unless_present = "check")]
    rest: Option<String>,
    /// The job's id: 32 hex digits, as the Web UI and `GET /jobs` show it.
    #[arg(long, value_name = "ID", required_unless_present = "check")]
    job: Option<String>,
    /// How many of the newest checkpoints in Flink's history to collect in detail (per vertex and
    /// subtask). Flink keeps web.checkpoints.history of them (10 by default).
    #[arg(long, value_name = "N", default_value_t = 10)]
    checkpoints: usize,
    /// Where to write the bundle (default: stdout). Written whole or not at all.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// How long one request may take, e.g. 500ms, 10s, 1min.
    #[arg(long, value_name = "DURATION", default_value = "10s")]
    timeout: String,
    /// Requests in flight at once.
    #[arg(long, value_name = "N", default_value_t = 4)]
    parallel: usize,
    /// Read a bundle back instead of collecting one: what it holds, and exit status 1 when it
    /// cannot be used (truncated, not a bundle, Flink 1.x, no job).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["rest", "job", "out"])]
    check: Option<PathBuf>,
}

/// After this many requests in a row fail without an HTTP answer (timeout, refused), the rest
/// are not sent: the endpoint is gone, and each would wait out its timeout.
const GIVE_UP_AFTER: usize = 3;
/// Rounds of asking again for metrics Flink did not have yet, and the pause before each. Flink's
/// MetricFetcher fetches on request, at most every metrics.fetcher.update-interval (10 s), and
/// answers from what it has: the first request after a quiet spell may find nothing.
const METRIC_RETRIES: usize = 2;
const METRIC_RETRY_PAUSE: Duration = Duration::from_millis(1500);
/// Flink's answers are read up to this size (ureq's default, 10 MB, is too small for a long
/// checkpoint history of a wide job).
const BODY_LIMIT: u64 = 1 << 30;

pub fn run(args: CollectArgs) -> Result<(), String> {
    if let Some(path) = &args.check {
        return check(path);
    }
    let (Some(rest), Some(job)) = (&args.rest, &args.job) else {
        return Err("collect needs --rest URL and --job ID (or --check FILE)".into());
    };
    let base = base_url(rest)?;
    let job = job.trim().to_ascii_lowercase();
    if job.len() != 32 || !job.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!(
            "'{job}' is not a Flink job id (32 hex digits; `GET {base}/jobs` lists the jobs)"
        ));
    }
    let timeout = parse_duration(&args.timeout).map_err(|e| format!("--timeout: {e}"))?;
    if timeout == 0 {
        return Err("--timeout must be more than 0".into());
    }
    let timeout = Duration::from_micros(timeout.max(MICROS_PER_MS));
    let collector = Collector::new(base, job, timeout, args.parallel.clamp(1, 64));
    let bundle = collector.collect(args.checkpoints)?;
    let text = serde_json::to_string_pretty(&bundle).map_err(|e| e.to_string())? + "\n";
    match &args.out {
        Some(path) => {
            // Whole or not at all: a half-written bundle would read as truncated.
            let tmp = path.with_extension("json.partial");
            std::fs::write(&tmp, &text)
                .and_then(|()| std::fs::rename(&tmp, path))
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            eprintln!("barrierlab collect: wrote {}", path.display());
        }
        None => print!("{text}"),
    }
    Ok(())
}

/// `http://host:port` without a trailing slash; a bare `host:port` gets `http://`.
fn base_url(rest: &str) -> Result<String, String> {
    let rest = rest.trim().trim_end_matches('/');
    if rest.is_empty() {
        return Err("--rest: give the REST API's URL, e.g. http://localhost:8081".into());
    }
    if rest.starts_with("http://") || rest.starts_with("https://") {
        Ok(rest.to_string())
    } else if rest.contains("://") {
        Err(format!(
            "--rest {rest}: only http:// and https:// URLs are supported"
        ))
    } else {
        Ok(format!("http://{rest}"))
    }
}

// ------------------------------------------------------------------------------------------
// The bundle as written
// ------------------------------------------------------------------------------------------

#[derive(Serialize, Clone)]
struct FailedRequest {
    request: String,
    status: Option<u16>,
    error: String,
}

#[derive(Serialize, Clone)]
struct SkippedRequest {
    request: String,
    reason: String,
}

#[derive(Serialize)]
struct Header {
    format_version: u32,
    collector: String,
    rest_url: String,
    job_id: String,
    collected_at: String,
    collected_at_ms: u64,
    flink_version: Option<String>,
    checkpoints_requested: usize,
    failed: Vec<FailedRequest>,
    skipped: Vec<SkippedRequest>,
}

type Raw = Box<RawValue>;

#[derive(Serialize)]
struct Bundle {
    barrierlab_bundle: Header,
    #[serde(skip_serializing_if = "Option::is_none")]
    flink_config: Option<Raw>,
    job: Raw,
    #[serde(skip_serializing_if = "Option::is_none")]
    checkpoints: Option<Raw>,
    #[serde(skip_serializing_if = "Option::is_none")]
    config: Option<Raw>,
    details: BTreeMap<u64, Raw>,
    subtasks: BTreeMap<u64, BTreeMap<String, Raw>>,
    backpressure: BTreeMap<String, Raw>,
    metrics: BTreeMap<String, BTreeMap<u32, Raw>>,
    metrics_aggregated: BTreeMap<String, Raw>,
}

// ------------------------------------------------------------------------------------------
// Requests
// ------------------------------------------------------------------------------------------

/// What one GET brought back.
enum Answer {
    /// 2xx with a JSON body.
    Json(Raw),
    /// An HTTP answer that is not a 2xx JSON body: the status and Flink's message.
    Http { status: u16, message: String },
    /// No HTTP answer: timeout, connection refused, …
    Transport(String),
    /// Not sent: the endpoint had stopped answering.
    NotSent,
}

impl Answer {
    fn status(&self) -> Option<u16> {
        match self {
            Self::Http { status, .. } => Some(*status),
            _ => None,
        }
    }

    fn why(&self) -> String {
        match self {
            Self::Json(_) => "ok".into(),
            Self::Http { status, message } => format!("HTTP {status}: {message}"),
            Self::Transport(message) => message.clone(),
            Self::NotSent => format!(
                "not requested: the REST API stopped answering ({GIVE_UP_AFTER} requests in a \
                 row failed)"
            ),
        }
    }
}

struct Collector {
    agent: ureq::Agent,
    base: String,
    job: String,
    timeout: Duration,
    parallel: usize,
    transport_failures_in_a_row: AtomicUsize,
    failed: Mutex<Vec<FailedRequest>>,
    skipped: Mutex<Vec<SkippedRequest>>,
}

/// The first line of Flink's `{"errors": ["…"]}`, without the exception's class name and stack.
fn flink_message(body: &str) -> String {
    #[derive(Deserialize)]
    struct ErrorResponseBody {
        errors: Vec<String>,
    }
    let text = match serde_json::from_str::<ErrorResponseBody>(body) {
        Ok(e) => e.errors.into_iter().next().unwrap_or_default(),
        Err(_) => body.chars().take(200).collect(),
    };
    let line = text.lines().next().unwrap_or("").trim();
    // `org.apache.flink.runtime.rest.NotFoundException: Job … not found` → `Job … not found`.
    let line = match line.split_once(": ") {
        Some((class, rest))
            if !class.contains(' ')
                && (class.ends_with("Exception") || class.ends_with("Error")) =>
        {
            rest
        }
        _ => line,
    };
    if line.is_empty() {
        "no message".into()
    } else {
        line.to_string()
    }
}

impl Collector {
    fn new(base: String, job: String, timeout: Duration, parallel: usize) -> Self {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .http_status_as_error(false)
            .user_agent(format!("barrierlab/{}", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        Self {
            agent,
            base,
            job,
            timeout,
            parallel,
            transport_failures_in_a_row: AtomicUsize::new(0),
            failed: Mutex::new(Vec::new()),
            skipped: Mutex::new(Vec::new()),
        }
    }

    fn jp(&self) -> String {
        format!("/jobs/{}", self.job)
    }

    fn get(&self, path: &str) -> Answer {
        if self.transport_failures_in_a_row.load(Ordering::SeqCst) >= GIVE_UP_AFTER {
            return Answer::NotSent;
        }
        let answer = self.request(path);
        match answer {
            Answer::Transport(_) => {
                self.transport_failures_in_a_row
                    .fetch_add(1, Ordering::SeqCst);
            }
            _ => self.transport_failures_in_a_row.store(0, Ordering::SeqCst),
        }
        answer
    }

    fn request(&self, path: &str) -> Answer {
        let url = format!("{}{path}", self.base);
        let mut response = match self.agent.get(&url).call() {
            Ok(r) => r,
            Err(e) => return Answer::Transport(self.transport_error(e)),
        };
        let status = response.status().as_u16();
        let body = match response
            .body_mut()
            .with_config()
            .limit(BODY_LIMIT)
            .read_to_string()
        {
            Ok(b) => b,
            Err(e) => return Answer::Transport(self.transport_error(e)),
        };
        if !(200..300).contains(&status) {
            return Answer::Http {
                status,
                message: flink_message(&body),
            };
        }
        match serde_json::from_str::<Raw>(&body) {
            Ok(raw) => Answer::Json(raw),
            Err(_) => {
                let start: String = body.trim_start().chars().take(40).collect();
                Answer::Http {
                    status,
                    message: format!(
                        "the answer is not JSON (it starts with {start:?}): is {} Flink's REST \
                         API, and not its Web UI behind a proxy path?",
                        self.base
                    ),
                }
            }
        }
    }

    fn transport_error(&self, e: ureq::Error) -> String {
        match e {
            ureq::Error::Timeout(_) => format!(
                "no answer within {} ms (--timeout)",
                self.timeout.as_millis()
            ),
            ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => format!(
                "connection refused: nothing listens at {} (is it the JobManager's REST address \
                 and rest.port?)",
                self.base
            ),
            ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::TimedOut => format!(
                "no answer within {} ms (--timeout)",
                self.timeout.as_millis()
            ),
            ureq::Error::ConnectionFailed => {
                format!("cannot connect to {}", self.base)
            }
            ureq::Error::HostNotFound => format!("host not found: {}", self.base),
            ureq::Error::BodyExceedsLimit(n) => {
                format!("the answer is larger than {n} bytes")
            }
            other => other.to_string(),
        }
    }

    /// GETs every path, `parallel` at a time; the answers in the paths' order.
    fn get_all(&self, paths: &[String]) -> Vec<Answer> {
        let next = AtomicUsize::new(0);
        let slots: Vec<Mutex<Option<Answer>>> = paths.iter().map(|_| Mutex::new(None)).collect();
        std::thread::scope(|s| {
            for _ in 0..self.parallel.min(paths.len()) {
                s.spawn(|| loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(path) = paths.get(i) else { break };
                    let answer = self.get(path);
                    *slots[i].lock().expect("no worker panics") = Some(answer);
                });
            }
        });
        slots
            .into_iter()
            .map(|s| {
                s.into_inner()
                    .expect("no worker panics")
                    .unwrap_or(Answer::NotSent)
            })
            .collect()
    }

    fn fail(&self, path: &str, answer: &Answer) {
        eprintln!(
            "barrierlab collect: GET {}: {}",
            short_request(path),
            answer.why()
        );
        self.failed
            .lock()
            .expect("not poisoned")
            .push(FailedRequest {
                request: path.to_string(),
                status: answer.status(),
                error: match answer {
                    Answer::Http { message, .. } => message.clone(),
                    other => other.why(),
                },
            });
    }

    fn skip(&self, path: &str, reason: String) {
        eprintln!(
            "barrierlab collect: GET {}: skipped: {reason}",
            short_request(path)
        );
        self.skipped
            .lock()
            .expect("not poisoned")
            .push(SkippedRequest {
                request: path.to_string(),
                reason,
            });
    }

    /// The body, or `None` after recording the failure.
    fn keep(&self, path: &str, answer: Answer) -> Option<Raw> {
        match answer {
            Answer::Json(raw) => Some(raw),
            other => {
                self.fail(path, &other);
                None
            }
        }
    }

    fn collect(&self, checkpoints_requested: usize) -> Result<Bundle, String> {
        let started_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or(0);
        let jp = self.jp();

        // The Flink version first: it says how to read the rest.
        let flink_config = self.keep("/config", self.get("/config"));
        let flink_version = flink_config.as_ref().and_then(|raw| {
            #[derive(Deserialize)]
            struct DashboardConfiguration {
                #[serde(rename = "flink-version")]
                flink_version: Option<String>,
            }
            serde_json::from_str::<DashboardConfiguration>(raw.get())
                .ok()?
                .flink_version
        });
        if let Some(v) = &flink_version {
            if !v.starts_with("2.") {
                eprintln!(
                    "barrierlab collect: this is Flink {v}; Barrier Lab reads Flink 2.x \
                     (collecting anyway)"
                );
            }
        }

        // The job: without it nothing else means anything.
        let job = match self.get(&jp) {
            Answer::Json(raw) => raw,
            Answer::Http {
                status: 404,
                message,
            } => {
                return Err(format!(
                    "job {} not found at {} ({message}): it finished longer ago than the \
                     JobManager keeps jobs (jobstore.expiration-time), or the id is wrong; \
                     `GET {}/jobs` lists the jobs",
                    self.job, self.base, self.base
                ))
            }
            other => {
                return Err(format!(
                    "GET {}{jp}: {}; nothing collected",
                    self.base,
                    other.why()
                ))
            }
        };
        #[derive(Deserialize)]
        struct JobBrief {
            #[serde(default)]
            vertices: Vec<VertexBrief>,
        }
        let vertices = match serde_json::from_str::<JobBrief>(job.get()) {
            Ok(j) => j.vertices,
            Err(e) => {
                eprintln!(
                    "barrierlab collect: GET {jp}: no vertices in the answer ({e}); collecting \
                     the job-wide statistics only"
                );
                Vec::new()
            }
        };

        // Ask for every vertex's metrics once early: Flink's MetricFetcher starts fetching on
        // the first request, so the values are there when they are asked for below.
        // The optional metrics only per subtask: Flink's aggregating handler answers `[]` for
        // every metric when one of those asked is registered on none of the vertex's subtasks.
        let aggregated_names = COLLECTED_METRICS.join(",");
        let metric_names = [COLLECTED_METRICS, OPTIONAL_METRICS].concat().join(",");
        let aggregated_paths: Vec<String> = vertices
            .iter()
            .map(|v| {
                format!(
                    "{jp}/vertices/{}/subtasks/metrics?get={aggregated_names}",
                    v.id
                )
            })
            .collect();
        drop(self.get_all(&aggregated_paths[..aggregated_paths.len().min(1)]));

        let checkpoints_path = format!("{jp}/checkpoints");
        let config_path = format!("{jp}/checkpoints/config");
        let mut answers = self
            .get_all(&[checkpoints_path.clone(), config_path.clone()])
            .into_iter();
        let checkpoints = self.keep(&checkpoints_path, answers.next().expect("two answers"));
        let config = self.keep(&config_path, answers.next().expect("two answers"));

        // The newest N checkpoints of the history, with their status as the history has it.
        #[derive(Deserialize)]
        struct HistoryEntry {
            id: u64,
            #[serde(default)]
            status: String,
        }
        #[derive(Deserialize)]
        struct History {
            #[serde(default)]
            history: Vec<HistoryEntry>,
        }
        let mut history: Vec<HistoryEntry> = checkpoints
            .as_ref()
            .and_then(|raw| serde_json::from_str::<History>(raw.get()).ok())
            .map(|h| h.history)
            .unwrap_or_default();
        history.sort_by_key(|h| std::cmp::Reverse(h.id));
        history.truncate(checkpoints_requested);
        history.reverse();
        let in_progress = |id: u64| {
            history
                .iter()
                .any(|h| h.id == id && h.status == "IN_PROGRESS")
        };

        let details_paths: Vec<String> = history
            .iter()
            .map(|h| format!("{jp}/checkpoints/details/{}", h.id))
            .collect();
        let mut details = BTreeMap::new();
        for (h, (path, answer)) in history
            .iter()
            .zip(details_paths.iter().zip(self.get_all(&details_paths)))
        {
            match answer {
                Answer::Json(raw) => {
                    details.insert(h.id, raw);
                }
                Answer::Http {
                    status: 404,
                    message,
                } if in_progress(h.id) => self.skip(
                    path,
                    format!(
                        "checkpoint {} is still in progress and Flink has no statistics for it \
                         yet ({message})",
                        h.id
                    ),
                ),
                Answer::Http {
                    status: 404,
                    message,
                } => self.skip(
                    path,
                    format!(
                        "checkpoint {} left Flink's history (web.checkpoints.history) before it \
                         was asked for ({message})",
                        h.id
                    ),
                ),
                other => self.fail(path, &other),
            }
        }

        let mut subtask_keys = Vec::new();
        let mut subtask_paths = Vec::new();
        for &id in details.keys() {
            for v in &vertices {
                subtask_keys.push((id, v.id.clone()));
                subtask_paths.push(format!("{jp}/checkpoints/details/{id}/subtasks/{}", v.id));
            }
        }
        let mut subtasks: BTreeMap<u64, BTreeMap<String, Raw>> = BTreeMap::new();
        for ((id, vertex), (path, answer)) in subtask_keys
            .into_iter()
            .zip(subtask_paths.iter().zip(self.get_all(&subtask_paths)))
        {
            match answer {
                Answer::Json(raw) => {
                    subtasks.entry(id).or_default().insert(vertex, raw);
                }
                Answer::Http {
                    status: 404,
                    message,
                } if in_progress(id) => self.skip(
                    path,
                    format!(
                        "checkpoint {id} is still in progress and vertex {vertex} has no \
                         statistics for it yet ({message})"
                    ),
                ),
                other => self.fail(path, &other),
            }
        }

        let (backpressure, metrics, metrics_aggregated) =
            self.vertex_metrics(&vertices, &aggregated_paths, &metric_names);
        // `/jobs/:id` once more: its vertices' accumulated busy time and records come from the
        // REST metric store, which the first request only started to fill (MetricFetcher), and
        // derive costs a vertex by them. Kept only when it still lists the vertices.
        let job = match self.get(&jp) {
            Answer::Json(again)
                if serde_json::from_str::<JobBrief>(again.get())
                    .is_ok_and(|j| j.vertices.len() == vertices.len()) =>
            {
                again
            }
            _ => job,
        };

        let failed = self.failed.lock().expect("not poisoned").clone();
        let skipped = self.skipped.lock().expect("not poisoned").clone();
        eprintln!(
            "barrierlab collect: job {} ({} vertices, Flink {}): {} of {} checkpoints in \
             detail{}, backpressure of {} and metrics of {} vertices; requests: {} failed, {} \
             skipped",
            self.job,
            vertices.len(),
            flink_version.as_deref().unwrap_or("version unknown"),
            details.len(),
            checkpoints_requested,
            match (details.keys().next(), details.keys().last()) {
                (Some(a), Some(b)) if a != b => format!(" ({a}..{b})"),
                (Some(a), _) => format!(" ({a})"),
                _ => String::new(),
            },
            backpressure.len(),
            metrics.len(),
            failed.len(),
            skipped.len()
        );
        Ok(Bundle {
            barrierlab_bundle: Header {
                format_version: FORMAT_VERSION,
                collector: format!("barrierlab collect {}", env!("CARGO_PKG_VERSION")),
                rest_url: self.base.clone(),
                job_id: self.job.clone(),
                collected_at: rfc3339(started_ms),
                collected_at_ms: started_ms,
                flink_version,
                checkpoints_requested,
                failed,
                skipped,
            },
            flink_config,
            job,
            checkpoints,
            config,
            details,
            subtasks,
            backpressure,
            metrics,
            metrics_aggregated,
        })
    }

    /// Each vertex's backpressure, aggregated metrics and per-subtask metrics, asking again
    /// (a few times, after a pause) for what Flink had no values for yet.
    #[allow(clippy::type_complexity)]
    fn vertex_metrics(
        &self,
        vertices: &[VertexBrief],
        aggregated_paths: &[String],
        metric_names: &str,
    ) -> (
        BTreeMap<String, Raw>,
        BTreeMap<String, BTreeMap<u32, Raw>>,
        BTreeMap<String, Raw>,
    ) {
        let jp = self.jp();
        enum Key {
            Backpressure(String),
            Aggregated(String),
            Subtask(String, u32),
        }
        let mut todo: Vec<(Key, String)> = Vec::new();
        for (v, aggregated) in vertices.iter().zip(aggregated_paths) {
            todo.push((
                Key::Backpressure(v.id.to_string()),
                format!("{jp}/vertices/{}/backpressure", v.id),
            ));
            todo.push((Key::Aggregated(v.id.to_string()), aggregated.clone()));
            for n in 0..v.parallelism {
                todo.push((
                    Key::Subtask(v.id.to_string(), n),
                    format!(
                        "{jp}/vertices/{}/subtasks/{n}/metrics?get={metric_names}",
                        v.id
                    ),
                ));
            }
        }
        let mut got: Vec<(Key, String, Answer)> = Vec::new();
        for round in 0..=METRIC_RETRIES {
            if todo.is_empty() {
                break;
            }
            if round > 0 {
                std::thread::sleep(METRIC_RETRY_PAUSE);
            }
            let paths: Vec<String> = todo.iter().map(|(_, p)| p.clone()).collect();
            let answers = self.get_all(&paths);
            let mut again = Vec::new();
            for ((key, path), answer) in todo.into_iter().zip(answers) {
                let missing = match &answer {
                    Answer::Json(raw) => {
                        not_there_yet(matches!(key, Key::Backpressure(_)), raw.get())
                    }
                    _ => Missing::Nothing,
                };
                if missing != Missing::Nothing && round < METRIC_RETRIES {
                    again.push((key, path));
                    continue;
                }
                match missing {
                    Missing::Nothing => {}
                    Missing::All => self.skip(
                        &path,
                        "Flink had no metric values for it yet (its MetricFetcher fetches at \
                         most every metrics.fetcher.update-interval, 10 s by default); its \
                         answer is kept"
                            .into(),
                    ),
                    Missing::Some(names) => self.skip(
                        &path,
                        format!(
                            "Flink sent no value for {}; the other metrics are kept",
                            names.join(", ")
                        ),
                    ),
                }
                got.push((key, path, answer));
            }
            todo = again;
        }

        let mut backpressure = BTreeMap::new();
        let mut metrics: BTreeMap<String, BTreeMap<u32, Raw>> = BTreeMap::new();
        let mut aggregated = BTreeMap::new();
        for (key, path, answer) in got {
            let Some(raw) = self.keep(&path, answer) else {
                continue;
            };
            match key {
                Key::Backpressure(v) => {
                    backpressure.insert(v, raw);
                }
                Key::Aggregated(v) => {
                    aggregated.insert(v, raw);
                }
                Key::Subtask(v, n) => {
                    metrics.entry(v).or_default().insert(n, raw);
                }
            }
        }
        (backpressure, metrics, aggregated)
    }
}

/// The vertex fields the per-vertex requests need, from `GET /jobs/:id`.
#[derive(Deserialize)]
struct VertexBrief {
    id: String,
    #[serde(default)]
    parallelism: u32,
}

/// What a metrics answer lacks of the metrics asked for.
#[derive(Debug, PartialEq)]
enum Missing {
    Nothing,
    /// No value at all: an empty list, or a backpressure answer with status `deprecated`
    /// (Flink's word for "no metrics yet").
    All,
    Some(Vec<&'static str>),
}

fn not_there_yet(backpressure: bool, body: &str) -> Missing {
    if backpressure {
        #[derive(Deserialize)]
        struct Status {
            #[serde(default)]
            status: String,
        }
        return match serde_json::from_str::<Status>(body) {
            Ok(s) if s.status == "deprecated" => Missing::All,
            _ => Missing::Nothing,
        };
    }
    #[derive(Deserialize)]
    struct Id {
        id: String,
    }
    let Ok(list) = serde_json::from_str::<Vec<Id>>(body) else {
        return Missing::Nothing;
    };
    let missing: Vec<&'static str> = COLLECTED_METRICS
        .iter()
        .copied()
        .filter(|m| !list.iter().any(|got| got.id == *m))
        .collect();
    if missing.is_empty() {
        Missing::Nothing
    } else if missing.len() == COLLECTED_METRICS.len() {
        Missing::All
    } else {
        Missing::Some(missing)
    }
}

/// Epoch milliseconds as RFC 3339 in UTC (`2026-12-01T08:46:49.920Z`).
fn rfc3339(ms: u64) -> String {
    let secs = ms / 1000;
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    let rem = secs % 86_400;
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        ms % 1000
    )
}

/// Days since 1970-01-01 to (year, month, day) in the proleptic Gregorian calendar
/// (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

// ------------------------------------------------------------------------------------------
// collect --check
// ------------------------------------------------------------------------------------------

fn check(path: &PathBuf) -> Result<(), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let text = String::from_utf8(bytes)
        .map_err(|e| format!("{}: not UTF-8 text ({e}); not a bundle", path.display()))?;
    let bundle = read_bundle(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    print!("{}", summary(&bundle));
    Ok(())
}

fn summary(b: &JobBundle) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let h = &b.header;
    let _ = writeln!(
        s,
        "bundle ok: job '{}' ({}), {}, Flink {}; collected {} from {} by {}",
        printable(&b.job.name),
        h.job_id,
        printable(&b.job.state),
        printable(b.flink_version().unwrap_or("(unknown)")),
        printable(&h.collected_at),
        printable(&h.rest_url),
        printable(&h.collector),
    );
    let _ = writeln!(s, "vertices: {}", b.job.vertices.len());
    for v in &b.job.vertices {
        let bp = b
            .backpressure
            .get(&v.id)
            .and_then(|bp| bp.backpressure_level)
            .map(|l| format!("{l:?}").to_lowercase())
            .unwrap_or_else(|| "-".into());
        let busy: Vec<String> = (0..v.parallelism)
            .map(|n| {
                b.subtask_metric(&v.id, n, "busyTimeMsPerSecond")
                    .map_or("-".into(), |x| format!("{x:.0}"))
            })
            .collect();
        let _ = writeln!(
            s,
            "  {} ({}): parallelism {}, backpressure {bp}, busy ms/s per subtask [{}]",
            printable(&v.name),
            v.id,
            v.parallelism,
            busy.join(", ")
        );
    }
    match &b.checkpoints {
        Some(c) => {
            let _ = writeln!(
                s,
                "checkpoints: {} in Flink's history; counts: {} completed, {} failed, {} in \
                 progress, {} restored",
                c.history.len(),
                c.counts.completed,
                c.counts.failed,
                c.counts.in_progress,
                c.counts.restored
            );
        }
        None => {
            let _ = writeln!(s, "checkpoints: none");
        }
    }
    let ids: Vec<String> = b.details.keys().map(u64::to_string).collect();
    let subtask_bodies: usize = b.subtasks.values().map(BTreeMap::len).sum();
    let _ = writeln!(
        s,
        "details: {} checkpoint(s) [{}], {} per-vertex subtask details",
        b.details.len(),
        ids.join(", "),
        subtask_bodies
    );
    if let Some(c) = &b.config {
        let _ = writeln!(
            s,
            "config: {}, {}, interval {} ms, timeout {} ms, max concurrent {}",
            printable(&c.mode),
            if c.unaligned_checkpoints {
                "unaligned"
            } else {
                "aligned"
            },
            c.interval,
            c.timeout,
            c.max_concurrent
        );
    }
    for n in &b.notes {
        let _ = writeln!(s, "note: {}", printable(n));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_formats_utc() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(951_782_400_123), "2000-02-29T00:00:00.123Z");
        assert_eq!(rfc3339(1_796_201_210_754), "2026-12-02T08:46:50.754Z");
    }

    #[test]
    fn flink_messages_lose_class_and_stack() {
        let body = r#"{"errors":["org.apache.flink.runtime.rest.NotFoundException: Job 00 not found\n\tat x"]}"#;
        assert_eq!(flink_message(body), "Job 00 not found");
        assert_eq!(
            flink_message(r#"{"errors":["Unable to load requested file /x."]}"#),
            "Unable to load requested file /x."
        );
        assert_eq!(flink_message("<html>"), "<html>");
    }

    #[test]
    fn base_urls() {
        assert_eq!(
            base_url("localhost:8081/").unwrap(),
            "http://localhost:8081"
        );
        assert_eq!(base_url("https://f/x/").unwrap(), "https://f/x");
        assert!(base_url("ftp://x").is_err());
    }
}
