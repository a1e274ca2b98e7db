//! Stats tests: REST field names, percentile math, bounded history, counts.

use super::*;
use crate::coordinator::{
    CheckpointCoordinator, CheckpointCoordinatorConfiguration, CheckpointProperties,
    CoordinatorInput, SubtaskCheckpointMetrics,
};
use crate::types::{SubtaskId, MICROS_PER_MS, MICROS_PER_SEC};
use serde_json::{json, Value};
use std::collections::BTreeMap;

fn keys(v: &Value) -> Vec<String> {
    let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
    k.sort();
    k
}

fn sorted(list: &[&str]) -> Vec<String> {
    let mut k: Vec<String> = list.iter().map(|s| s.to_string()).collect();
    k.sort();
    k
}

fn st(vertex: u32, subtask: u32) -> SubtaskId {
    SubtaskId { vertex, subtask }
}

fn metrics(state: u64) -> SubtaskCheckpointMetrics {
    SubtaskCheckpointMetrics {
        sync_duration: 3 * MICROS_PER_MS,
        async_duration: 40 * MICROS_PER_MS,
        alignment_duration: 7 * MICROS_PER_MS,
        start_delay: 2 * MICROS_PER_MS,
        processed_bytes: 1000,
        persisted_bytes: 0,
        state_size: state,
        checkpointed_size: state / 2,
        unaligned: false,
    }
}

/// Source (0, parallelism 1) → window (1, parallelism 2); checkpoint 1 completes, 2 fails,
/// 3 stays in progress with one of three acks.
fn tracker() -> CheckpointStatsTracker {
    let mut t = CheckpointStatsTracker::new(DEFAULT_HISTORY_SIZE);
    let per_vertex: BTreeMap<u32, u32> = [(0, 1), (1, 2)].into_iter().collect();
    let props = CheckpointProperties::periodic_checkpoint();
    let sec = MICROS_PER_SEC;
    t.report_pending(1, sec, props, false, &per_vertex);
    t.report_subtask(1, st(0, 0), sec + 100 * MICROS_PER_MS, metrics(100));
    t.report_subtask(1, st(1, 0), sec + 200 * MICROS_PER_MS, metrics(200));
    t.report_subtask(1, st(1, 1), sec + 300 * MICROS_PER_MS, metrics(300));
    t.report_completed(1, sec + 300 * MICROS_PER_MS, "file:/tmp/x/chk-1".into());
    t.report_pending(2, 2 * sec, props, false, &per_vertex);
    t.report_failed(2, 3 * sec, "Checkpoint expired before completing.");
    t.report_pending(3, 4 * sec, props, true, &per_vertex);
    t.report_subtask(3, st(1, 1), 4 * sec + 5 * MICROS_PER_MS, metrics(10));
    t
}

const CHECKPOINT_KEYS: &[&str] = &[
    "className",
    "id",
    "status",
    "is_savepoint",
    "savepointFormat",
    "trigger_timestamp",
    "latest_ack_timestamp",
    "checkpointed_size",
    "state_size",
    "end_to_end_duration",
    "alignment_buffered",
    "processed_data",
    "persisted_data",
    "num_subtasks",
    "num_acknowledged_subtasks",
    "checkpoint_type",
    "tasks",
];

#[test]
fn checkpointing_statistics_shape() {
    let names = vec!["Source".to_string(), "Window".to_string()];
    let v = serde_json::to_value(checkpointing_statistics(&tracker(), &names)).unwrap();
    assert_eq!(
        keys(&v),
        sorted(&["counts", "summary", "latest", "history"])
    );
    assert_eq!(
        v["counts"],
        json!({"restored": 0, "total": 3, "in_progress": 1, "completed": 1, "failed": 1})
    );
    assert_eq!(
        keys(&v["summary"]),
        sorted(&[
            "checkpointed_size",
            "state_size",
            "end_to_end_duration",
            "alignment_buffered",
            "processed_data",
            "persisted_data"
        ])
    );
    assert_eq!(
        keys(&v["summary"]["state_size"]),
        sorted(&["min", "max", "avg", "p50", "p90", "p95", "p99", "p999"])
    );
    assert_eq!(v["summary"]["state_size"]["max"], 600);
    assert_eq!(v["summary"]["end_to_end_duration"]["min"], 300);
    assert_eq!(
        keys(&v["latest"]),
        sorted(&["completed", "savepoint", "failed", "restored"])
    );
    assert!(v["latest"]["savepoint"].is_null());
    let completed = &v["latest"]["completed"];
    let mut expect: Vec<&str> = CHECKPOINT_KEYS.to_vec();
    expect.extend(["external_path", "discarded"]);
    assert_eq!(keys(completed), sorted(&expect));
    assert_eq!(completed["className"], "completed");
    assert_eq!(completed["status"], "COMPLETED");
    assert_eq!(completed["checkpoint_type"], "CHECKPOINT");
    assert_eq!(completed["trigger_timestamp"], 1000);
    assert_eq!(completed["latest_ack_timestamp"], 1300);
    assert!(completed["savepointFormat"].is_null());
    let failed = &v["latest"]["failed"];
    assert_eq!(failed["className"], "failed");
    assert_eq!(failed["failure_timestamp"], 3000);
    assert_eq!(failed["end_to_end_duration"], 1000);
    assert_eq!(failed["latest_ack_timestamp"], -1);
    let history = v["history"].as_array().unwrap();
    let ids: Vec<u64> = history.iter().map(|h| h["id"].as_u64().unwrap()).collect();
    assert_eq!(ids, vec![3, 2, 1]);
    assert_eq!(history[0]["className"], "in_progress");
    assert_eq!(history[0]["status"], "IN_PROGRESS");
    assert_eq!(history[0]["checkpoint_type"], "UNALIGNED_CHECKPOINT");
    assert_eq!(history[0]["num_acknowledged_subtasks"], 1);
    assert_eq!(keys(&history[0]), sorted(CHECKPOINT_KEYS));
}

