//! `barrierlab collect` against a tiny local HTTP server that answers with Flink 2.3's own
//! responses, recorded from a real run (tests/fixtures/collect/seed-backpressure.json holds them
//! as `collect` wrote them): success, a job that is gone, the 404 of a checkpoint still in
//! progress, a timeout, partial failures, an endpoint that stops answering, metrics Flink does
//! not have yet; and `scripts/collect.sh` against the same server, which must write the same
//! bundle.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use barrierlab_engine::import::read_bundle;
use common::barrierlab;
use serde_json::{json, Value};

const FIXTURE: &str = "../../tests/fixtures/collect/seed-backpressure.json";
const JOB: &str = "b7066dc541f3d380f9aba4dce1fb430b";
const SOURCE: &str = "5eadbd25f5e5ea36e1d79110004cc6d7";
const COUNT: &str = "5b61d6019ab04da71a4e62533c1a8c40";
const METRICS: &str = "busyTimeMsPerSecond,backPressuredTimeMsPerSecond,idleTimeMsPerSecond,\
numRecordsInPerSecond,numRecordsOutPerSecond,numBytesInPerSecond,numBytesOutPerSecond";
/// Per subtask, the debloater's size too (optional: absent without buffer debloating).
const SUBTASK_METRICS: &str =
    "busyTimeMsPerSecond,backPressuredTimeMsPerSecond,idleTimeMsPerSecond,\
numRecordsInPerSecond,numRecordsOutPerSecond,numBytesInPerSecond,numBytesOutPerSecond,\
Shuffle.Netty.Input.0.debloatedBufferSize";

fn fixture() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(FIXTURE);
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// One canned answer: status, body, and how long to wait before sending it.
#[derive(Clone)]
struct Answer {
    status: u16,
    body: String,
    delay: Duration,
    /// Answer this many times with `body`, then fall back to the recorded answer.
    times: Option<usize>,
}

impl Answer {
    fn status(status: u16, body: impl Into<String>) -> Self {
        Self {
            status,
            body: body.into(),
            delay: Duration::ZERO,
            times: None,
        }
    }

    /// Flink's error body, as its REST handlers write it (message, then a stack trace).
    fn flink_error(status: u16, message: &str) -> Self {
        let text = format!("{message}\n\tat org.apache.flink.runtime.rest.handler.X.y(X.java:1)");
        Self::status(status, json!({ "errors": [text] }).to_string())
    }

    fn slow(delay: Duration) -> Self {
        Self {
            delay,
            ..Self::status(200, "{}")
        }
    }
}

/// A REST API on 127.0.0.1 that answers every path `collect` asks for from the recorded bundle,
/// unless `overrides` says otherwise; every other path gets Flink's 404.
struct FlinkServer {
    url: String,
    requests: Arc<Mutex<Vec<String>>>,
}

/// The recorded answers by request path.
fn recorded_routes(bundle: &Value) -> BTreeMap<String, String> {
    let jp = format!("/jobs/{JOB}");
    let mut r = BTreeMap::new();
    r.insert("/config".into(), bundle["flink_config"].to_string());
    r.insert(jp.clone(), bundle["job"].to_string());
    r.insert(
        format!("{jp}/checkpoints"),
        bundle["checkpoints"].to_string(),
    );
    r.insert(
        format!("{jp}/checkpoints/config"),
        bundle["config"].to_string(),
    );
    for (cid, d) in bundle["details"].as_object().unwrap() {
        r.insert(format!("{jp}/checkpoints/details/{cid}"), d.to_string());
    }
    for (cid, per_vertex) in bundle["subtasks"].as_object().unwrap() {
        for (vid, s) in per_vertex.as_object().unwrap() {
            r.insert(
                format!("{jp}/checkpoints/details/{cid}/subtasks/{vid}"),
                s.to_string(),
            );
        }
    }
    for (vid, b) in bundle["backpressure"].as_object().unwrap() {
        r.insert(format!("{jp}/vertices/{vid}/backpressure"), b.to_string());
    }
    for (vid, m) in bundle["metrics_aggregated"].as_object().unwrap() {
        r.insert(
            format!("{jp}/vertices/{vid}/subtasks/metrics?get={METRICS}"),
            m.to_string(),
        );
    }
    for (vid, per_subtask) in bundle["metrics"].as_object().unwrap() {
        for (n, m) in per_subtask.as_object().unwrap() {
            r.insert(
                format!("{jp}/vertices/{vid}/subtasks/{n}/metrics?get={SUBTASK_METRICS}"),
                m.to_string(),
            );
        }
    }
    r
}

