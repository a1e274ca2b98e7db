//! The bundle reader on bundles collected from a real Flink 2.3 job (tests/fixtures/collect/,
//! see docs/collect.md) and on everything a user might hand it instead.

use serde_json::{json, Value};

use super::rest::{CheckpointStatsStatus, RestAPICheckpointType, VertexBackPressureLevel};
use super::*;

/// `barrierlab collect --checkpoints 3` against `seed-backpressure` exported and run on a
/// MiniCluster, 30 s in: checkpoints 4 and 5 completed, 6 in progress.
const RECORDED: &str = include_str!("../../../../tests/fixtures/collect/seed-backpressure.json");
/// `scripts/collect.sh` against the same job a moment later.
const RECORDED_CURL: &str =
    include_str!("../../../../tests/fixtures/collect/seed-backpressure.curl.json");
/// `barrierlab collect` right after the job was submitted: no checkpoint yet, no metric values
/// yet, and one backpressure request answered with HTTP 500.
const RECORDED_EARLY: &str =
    include_str!("../../../../tests/fixtures/collect/no-checkpoints-yet.json");

const SOURCE: &str = "5eadbd25f5e5ea36e1d79110004cc6d7";
const COUNT: &str = "5b61d6019ab04da71a4e62533c1a8c40";

fn recorded() -> Value {
    serde_json::from_str(RECORDED).unwrap()
}

fn read(v: &Value) -> Result<JobBundle, BundleError> {
    read_bundle(&serde_json::to_string(v).unwrap())
}

#[test]
fn the_recorded_bundle_reads_into_flinks_shapes() {
    let b = read_bundle(RECORDED).unwrap();
    assert_eq!(b.flink_version(), Some("2.3.0"));
    assert_eq!(b.header.checkpoints_requested, Some(3));
    assert!(b.notes.is_empty(), "{:?}", b.notes);
    assert_eq!(b.job.name, "seed-backpressure");
    assert_eq!(b.job.state, "RUNNING");
    let names: Vec<(&str, u32)> = b
        .job
        .vertices
        .iter()
        .map(|v| (v.name.as_str(), v.parallelism))
        .collect();
    assert_eq!(
        names,
        [
            ("Source: datagen", 2),
            (
                "count-per-key -> checkpoint-aware-map -> discard-sink: Writer",
                2
            )
        ]
    );
    // The plan: the chain's one input is the source, hash-partitioned; markup kept as text.
    let plan = b.job.plan.as_ref().unwrap();
    let node = plan.nodes.iter().find(|n| n.id == COUNT).unwrap();
    assert_eq!(node.inputs.len(), 1);
    assert_eq!(node.inputs[0].id, SOURCE);
    assert_eq!(node.inputs[0].ship_strategy, "HASH");
    assert!(node.description.starts_with("count-per-key<br/>"));

    let config = b.config.as_ref().unwrap();
    assert_eq!(
        (
            config.mode.as_str(),
            config.interval,
            config.unaligned_checkpoints
        ),
        ("exactly_once", 5000, false)
    );
    let history: Vec<(u64, CheckpointStatsStatus)> =
        b.history().iter().map(|c| (c.id, c.status)).collect();
    assert_eq!(history[0], (6, CheckpointStatsStatus::IN_PROGRESS));
    assert_eq!(history.len(), 6);
    assert_eq!(b.details.keys().copied().collect::<Vec<_>>(), [4, 5, 6]);

    let done = &b.details[&5];
    assert_eq!(done.status, CheckpointStatsStatus::COMPLETED);
    assert_eq!(
        done.checkpoint_type,
        Some(RestAPICheckpointType::Checkpoint)
    );
    assert_eq!(done.tasks.len(), 2);
    assert!(done.end_to_end_duration > 0);
    // Per subtask: the chain's subtasks, each with its phases; percentiles are NaN.
    let per_subtask = &b.subtasks[&5][COUNT];
    assert_eq!(per_subtask.subtasks.len(), 2);
    assert!(per_subtask.subtasks.iter().all(|s| s.is_completed()));
    let summary = per_subtask.summary.as_ref().unwrap();
    assert!(summary.start_delay.p50.is_nan());
    assert!(summary.start_delay.max >= summary.start_delay.min);
    // The in-progress checkpoint: one subtask acknowledged, one pending.
    let pending = &b.subtasks[&6][COUNT].subtasks;
    assert_eq!(pending.iter().filter(|s| !s.is_completed()).count(), 1);
    assert_eq!(pending[1].status, "pending_or_failed");

    // Backpressure and metrics: the source is back-pressured by the slow chain.
    assert_eq!(
        b.backpressure[SOURCE].backpressure_level,
        Some(VertexBackPressureLevel::High)
    );
    assert_eq!(
        b.subtask_metric(SOURCE, 0, "backPressuredTimeMsPerSecond"),
        Some(1000.0)
    );
    assert!(b.subtask_metric(COUNT, 1, "busyTimeMsPerSecond").unwrap() > 900.0);
    assert!(b.subtask_metric(SOURCE, 0, "numBytesOutPerSecond").unwrap() > 0.0);
    assert_eq!(b.metrics_aggregated[COUNT].len(), 7);
}