#[test]
fn details_have_per_vertex_tasks() {
    let names = vec!["Source".to_string(), "Window".to_string()];
    let d = checkpoint_statistics_details(&tracker(), 1, &names).unwrap();
    let v = serde_json::to_value(d).unwrap();
    assert_eq!(keys(&v["tasks"]), sorted(&["Source", "Window"]));
    let w = &v["tasks"]["Window"];
    assert_eq!(
        keys(w),
        sorted(&[
            "id",
            "status",
            "latest_ack_timestamp",
            "checkpointed_size",
            "state_size",
            "end_to_end_duration",
            "alignment_buffered",
            "processed_data",
            "persisted_data",
            "num_subtasks",
            "num_acknowledged_subtasks"
        ])
    );
    assert_eq!(w["state_size"], 500);
    assert_eq!(w["end_to_end_duration"], 300);
    assert!(checkpoint_statistics_details(&tracker(), 42, &names).is_err());
}

#[test]
fn subtask_details_shape() {
    let v = serde_json::to_value(
        task_checkpoint_statistics_with_subtask_details(&tracker(), 3, 1).unwrap(),
    )
    .unwrap();
    assert_eq!(
        keys(&v["summary"]),
        sorted(&[
            "checkpointed_size",
            "state_size",
            "end_to_end_duration",
            "checkpoint_duration",
            "alignment",
            "start_delay"
        ])
    );
    assert_eq!(
        keys(&v["summary"]["checkpoint_duration"]),
        sorted(&["sync", "async"])
    );
    let subtasks = v["subtasks"].as_array().unwrap();
    assert_eq!(subtasks.len(), 2);
    assert_eq!(
        subtasks[0],
        json!({"className": "pending", "index": 0, "status": "pending_or_failed"})
    );
    let done = &subtasks[1];
    assert_eq!(
        keys(done),
        sorted(&[
            "className",
            "index",
            "status",
            "ack_timestamp",
            "end_to_end_duration",
            "state_size",
            "checkpointed_size",
            "checkpoint",
            "alignment",
            "start_delay",
            "unaligned_checkpoint",
            "aborted"
        ])
    );
    assert_eq!(done["checkpoint"], json!({"sync": 3, "async": 40}));
    assert_eq!(
        done["alignment"],
        json!({"buffered": 0, "processed": 1000, "persisted": 0, "duration": 7})
    );
    assert_eq!(done["end_to_end_duration"], 5);
    assert_eq!(done["start_delay"], 2);
}