impl FlinkServer {
    fn start(overrides: Vec<(String, Answer)>) -> Self {
        let routes = recorded_routes(&fixture());
        let overrides: Arc<Mutex<BTreeMap<String, Answer>>> =
            Arc::new(Mutex::new(overrides.into_iter().collect()));
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let log = requests.clone();
        std::thread::spawn(move || {
            // Ends with the test process; each connection is answered once and closed.
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let routes = routes.clone();
                let overrides = overrides.clone();
                let log = log.clone();
                std::thread::spawn(move || serve(stream, &routes, &overrides, &log));
            }
        });
        Self { url, requests }
    }

    fn requests(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }
}

fn serve(
    stream: TcpStream,
    routes: &BTreeMap<String, String>,
    overrides: &Mutex<BTreeMap<String, Answer>>,
    log: &Mutex<Vec<String>>,
) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).is_err() {
        return;
    }
    loop {
        let mut header = String::new();
        match reader.read_line(&mut header) {
            Ok(0) | Err(_) => break,
            Ok(_) if header.trim().is_empty() => break,
            Ok(_) => {}
        }
    }
    let path = request_line
        .split_whitespace()
        .nth(1)
        .unwrap_or("")
        .to_string();
    log.lock().unwrap().push(path.clone());
    let answer = {
        let mut overrides = overrides.lock().unwrap();
        match overrides.get_mut(&path) {
            Some(a) if a.times != Some(0) => {
                if let Some(t) = a.times.as_mut() {
                    *t -= 1;
                }
                Some(a.clone())
            }
            _ => None,
        }
    };
    let answer = answer.unwrap_or_else(|| match routes.get(&path) {
        Some(body) => Answer::status(200, body.clone()),
        None => Answer::flink_error(
            404,
            &format!("org.apache.flink.runtime.rest.NotFoundException: Not found: {path}"),
        ),
    });
    std::thread::sleep(answer.delay);
    let reason = match answer.status {
        200 => "OK",
        404 => "Not Found",
        500 => "Internal Server Error",
        _ => "Other",
    };
    let response = format!(
        "HTTP/1.1 {} {reason}\r\nContent-Type: application/json; charset=UTF-8\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{}",
        answer.status,
        answer.body.len(),
        answer.body
    );
    let mut stream = stream;
    let _ = stream.write_all(response.as_bytes());
    let _ = stream.flush();
}

/// A fresh path in this test run's directory (any file there from before is removed).
fn tmp(name: &str) -> PathBuf {
    let path = tmp_path(name);
    let _ = std::fs::remove_file(&path);
    path
}