#[test]
fn the_curl_recipes_bundle_reads_the_same() {
    let cli = read_bundle(RECORDED).unwrap();
    let curl = read_bundle(RECORDED_CURL).unwrap();
    assert!(curl.header.collector.starts_with("scripts/collect.sh"));
    assert_eq!(
        curl.job.vertices,
        cli.job
            .vertices
            .clone()
            .into_iter()
            .map(|mut v| {
                // Collected a moment apart: only the running durations differ.
                v.duration = curl.vertex(&v.id).unwrap().duration;
                v.metrics = curl.vertex(&v.id).unwrap().metrics.clone();
                v
            })
            .collect::<Vec<_>>()
    );
    assert_eq!(curl.config, cli.config);
    assert_eq!(curl.job.plan, cli.job.plan);
    // Completed checkpoints do not change: the same statistics from either collector
    // (compared as Debug text: NaN percentiles are not equal to themselves).
    for id in [4, 5] {
        assert_eq!(curl.details[&id], cli.details[&id]);
        assert_eq!(
            format!("{:?}", curl.subtasks[&id]),
            format!("{:?}", cli.subtasks[&id])
        );
    }
    assert_eq!(
        curl.metrics.keys().collect::<Vec<_>>(),
        cli.metrics.keys().collect::<Vec<_>>()
    );
}

#[test]
fn a_job_without_checkpoints_reads_with_notes() {
    let b = read_bundle(RECORDED_EARLY).unwrap();
    assert!(b.history().is_empty());
    assert!(b.details.is_empty() && b.subtasks.is_empty());
    assert!(b.config.is_some());
    assert!(
        b.notes.iter().any(|n| n.contains("no checkpoints yet")),
        "{:?}",
        b.notes
    );
    assert!(
        b.notes.iter().any(|n| n.contains("HTTP 500")),
        "{:?}",
        b.notes
    );
    assert!(
        b.notes.iter().any(|n| n.contains("no metric values")),
        "{:?}",
        b.notes
    );
    // The empty answers are kept as Flink sent them.
    assert!(b.metrics[COUNT][&0].is_empty());
    assert_eq!(b.subtask_metric(COUNT, 0, "busyTimeMsPerSecond"), None);

    // A job that does not checkpoint at all: Flink answers 404 to both checkpoint requests.
    let mut v: Value = serde_json::from_str(RECORDED_EARLY).unwrap();
    let o = v.as_object_mut().unwrap();
    o.remove("checkpoints");
    o.remove("config");
    let b = read(&v).unwrap();
    assert!(b.checkpoints.is_none() && b.history().is_empty());
    assert!(
        b.notes.iter().any(|n| n.contains("does not checkpoint")),
        "{:?}",
        b.notes
    );
}

#[test]
fn a_truncated_bundle_says_so_wherever_it_was_cut() {
    assert_eq!(read_bundle(""), Err(BundleError::Empty));
    assert_eq!(read_bundle(" \n"), Err(BundleError::Empty));
    let mut cut = 1;
    while cut < RECORDED.len() {
        if RECORDED.is_char_boundary(cut) && !RECORDED[..cut].trim().is_empty() {
            match read_bundle(&RECORDED[..cut]) {
                Err(BundleError::Truncated { line, .. }) => assert!(line >= 1),
                other => panic!("cut at {cut}: {other:?}"),
            }
        }
        cut += 211;
    }
    let e = read_bundle(&RECORDED[..RECORDED.len() / 2]).unwrap_err();
    assert!(e.to_string().contains("cut off"), "{e}");
}