#[test]
fn config_info_shape() {
    let cfg = CheckpointCoordinatorConfiguration {
        interval: Some(10 * MICROS_PER_SEC),
        ..Default::default()
    };
    let v = serde_json::to_value(
        checkpoint_config_info(&cfg, "HashMapStateBackend", "FileSystemCheckpointStorage").unwrap(),
    )
    .unwrap();
    assert_eq!(v["mode"], "exactly_once");
    assert_eq!(v["interval"], 10_000);
    assert_eq!(v["timeout"], 600_000);
    assert_eq!(v["max_concurrent"], 1);
    assert_eq!(
        v["externalization"],
        json!({"enabled": false, "delete_on_cancellation": true})
    );
    assert_eq!(v["tolerable_failed_checkpoints"], 0);
    assert!(v.get("aligned_checkpoint_timeout").is_some());
    assert!(v.get("checkpoints_after_tasks_finish").is_some());
    assert!(checkpoint_config_info(
        &CheckpointCoordinatorConfiguration::default(),
        "HashMapStateBackend",
        "FileSystemCheckpointStorage"
    )
    .is_err());
    // Flink 2.3's CheckpointCoordinatorConfiguration raises the interval to the min pause, and
    // REST shows the raised one.
    let raised = CheckpointCoordinatorConfiguration {
        min_pause: 30 * MICROS_PER_SEC,
        ..cfg
    };
    let v = serde_json::to_value(
        checkpoint_config_info(
            &raised,
            "HashMapStateBackend",
            "FileSystemCheckpointStorage",
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(
        (&v["interval"], &v["min_pause"]),
        (&json!(30_000), &json!(30_000))
    );
}

#[test]
fn percentiles_follow_commons_math_legacy() {
    let mut s = StatsSummary::default();
    for v in 1..=10u64 {
        s.add(v);
    }
    // pos = p(n+1)/100: p50 → 5.5, p90 → 9.9, p95 → 10.45 ≥ n → max.
    assert_eq!(s.quantile_exact(50_000), Some((5, 50_000, 100_000)));
    assert_eq!(s.quantile(50_000), 5.5);
    assert_eq!(s.quantile_exact(90_000), Some((9, 90_000, 100_000)));
    assert_eq!(s.quantile(95_000), 10.0);
    assert_eq!(s.average(), 5);
    let dto = s.to_dto();
    assert_eq!((dto.min, dto.max, dto.avg), (1, 10, 5));
    assert_eq!(dto.p999, 10.0);
    // Small positions clamp to the minimum; a single value is every percentile.
    assert_eq!(s.quantile(5_000), 1.0);
    let mut one = StatsSummary::default();
    one.add(42);
    assert_eq!(one.to_dto().p50, 42.0);
    assert_eq!(StatsSummary::default().to_dto(), StatsSummaryDto::zero());
}

#[test]
fn percentile_window_is_bounded() {
    let mut s = StatsSummary::new(3);
    for v in [100, 1, 2, 3] {
        s.add(v);
    }
    // min/max/avg see everything; percentiles only the last 3 values.
    assert_eq!((s.min(), s.max(), s.average()), (1, 100, 26));
    assert_eq!(s.quantile(99_900), 3.0);
}

#[test]
fn history_is_bounded_to_ten_but_keeps_in_progress() {
    let mut t = CheckpointStatsTracker::default();
    let per_vertex: BTreeMap<u32, u32> = [(0, 1)].into_iter().collect();
    let props = CheckpointProperties::periodic_checkpoint();
    t.report_pending(1, 0, props, false, &per_vertex);
    for id in 2..=15u64 {
        t.report_pending(id, id, props, false, &per_vertex);
        t.report_subtask(id, st(0, 0), id + 1, metrics(1));
        t.report_completed(id, id + 1, format!("chk-{id}"));
    }
    let ids: Vec<u64> = t.history().map(|h| h.id).collect();
    assert_eq!(ids, (6..=15).rev().collect::<Vec<_>>());
    // Checkpoint 1 fell out of the history but still completes and counts.
    assert!(t.report_subtask(1, st(0, 0), 20, metrics(1)));
    t.report_completed(1, 20, "chk-1".into());
    assert_eq!(t.counts.completed, 15);
    assert_eq!(t.counts.in_progress, 0);
    assert_eq!(t.counts.total, 15);
}

#[test]
fn coordinator_feeds_tracker() {
    let cfg = CheckpointCoordinatorConfiguration {
        interval: Some(MICROS_PER_SEC),
        ..Default::default()
    };
    let mut c = CheckpointCoordinator::new(cfg, "job");
    c.handle(
        0,
        CoordinatorInput::SetPlan {
            sources: vec![st(0, 0)],
            all: vec![st(0, 0), st(1, 0)],
        },
    );
    let user = CoordinatorInput::TriggerRequest {
        props: CheckpointProperties::user_checkpoint(),
    };
    c.handle(0, user.clone());
    for s in [st(0, 0), st(1, 0)] {
        c.handle(
            5 * MICROS_PER_MS,
            CoordinatorInput::Acknowledge {
                job: None,
                id: 1,
                subtask: s,
                metrics: metrics(10),
                handle_key: 0,
            },
        );
    }
    c.handle(10 * MICROS_PER_MS, CoordinatorInput::Restored { id: 1 });
    c.handle(20 * MICROS_PER_MS, user);
    c.handle(
        30 * MICROS_PER_MS,
        CoordinatorInput::ExpiryTimerFired { id: 2 },
    );
    let v = serde_json::to_value(checkpointing_statistics(c.stats(), &[])).unwrap();
    assert_eq!(
        v["counts"],
        json!({"restored": 1, "total": 2, "in_progress": 0, "completed": 1, "failed": 1})
    );
    assert_eq!(
        v["latest"]["restored"]["external_path"],
        "file:/tmp/flink-checkpoints/job/chk-1"
    );
    assert_eq!(
        v["latest"]["failed"]["failure_message"],
        "Checkpoint expired before completing."
    );
    assert_eq!(v["latest"]["completed"]["end_to_end_duration"], 5);
}

#[test]
fn recent_values_are_the_window_tail_in_completion_order() {
    let mut s = crate::stats::summary::StatsSummary::new(3);
    for v in [5, 1, 4, 2] {
        s.add(v);
    }
    // The window holds the last three; the trend reads them oldest first.
    assert_eq!(s.recent(2), vec![4, 2]);
    assert_eq!(s.recent(10), vec![1, 4, 2]);
    assert!(crate::stats::summary::StatsSummary::new(3)
        .recent(5)
        .is_empty());
}
