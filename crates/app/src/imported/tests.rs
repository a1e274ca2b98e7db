//! The bundle → view mapping on the recorded bundles (tests/fixtures/collect).

use super::view::{job_view, subtask_rows, timestamp};
use super::*;
use barrierlab_engine::stats::CheckpointStatsStatus;

const RECORDED: &str = include_str!("../../../../tests/fixtures/collect/seed-backpressure.json");
const NO_CHECKPOINTS: &str =
    include_str!("../../../../tests/fixtures/collect/no-checkpoints-yet.json");

#[test]
fn routes_are_import_and_stored_jobs_only() {
    assert_eq!(route("#import"), Some(Route::Import));
    assert_eq!(route("#job=abc-12"), Some(Route::Job("abc-12".into())));
    // A key we would never write opens the picker rather than a lookup.
    assert_eq!(route("#job=<script>"), Some(Route::Import));
    assert_eq!(route("#v1.abc"), None);
    assert_eq!(route("#tutorials"), None);
    assert_eq!(route(""), None);
    assert_eq!(route(&fragment("k-1")), Some(Route::Job("k-1".into())));
}

#[test]
fn the_recorded_job_in_the_web_uis_terms() {
    let b = open_text(RECORDED).unwrap();
    let v = job_view(&b);
    assert_eq!(v.name, "seed-backpressure");
    assert_eq!(v.vertices.len(), 2);
    let source = &v.vertices[0];
    assert_eq!(
        (source.name.as_str(), source.parallelism),
        ("Source: datagen", 2)
    );
    assert_eq!(source.backpressure, "HIGH");
    assert_eq!(v.vertices[1].backpressure, "OK");
    assert_eq!(
        v.vertices[1].inputs,
        vec![("Source: datagen".to_string(), "HASH".to_string())]
    );
    // History: Flink's six rows, newest first; details only for the three collected.
    let ids: Vec<u64> = v.history.iter().map(|r| r.id).collect();
    assert_eq!(ids.len(), 6);
    assert!(ids.windows(2).all(|w| w[0] > w[1]));
    let with_details: Vec<u64> = v
        .history
        .iter()
        .filter(|r| r.has_details)
        .map(|r| r.id)
        .collect();
    assert_eq!(with_details, vec![6, 5, 4]);
    let five = v.history.iter().find(|r| r.id == 5).unwrap();
    assert_eq!(five.status, "COMPLETED");
    assert_eq!(five.end_to_end, "2.85 s");
    assert_eq!(five.checkpointed_size, "5.5 KB");
    let overview = v.overview.as_ref().unwrap();
    assert!(overview.counts.contains(&("Completed", "5".to_string())));
    assert!(overview.counts.contains(&("Failed", "1".to_string())));
    let latest = overview.latest_completed.as_ref().unwrap();
    assert_eq!(latest[0], ("ID", "5".to_string()));
    assert!(latest
        .iter()
        .any(|(l, v)| *l == "Path" && v.ends_with("/chk-5")));
    let e2e = &v.summary[0];
    assert_eq!(e2e.label, "End to End Duration");
    assert_eq!(
        [&e2e.values[0], &e2e.values[2]],
        [&"959 ms".to_string(), &"2.85 s".to_string()]
    );
    assert!(v.config.contains(&("Interval", "5.00 s".to_string())));
    assert!(v
        .config
        .contains(&("Unaligned Checkpoints", "Disabled".to_string())));
}

#[test]
fn a_checkpoints_subtasks_in_the_jobs_order() {
    let b = open_text(RECORDED).unwrap();
    let rows = subtask_rows(&b, 5);
    assert_eq!(rows.len(), 4);
    assert_eq!(rows[0].vertex, "Source: datagen");
    let slow = &rows[3];
    assert!(slow.vertex.starts_with("count-per-key"));
    assert_eq!(slow.index, 1);
    assert_eq!(slow.start_delay, "2.85 s");
    // Checkpoint 6 was in progress: one subtask pending, without figures.
    let pending: Vec<_> = subtask_rows(&b, 6)
        .into_iter()
        .filter(|r| r.status != "COMPLETED")
        .collect();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].start_delay, "-");
    assert!(subtask_rows(&b, 1).is_empty());
}

#[test]
fn the_timeline_draws_the_bundles_details_with_outliers() {
    let b = open_text(RECORDED).unwrap();
    let t = timeline::timeline(&b);
    assert_eq!(t.iter().map(|c| c.id).collect::<Vec<_>>(), vec![6, 5, 4]);
    assert_eq!(t[0].status, CheckpointStatsStatus::IN_PROGRESS);
    assert_eq!(t[0].end, None);
    let five = &t[1];
    assert_eq!(five.end, Some(2_849_000));
    let slow = five
        .subtasks
        .iter()
        .find(|s| s.label.ends_with("#1") && s.vertex == 1)
        .unwrap();
    let p = slow.phases.unwrap();
    assert_eq!(p.start_delay, 2_845_000);
    // The keyed subtask that waited behind the backpressured data is the outlier of its vertex.
    assert!(five.subtasks.iter().filter(|s| s.outlier).count() >= 1);
    assert!(!five.subtasks.iter().any(|s| s.vertex == 0 && s.outlier));
}

#[test]
fn a_job_without_checkpoints_still_has_its_graph() {
    let b = open_text(NO_CHECKPOINTS).unwrap();
    let v = job_view(&b);
    assert_eq!(v.vertices.len(), 2);
    assert!(v.history.is_empty());
    // Flink answered /checkpoints with zero counts: "no checkpoints yet", not a table of zeros.
    assert!(b.checkpoints.is_some());
    assert!(v.overview.is_none());
    assert!(v.summary.is_empty());
    assert!(timeline::timeline(&b).is_empty());
}

#[test]
fn bad_input_says_why() {
    let cut = &RECORDED[..RECORDED.len() / 2];
    let e = open_text(cut).unwrap_err();
    assert!(
        e.starts_with("This does not open: the JSON stops early"),
        "{e}"
    );
    let flink1 = RECORDED.replacen(
        "\"flink_version\": \"2.3.0\"",
        "\"flink_version\": \"1.18.1\"",
        1,
    );
    assert_ne!(flink1, RECORDED, "the fixture's version line moved");
    assert!(open_text(&flink1).unwrap_err().contains("Flink 1.18.1"));
    assert!(open_text("{\"jobs\": []}")
        .unwrap_err()
        .contains("not a Barrier Lab bundle"));
}

#[test]
fn store_keys_are_route_safe_and_stable() {
    let b = open_text(RECORDED).unwrap();
    let k = store::key(&b);
    assert_eq!(route(&fragment(&k)), Some(Route::Job(k.clone())));
    assert!(k.starts_with(&b.header.job_id));
}

#[test]
fn timestamps_are_utc() {
    assert_eq!(timestamp(0), "1970-01-01 00:00:00.000 UTC");
    assert_eq!(timestamp(1_764_665_850_552), "2025-12-02 08:57:30.552 UTC");
    assert_eq!(timestamp(-1), "-");
}