#[test]
fn foreign_json_is_named() {
    let cases: &[(&str, &str)] = &[
        ("[]", "JSON array"),
        ("{}", "empty JSON object"),
        ("42", "JSON number"),
        ("\"x\"", "JSON string"),
        ("null", "JSON null"),
        (
            r#"{"job": {}, "checkpoints": {}, "details": {}, "fingerprint": "ab"}"#,
            "simulator report",
        ),
        (r#"{"name": "x", "operators": [], "edges": []}"#, "scenario"),
        (
            r#"{"jobs": [{"id": "x", "status": "RUNNING"}]}"#,
            "GET /jobs",
        ),
        (
            r#"{"errors": ["org.apache.flink.runtime.rest.NotFoundException: Job x not found\n\tat y"]}"#,
            "error answer from Flink",
        ),
        (r#"{"a": 1, "b": 2}"#, "top-level keys: a, b"),
    ];
    for (text, want) in cases {
        match read_bundle(text) {
            Err(e @ BundleError::Foreign { .. }) => {
                assert!(e.to_string().contains(want), "{text}: {e}")
            }
            other => panic!("{text}: {other:?}"),
        }
    }
    // One Flink answer on its own, not a bundle.
    let job = recorded()["job"].clone();
    let e = read(&job).unwrap_err();
    assert!(e.to_string().contains("single `GET /jobs/:id`"), "{e}");
    let checkpoints = recorded()["checkpoints"].clone();
    let e = read(&checkpoints).unwrap_err();
    assert!(e.to_string().contains("/checkpoints` answer"), "{e}");
}

#[test]
fn text_that_is_not_json_is_named() {
    let html = "<!DOCTYPE html><html><head><title>Apache Flink Web Dashboard</title>";
    let e = read_bundle(html).unwrap_err();
    assert!(
        matches!(e, BundleError::NotJson { what: Some(_), .. }),
        "{e:?}"
    );
    assert!(e.to_string().contains("HTML page"), "{e}");
    let yaml = "execution.checkpointing.interval: 5s\nparallelism.default: 2\n";
    assert!(read_bundle(yaml).unwrap_err().to_string().contains("YAML"));
    let e = read_bundle("{\"a\": tru }").unwrap_err();
    assert!(matches!(e, BundleError::NotJson { line: 1, .. }), "{e:?}");
    assert!(e.to_string().starts_with("not JSON (line 1"), "{e}");
}

#[test]
fn a_flink_1_bundle_is_refused_by_name() {
    for version in ["1.18.1", "1.20.0", "0.10"] {
        let mut v = recorded();
        v["barrierlab_bundle"]["flink_version"] = json!(version);
        let e = read(&v).unwrap_err();
        assert_eq!(
            e,
            BundleError::Flink1 {
                version: version.into()
            }
        );
        assert!(e.to_string().contains(&format!("Flink {version}")), "{e}");
        // Even when a 1.x shape would not read as 2.x: the version is what the user learns.
        v["details"]["4"]["trigger_timestamp"] = json!("yesterday");
        assert_eq!(
            read(&v).unwrap_err(),
            BundleError::Flink1 {
                version: version.into()
            }
        );
    }
    let mut v = recorded();
    v["barrierlab_bundle"]["flink_version"] = json!("3.0.0");
    let b = read(&v).unwrap();
    assert!(b.notes.iter().any(|n| n.contains("newer than the 2.x")));
    v["barrierlab_bundle"]["flink_version"] = Value::Null;
    let b = read(&v).unwrap();
    assert!(b.notes.iter().any(|n| n.contains("version is unknown")));
}

#[test]
fn another_bundle_format_is_refused() {
    let mut v = recorded();
    v["barrierlab_bundle"]["format_version"] = json!(2);
    assert_eq!(
        read(&v).unwrap_err(),
        BundleError::UnsupportedFormat { version: 2 }
    );
    // A newer format's header may not read as this one's at all.
    v["barrierlab_bundle"]["job_id"] = json!(["one", "two"]);
    assert_eq!(
        read(&v).unwrap_err(),
        BundleError::UnsupportedFormat { version: 2 }
    );
}

#[test]
fn a_bundle_without_its_job_says_why() {
    let mut v = recorded();
    v.as_object_mut().unwrap().remove("job");
    let e = read(&v).unwrap_err();
    assert!(e.to_string().contains("the key `job` is missing"), "{e}");
    v["barrierlab_bundle"]["failed"] = json!([{
        "request": "/jobs/b7066dc541f3d380f9aba4dce1fb430b", "status": 404,
        "error": "Job b7066dc541f3d380f9aba4dce1fb430b not found"
    }]);
    let e = read(&v).unwrap_err();
    assert!(matches!(e, BundleError::NoJob { .. }));
    assert!(e.to_string().contains("not found"), "{e}");
}

#[test]
fn a_section_of_the_wrong_shape_is_named_with_its_checkpoint_and_vertex() {
    let mut v = recorded();
    v["details"]["5"]["trigger_timestamp"] = json!("yesterday");
    let e = read(&v).unwrap_err();
    assert!(
        matches!(&e, BundleError::Invalid { section, .. } if section == "details.5"),
        "{e:?}"
    );
    assert!(e.to_string().contains("trigger_timestamp") || e.to_string().contains("yesterday"));

    let mut v = recorded();
    v["subtasks"]["4"][COUNT]["subtasks"] = json!({"not": "a list"});
    let e = read(&v).unwrap_err();
    assert!(
        matches!(&e, BundleError::Invalid { section, .. } if *section == format!("subtasks.4.{COUNT}")),
        "{e:?}"
    );

    let mut v = recorded();
    v["metrics"][SOURCE]["1"] = json!([{"value": "3"}]);
    let e = read(&v).unwrap_err();
    assert!(
        matches!(&e, BundleError::Invalid { section, .. } if *section == format!("metrics.{SOURCE}.1")),
        "{e:?}"
    );
    assert!(e.to_string().contains("missing field `id`"), "{e}");

    let mut v = recorded();
    v["details"] = json!([1, 2]);
    let e = read(&v).unwrap_err();
    assert!(
        e.to_string().contains("expected an object keyed by id"),
        "{e}"
    );

    // A details entry filed under another checkpoint's id.
    let mut v = recorded();
    v["details"]["4"]["id"] = json!(5);
    let e = read(&v).unwrap_err();
    assert!(e.to_string().contains("holds checkpoint 5"), "{e}");

    // The header and the job disagree about which job this is.
    let mut v = recorded();
    v["barrierlab_bundle"]["job_id"] = json!("00000000000000000000000000000000");
    assert!(read(&v)
        .unwrap_err()
        .to_string()
        .contains("the header says 00000000000000000000000000000000"));
}

#[test]
fn unknown_fields_and_values_are_tolerated() {
    let mut v = recorded();
    v["barrierlab_bundle"]["made_by_a_later_collector"] = json!({"x": 1});
    v["job"]["a-field-flink-3-adds"] = json!([1, 2, 3]);
    v["details"]["4"]["checkpoint_type"] = json!("FULL_CHECKPOINT");
    v["details"]["4"]["status"] = json!("SOMETHING_NEW");
    v["backpressure"][SOURCE]["backpressureLevel"] = json!("extreme");
    v["checkpoints"]["summary"]["new_statistic"] = json!({"min": 1});
    v["some_section_of_later_formats"] = json!({});
    let b = read(&v).unwrap();
    assert_eq!(
        b.details[&4].checkpoint_type,
        Some(RestAPICheckpointType::Unknown)
    );
    assert_eq!(b.details[&4].status, CheckpointStatsStatus::Unknown);
    assert_eq!(
        b.backpressure[SOURCE].backpressure_level,
        Some(VertexBackPressureLevel::Unknown)
    );
}

#[test]
fn statistics_about_vertices_the_job_lacks_are_kept_with_a_note() {
    let mut v = recorded();
    let other = "ffffffffffffffffffffffffffffffff";
    v["backpressure"][other] = v["backpressure"][SOURCE].clone();
    v["job"]["vertices"][1]["parallelism"] = json!(3);
    let b = read(&v).unwrap();
    assert!(b.backpressure.contains_key(other));
    assert!(b.notes.iter().any(|n| n.contains(other)), "{:?}", b.notes);
    assert!(
        b.notes.iter().any(|n| n.contains("parallelism is 3")),
        "{:?}",
        b.notes
    );
}

#[test]
fn vertex_names_with_markup_stay_text() {
    let name = "<script>alert('x')</script> & <b>bold</b> \"quoted\" \u{1b}[31m";
    let mut v = recorded();
    v["job"]["vertices"][0]["name"] = json!(name);
    v["job"]["plan"]["nodes"][1]["description"] = json!(format!("{name}<br/>"));
    let b = read(&v).unwrap();
    assert_eq!(b.job.vertices[0].name, name);
    assert_eq!(b.vertex_name(SOURCE), name);
    let node = b
        .job
        .plan
        .unwrap()
        .nodes
        .into_iter()
        .find(|n| n.id == SOURCE);
    assert_eq!(node.unwrap().description, format!("{name}<br/>"));
}

/// A bundle with `n` checkpoints in the history, each with details and per-subtask details for
/// both vertices (the recorded checkpoint 5, renumbered).
fn bundle_with_history(n: u64) -> String {
    let v = recorded();
    let history_entry = v["checkpoints"]["history"][1].clone();
    let details = v["details"]["5"].clone();
    let subtasks = v["subtasks"]["5"].clone();
    let with_id = |mut x: Value, id: u64| {
        x["id"] = json!(id);
        x
    };
    let mut text = String::with_capacity(6_000 * n as usize);
    text.push_str("{\"barrierlab_bundle\":");
    text.push_str(&v["barrierlab_bundle"].to_string());
    text.push_str(",\"job\":");
    text.push_str(&v["job"].to_string());
    text.push_str(",\"config\":");
    text.push_str(&v["config"].to_string());
    let mut checkpoints = v["checkpoints"].clone();
    checkpoints["history"] = Value::Array(
        (1..=n)
            .rev()
            .map(|id| with_id(history_entry.clone(), id))
            .collect(),
    );
    text.push_str(",\"checkpoints\":");
    text.push_str(&checkpoints.to_string());
    text.push_str(",\"details\":{");
    for id in 1..=n {
        if id > 1 {
            text.push(',');
        }
        text.push_str(&format!("\"{id}\":{}", with_id(details.clone(), id)));
    }
    text.push_str("},\"subtasks\":{");
    for id in 1..=n {
        if id > 1 {
            text.push(',');
        }
        let mut per_vertex = subtasks.clone();
        for (_, s) in per_vertex.as_object_mut().unwrap() {
            s["id"] = json!(id);
        }
        text.push_str(&format!("\"{id}\":{per_vertex}"));
    }
    text.push_str("}}");
    text
}

#[test]
fn ten_thousand_checkpoints_read_quickly() {
    let text = bundle_with_history(10_000);
    // Native only: wasm tests have no clock here, and the engine reads none.
    #[cfg(not(target_arch = "wasm32"))]
    let started = std::time::Instant::now();
    let b = read_bundle(&text).unwrap();
    #[cfg(not(target_arch = "wasm32"))]
    {
        let took = started.elapsed();
        eprintln!(
            "{} MB, 10 000 checkpoints: read in {took:?}",
            text.len() >> 20
        );
        // About 0.1 s in release and well under a few seconds in a debug build: the bound only
        // catches a reader that went quadratic (or re-parsed per section on good input).
        assert!(
            took.as_secs_f64() < 20.0,
            "{} MB read in {took:?}",
            text.len() >> 20
        );
    }
    assert_eq!(b.history().len(), 10_000);
    assert_eq!(b.details.len(), 10_000);
    assert_eq!(b.subtasks[&9_999][COUNT].subtasks.len(), 2);
    assert!(b.notes.is_empty(), "{:?}", b.notes);

    // The same, truncated near its end: still a clear message, as fast.
    let e = read_bundle(&text[..text.len() - 100]).unwrap_err();
    assert!(matches!(e, BundleError::Truncated { .. }), "{e:?}");
}