fn tmp_path(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("barrierlab-collect-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Every number as an f64: jq 1.6 writes Flink's `0.0` as `0`, the same number.
fn numbers_as_f64(v: &Value) -> Value {
    match v {
        Value::Number(n) => json!(n.as_f64().unwrap()),
        Value::Array(a) => Value::Array(a.iter().map(numbers_as_f64).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, v)| (k.clone(), numbers_as_f64(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// `barrierlab collect` against `server`: (success, the bundle if written, stderr).
fn collect(server: &FlinkServer, name: &str, extra: &[&str]) -> (bool, Option<Value>, String) {
    let out = tmp(name);
    let mut args = vec![
        "collect",
        "--rest",
        &server.url,
        "--job",
        JOB,
        "--out",
        out.to_str().unwrap(),
    ];
    if !extra.contains(&"--checkpoints") {
        args.extend_from_slice(&["--checkpoints", "3"]);
    }
    args.extend_from_slice(extra);
    let (ok, _, stderr) = barrierlab(&args);
    let bundle = std::fs::read_to_string(&out)
        .ok()
        .map(|t| serde_json::from_str(&t).unwrap());
    (ok, bundle, stderr)
}

fn header(bundle: &Value) -> &Value {
    &bundle["barrierlab_bundle"]
}

fn failed_requests(bundle: &Value) -> Vec<String> {
    header(bundle)["failed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["request"].as_str().unwrap().to_string())
        .collect()
}

const SECTIONS: &[&str] = &[
    "flink_config",
    "job",
    "checkpoints",
    "config",
    "details",
    "subtasks",
    "backpressure",
    "metrics",
    "metrics_aggregated",
];

#[test]
fn collects_every_endpoint_into_one_bundle() {
    let server = FlinkServer::start(Vec::new());
    let (ok, bundle, stderr) = collect(&server, "ok.json", &[]);
    assert!(ok, "{stderr}");
    let bundle = bundle.unwrap();
    let recorded = fixture();
    // Flink's bodies, as sent: every section equals the recorded one.
    for s in SECTIONS {
        assert_eq!(bundle[s], recorded[s], "section {s}");
    }
    let h = header(&bundle);
    assert_eq!(h["format_version"], 1);
    assert_eq!(h["job_id"], JOB);
    assert_eq!(h["rest_url"], server.url.as_str());
    assert_eq!(h["flink_version"], "2.3.0");
    assert_eq!(h["checkpoints_requested"], 3);
    assert_eq!(h["failed"], json!([]));
    assert_eq!(h["skipped"], json!([]));
    assert!(h["collected_at"].as_str().unwrap().ends_with('Z'));
    assert!(
        stderr.contains("3 of 3 checkpoints in detail (4..6)"),
        "{stderr}"
    );

    // The engine reads it, and `collect --check` says so.
    let b = read_bundle(&bundle.to_string()).unwrap();
    assert_eq!(b.details.len(), 3);
    let (ok, stdout, stderr) =
        barrierlab(&["collect", "--check", tmp_path("ok.json").to_str().unwrap()]);
    assert!(ok, "{stderr}");
    assert!(
        stdout.starts_with("bundle ok: job 'seed-backpressure'"),
        "{stdout}"
    );
    assert!(
        stdout.contains("details: 3 checkpoint(s) [4, 5, 6]"),
        "{stdout}"
    );

    // The checkpoints asked for are the newest N of the history.
    let (ok, bundle, _) = collect(&server, "two.json", &["--checkpoints", "2"]);
    assert!(ok);
    let ids: Vec<&String> = bundle.as_ref().unwrap()["details"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(ids, ["5", "6"]);
}

#[test]
fn writes_to_stdout_without_out() {
    let server = FlinkServer::start(Vec::new());
    let (ok, stdout, stderr) = barrierlab(&[
        "collect",
        "--rest",
        &format!("{}/", server.url),
        "--job",
        &JOB.to_uppercase(),
        "--checkpoints",
        "1",
    ]);
    assert!(ok, "{stderr}");
    let bundle: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(header(&bundle)["rest_url"], server.url.as_str());
    assert_eq!(bundle["details"].as_object().unwrap().len(), 1);
}

#[test]
fn a_job_that_is_gone_writes_nothing_and_fails() {
    let gone = format!("org.apache.flink.runtime.rest.NotFoundException: Job {JOB} not found");
    let server = FlinkServer::start(vec![(
        format!("/jobs/{JOB}"),
        Answer::flink_error(404, &gone),
    )]);
    let (ok, bundle, stderr) = collect(&server, "gone.json", &[]);
    assert!(!ok);
    assert!(bundle.is_none(), "nothing usable, nothing written");
    assert!(stderr.contains(&format!("Job {JOB} not found")), "{stderr}");
    assert!(stderr.contains("jobstore.expiration-time"), "{stderr}");
    assert!(!stderr.contains("\tat "), "no stack trace: {stderr}");
}

#[test]
fn a_checkpoint_still_in_progress_is_skipped_with_a_note() {
    // The history lists 6 as IN_PROGRESS; Flink answers 404 for its details, as it does while
    // its statistics are not there yet. Checkpoint 3 left the history meanwhile.
    let not_found = |cid: u32| {
        Answer::flink_error(
            404,
            &format!(
                "org.apache.flink.runtime.rest.handler.RestHandlerException: Could not find \
                 checkpointing statistics for checkpoint {cid}."
            ),
        )
    };
    let jp = format!("/jobs/{JOB}/checkpoints/details");
    let server = FlinkServer::start(vec![
        (format!("{jp}/6"), not_found(6)),
        (format!("{jp}/3"), not_found(3)),
    ]);
    let (ok, bundle, stderr) = collect(&server, "in-progress.json", &["--checkpoints", "4"]);
    assert!(ok, "{stderr}");
    let bundle = bundle.unwrap();
    let skipped = header(&bundle)["skipped"].as_array().unwrap().clone();
    assert_eq!(skipped.len(), 2, "{skipped:?}");
    assert_eq!(skipped[0]["request"], format!("{jp}/3"));
    assert!(skipped[0]["reason"]
        .as_str()
        .unwrap()
        .contains("left Flink's history"));
    assert_eq!(skipped[1]["request"], format!("{jp}/6"));
    let reason = skipped[1]["reason"].as_str().unwrap();
    assert!(
        reason.contains("checkpoint 6 is still in progress"),
        "{reason}"
    );
    assert!(reason.contains("Could not find checkpointing statistics for checkpoint 6."));
    assert_eq!(header(&bundle)["failed"], json!([]));
    // The others are kept; no subtask details are asked for the skipped ones.
    let ids: Vec<&String> = bundle["details"].as_object().unwrap().keys().collect();
    assert_eq!(ids, ["4", "5"]);
    assert!(!server
        .requests()
        .iter()
        .any(|r| r.starts_with(&format!("{jp}/6/"))));
    assert!(
        stderr.contains("skipped: checkpoint 6 is still in progress"),
        "{stderr}"
    );
    let b = read_bundle(&bundle.to_string()).unwrap();
    assert!(b.notes.iter().any(|n| n.contains("still in progress")));
}

#[test]
fn a_request_that_times_out_is_listed_and_the_rest_kept() {
    let config = format!("/jobs/{JOB}/checkpoints/config");
    let server = FlinkServer::start(vec![(config.clone(), Answer::slow(Duration::from_secs(3)))]);
    let started = Instant::now();
    let (ok, bundle, stderr) = collect(&server, "timeout.json", &["--timeout", "300ms"]);
    assert!(ok, "{stderr}");
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "the timeout holds"
    );
    let bundle = bundle.unwrap();
    assert!(bundle.get("config").is_none());
    let failed = &header(&bundle)["failed"][0];
    assert_eq!(failed["request"], config);
    assert_eq!(failed["status"], Value::Null);
    assert_eq!(failed["error"], "no answer within 300 ms (--timeout)");
    assert_eq!(bundle["details"].as_object().unwrap().len(), 3);
    assert!(stderr.contains("no answer within 300 ms"), "{stderr}");

    // The job itself timing out leaves nothing usable.
    let server = FlinkServer::start(vec![(
        format!("/jobs/{JOB}"),
        Answer::slow(Duration::from_secs(3)),
    )]);
    let (ok, bundle, stderr) = collect(&server, "timeout-job.json", &["--timeout", "300ms"]);
    assert!(!ok && bundle.is_none());
    assert!(stderr.contains("no answer within 300 ms"), "{stderr}");
}

#[test]
fn partial_failures_are_listed_in_the_header_and_on_stderr() {
    let jp = format!("/jobs/{JOB}");
    let broken = vec![
        (
            format!("{jp}/vertices/{SOURCE}/backpressure"),
            Answer::flink_error(500, "Internal server error."),
        ),
        (
            format!("{jp}/vertices/{COUNT}/subtasks/1/metrics?get={SUBTASK_METRICS}"),
            Answer::status(503, "<html>Service Unavailable</html>"),
        ),
        (
            format!("{jp}/checkpoints/details/5/subtasks/{COUNT}"),
            Answer::flink_error(500, "java.lang.IllegalStateException: boom"),
        ),
        // 200, but not JSON: a proxy's page.
        (
            "/config".to_string(),
            Answer::status(200, "<!doctype html><title>Login</title>"),
        ),
    ];
    let server = FlinkServer::start(broken.clone());
    let (ok, bundle, stderr) = collect(&server, "partial.json", &[]);
    assert!(ok, "{stderr}");
    let bundle = bundle.unwrap();
    let mut failed = failed_requests(&bundle);
    failed.sort();
    let mut want: Vec<String> = broken.iter().map(|(p, _)| p.clone()).collect();
    want.sort();
    assert_eq!(failed, want);
    let by_request: BTreeMap<String, Value> = header(&bundle)["failed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["request"].as_str().unwrap().to_string(), f.clone()))
        .collect();
    let boom = &by_request[&format!("{jp}/checkpoints/details/5/subtasks/{COUNT}")];
    assert_eq!(boom["status"], 500);
    assert_eq!(boom["error"], "boom");
    assert!(by_request["/config"]["error"]
        .as_str()
        .unwrap()
        .contains("not JSON"));
    assert_eq!(header(&bundle)["flink_version"], Value::Null);
    // What failed is absent; everything else is there.
    assert!(bundle.get("flink_config").is_none());
    assert!(bundle["backpressure"].get(SOURCE).is_none());
    assert!(bundle["backpressure"].get(COUNT).is_some());
    assert!(bundle["metrics"][COUNT].get("1").is_none());
    assert!(bundle["metrics"][COUNT].get("0").is_some());
    assert!(bundle["subtasks"]["5"].get(COUNT).is_none());
    assert!(bundle["subtasks"]["5"].get(SOURCE).is_some());
    for (path, _) in &broken {
        let shown = path.split("?get=").next().unwrap();
        assert!(stderr.contains(shown), "{path} not on stderr: {stderr}");
    }
    assert!(stderr.contains("requests: 4 failed"), "{stderr}");
    // The reader takes it, with the failures as notes.
    let b = read_bundle(&bundle.to_string()).unwrap();
    assert_eq!(
        b.notes
            .iter()
            .filter(|n| n.starts_with("not collected"))
            .count(),
        4
    );
}

#[test]
fn an_endpoint_that_stops_answering_is_given_up_on() {
    // Everything after the job hangs: three timeouts, then nothing more is sent.
    let server = FlinkServer::start(Vec::new());
    let mut overrides = Vec::new();
    for path in recorded_routes(&fixture()).keys() {
        if path != "/config" && path != &format!("/jobs/{JOB}") {
            overrides.push((path.clone(), Answer::slow(Duration::from_secs(5))));
        }
    }
    drop(server);
    let server = FlinkServer::start(overrides);
    let started = Instant::now();
    let (ok, bundle, stderr) = collect(&server, "dead.json", &["--timeout", "200ms"]);
    assert!(ok, "the job was read: {stderr}");
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );
    let bundle = bundle.unwrap();
    assert!(stderr.contains("stopped answering"), "{stderr}");
    // /config, the job, one metrics request, /checkpoints and /checkpoints/config: no more.
    assert_eq!(server.requests().len(), 5, "{:?}", server.requests());
    let not_sent = header(&bundle)["failed"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["error"].as_str().unwrap().contains("not requested"))
        .count();
    assert!(not_sent >= 4, "{bundle}");
}

#[test]
fn metrics_flink_does_not_have_yet_are_asked_for_again() {
    let jp = format!("/jobs/{JOB}");
    let empty_once = Answer {
        times: Some(1),
        ..Answer::status(200, "[]")
    };
    let deprecated_once = Answer {
        times: Some(1),
        ..Answer::status(200, r#"{"status":"deprecated"}"#)
    };
    let server = FlinkServer::start(vec![
        (
            format!("{jp}/vertices/{COUNT}/subtasks/0/metrics?get={SUBTASK_METRICS}"),
            empty_once,
        ),
        (
            format!("{jp}/vertices/{SOURCE}/backpressure"),
            deprecated_once,
        ),
    ]);
    let (ok, bundle, stderr) = collect(&server, "warming.json", &[]);
    assert!(ok, "{stderr}");
    let bundle = bundle.unwrap();
    let recorded = fixture();
    assert_eq!(bundle["metrics"], recorded["metrics"]);
    assert_eq!(bundle["backpressure"], recorded["backpressure"]);
    assert_eq!(header(&bundle)["skipped"], json!([]));

    // Never there: kept empty, with a note.
    let server = FlinkServer::start(vec![(
        format!("{jp}/vertices/{COUNT}/subtasks/0/metrics?get={SUBTASK_METRICS}"),
        Answer::status(200, "[]"),
    )]);
    let (ok, bundle, _) = collect(&server, "never.json", &[]);
    assert!(ok);
    let bundle = bundle.unwrap();
    assert_eq!(bundle["metrics"][COUNT]["0"], json!([]));
    assert!(header(&bundle)["skipped"][0]["reason"]
        .as_str()
        .unwrap()
        .contains("no metric values"));
}

#[test]
fn bad_arguments_are_refused_before_any_request() {
    let (ok, _, stderr) = barrierlab(&["collect", "--rest", "http://127.0.0.1:1", "--job", "x"]);
    assert!(!ok);
    assert!(stderr.contains("not a Flink job id"), "{stderr}");
    let (ok, _, stderr) = barrierlab(&["collect", "--rest", "ftp://h", "--job", JOB]);
    assert!(
        !ok && stderr.contains("only http:// and https://"),
        "{stderr}"
    );
    let (ok, _, stderr) = barrierlab(&[
        "collect",
        "--rest",
        "http://h",
        "--job",
        JOB,
        "--timeout",
        "soon",
    ]);
    assert!(!ok && stderr.contains("--timeout"), "{stderr}");
    let (ok, _, stderr) = barrierlab(&["collect", "--job", JOB]);
    assert!(!ok && stderr.contains("--rest"), "{stderr}");
}

#[test]
fn nothing_listening_is_said_plainly() {
    // A port nobody listens on: bind one, learn its number, close it.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}");
    let (ok, _, stderr) = barrierlab(&["collect", "--rest", &url, "--job", JOB]);
    assert!(!ok);
    assert!(stderr.contains("connection refused"), "{stderr}");
    assert!(stderr.contains("nothing collected"), "{stderr}");
}

#[test]
fn check_refuses_what_is_not_a_bundle() {
    let path = tmp("not-a-bundle.json");
    std::fs::write(&path, "{\"jid\": \"x\", \"vertices\": []}").unwrap();
    let (ok, _, stderr) = barrierlab(&["collect", "--check", path.to_str().unwrap()]);
    assert!(!ok);
    assert!(stderr.contains("single `GET /jobs/:id`"), "{stderr}");
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(FIXTURE)).unwrap();
    std::fs::write(&path, &text[..text.len() / 3]).unwrap();
    let (ok, _, stderr) = barrierlab(&["collect", "--check", path.to_str().unwrap()]);
    assert!(!ok && stderr.contains("cut off"), "{stderr}");
}

/// `scripts/collect.sh` (curl and jq) writes the same bundle as `barrierlab collect`: same
/// sections, same bodies, same failures and skips. Skipped where curl or jq is missing.
#[test]
fn the_curl_recipe_writes_the_same_bundle() {
    let have = |tool: &str| {
        Command::new(tool)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !(have("curl") && have("jq") && have("bash")) {
        eprintln!("skipped: curl, jq or bash missing");
        return;
    }
    let jp = format!("/jobs/{JOB}");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/collect.sh");
    for (name, overrides) in [
        ("recipe-ok", Vec::new()),
        (
            "recipe-partial",
            vec![
                (
                    format!("{jp}/checkpoints/details/6"),
                    Answer::flink_error(
                        404,
                        "Could not find checkpointing statistics for checkpoint 6.",
                    ),
                ),
                (
                    format!("{jp}/vertices/{SOURCE}/backpressure"),
                    Answer::flink_error(500, "Internal server error."),
                ),
                (
                    format!("{jp}/vertices/{COUNT}/subtasks/1/metrics?get={SUBTASK_METRICS}"),
                    Answer::status(200, r#"[{"id":"busyTimeMsPerSecond","value":"5"}]"#),
                ),
            ],
        ),
    ] {
        let server = FlinkServer::start(overrides);
        let (ok, cli, stderr) = collect(&server, &format!("{name}-cli.json"), &[]);
        assert!(ok, "{stderr}");
        let cli = cli.unwrap();
        let out = tmp(&format!("{name}-curl.json"));
        let run = Command::new("bash")
            .arg(&script)
            .args(["--rest", &server.url, "--job", JOB, "--checkpoints", "3"])
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(run.status.success(), "{stderr}");
        let curl: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        for s in SECTIONS {
            assert_eq!(
                curl.get(s).map(numbers_as_f64),
                cli.get(s).map(numbers_as_f64),
                "{name}: section {s}"
            );
        }
        let (hc, hk) = (header(&curl), header(&cli));
        for k in [
            "format_version",
            "rest_url",
            "job_id",
            "flink_version",
            "checkpoints_requested",
            "failed",
            "skipped",
        ] {
            assert_eq!(hc[k], hk[k], "{name}: header {k}");
        }
        assert!(hc["collector"]
            .as_str()
            .unwrap()
            .starts_with("scripts/collect.sh"));
        read_bundle(&curl.to_string()).unwrap();
    }

    // A job that is gone: exit status 1, nothing written.
    let server = FlinkServer::start(vec![(
        format!("/jobs/{JOB}"),
        Answer::flink_error(404, "Job not found"),
    )]);
    let out = tmp("recipe-gone.json");
    let run = Command::new("bash")
        .arg(&script)
        .args(["--rest", &server.url, "--job", JOB, "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(1));
    assert!(!out.exists());
    assert!(String::from_utf8_lossy(&run.stderr).contains("jobstore.expiration-time"));
}
