//! `explain` on the bundle recorded from real Flink 2.3 (tests/fixtures/collect/) and on
//! hand-built minimal bundles, one for each phase that can dominate.

use serde_json::{json, Value};

use super::explain::{explain, Evidence, ExplainError, Phase};
use super::rest::{CheckpointStatsStatus, VertexBackPressureLevel};
use super::*;

const RECORDED: &str = include_str!("../../../../tests/fixtures/collect/seed-backpressure.json");
const RECORDED_EARLY: &str =
    include_str!("../../../../tests/fixtures/collect/no-checkpoints-yet.json");
const SOURCE: &str = "5eadbd25f5e5ea36e1d79110004cc6d7";
const COUNT: &str = "5b61d6019ab04da71a4e62533c1a8c40";
const CHAIN: &str = "count-per-key -> checkpoint-aware-map -> discard-sink: Writer";

#[test]
fn the_recorded_job_is_held_up_by_start_delay_at_the_9_key_subtask() {
    let b = read_bundle(RECORDED).unwrap();
    let e = explain(&b, None).unwrap();
    assert_eq!(e.job_name, "seed-backpressure");
    let ids: Vec<u64> = e.checkpoints.iter().map(|c| c.id).collect();
    assert_eq!(ids, [4, 5, 6]);
    // Checkpoints 4 and 5: the keyed chain's subtask 1 (9 of the 16 keys) acknowledged last, its
    // barrier 2.72 s and 2.85 s behind the trigger, stuck behind the data queued in front of it.
    for (c, e2e, delay) in [
        (&e.checkpoints[0], 2731, 2724),
        (&e.checkpoints[1], 2849, 2845),
    ] {
        assert_eq!(c.status, CheckpointStatsStatus::COMPLETED);
        assert_eq!(c.end_to_end_duration, e2e);
        assert!(c.slow, "{} ms of a 5 s interval", c.end_to_end_duration);
        let cr = c.critical.as_ref().unwrap();
        assert_eq!(
            (
                cr.subtask.vertex_id.as_str(),
                cr.subtask.vertex_name.as_str(),
                cr.subtask.index
            ),
            (COUNT, CHAIN, 1)
        );
        assert_eq!(cr.phase(Phase::StartDelay), delay);
        assert_eq!(c.dominant, Some(Phase::StartDelay));
        // The acknowledgement is what the phases leave of the end to end.
        let phases: i64 = cr.phases.iter().map(|(_, ms)| ms).sum();
        assert_eq!(phases, e2e);
        let Some(Evidence::StartDelay {
            is_source,
            critical,
            upstream,
        }) = &c.evidence
        else {
            panic!("{:?}", c.evidence)
        };
        assert!(!is_source);
        // The subtask itself is busy all the time; its input, the source, is back-pressured.
        assert_eq!(critical.busy_time_ms_per_second, Some(1000.0));
        assert_eq!(critical.busy_ratio, Some(1.0));
        assert_eq!(upstream.len(), 1);
        assert_eq!(upstream[0].vertex_id, SOURCE);
        assert_eq!(upstream[0].level, Some(VertexBackPressureLevel::High));
        assert_eq!(upstream[0].max_ratio, Some(1.0));
        assert_eq!(upstream[0].ship_strategy.as_deref(), Some("HASH"));
    }
    // Checkpoint 6 was in progress: the same subtask had not acknowledged yet.
    let six = &e.checkpoints[2];
    assert_eq!(six.status, CheckpointStatsStatus::IN_PROGRESS);
    assert_eq!(six.critical, None);
    assert_eq!(six.dominant, None);
    assert_eq!(six.pending.len(), 1);
    assert_eq!(
        (six.pending[0].vertex_id.as_str(), six.pending[0].index),
        (COUNT, 1)
    );

    let s = &e.summary;
    assert_eq!(s.explained, 2);
    assert_eq!(s.by_phase, [(Phase::StartDelay, 2)]);
    assert_eq!(s.dominant, Some(Phase::StartDelay));
    let (critical, n) = s.critical.as_ref().unwrap();
    assert_eq!(
        (critical.vertex_id.as_str(), critical.index, *n),
        (COUNT, 1, 2)
    );
    assert_eq!(s.backpressured.len(), 1);
    assert_eq!(s.backpressured[0].vertex_id, SOURCE);
    let busiest = s.busiest.as_ref().unwrap();
    assert_eq!(
        (busiest.subtask.vertex_id.as_str(), busiest.subtask.index),
        (COUNT, 1)
    );
    assert_eq!(s.unaligned_enabled, Some(false));
}

#[test]
fn one_checkpoint_or_a_clear_refusal() {
    let b = read_bundle(RECORDED).unwrap();
    let e = explain(&b, Some(5)).unwrap();
    assert_eq!(e.checkpoints.len(), 1);
    assert_eq!(e.checkpoints[0].id, 5);
    let err = explain(&b, Some(3)).unwrap_err();
    assert_eq!(
        err,
        ExplainError::UnknownCheckpoint {
            id: 3,
            available: vec![4, 5, 6]
        }
    );
    assert!(err.to_string().contains("checkpoint(s) 4, 5, 6"), "{err}");

    let early = read_bundle(RECORDED_EARLY).unwrap();
    let err = explain(&early, None).unwrap_err();
    assert_eq!(
        err,
        ExplainError::NoDetails {
            history: 0,
            failed: 0
        }
    );
    assert!(err.to_string().contains("no checkpoint details"), "{err}");
}

// ------------------------------------------------------------------------------------------
// Hand-built bundles: a source and a keyed vertex, parallelism 2, one checkpoint triggered at
// t = 1000 whose keyed subtask 1 acknowledges last.
// ------------------------------------------------------------------------------------------

const SRC: &str = "00000000000000000000000000000001";
const KEYED: &str = "00000000000000000000000000000002";

/// One subtask's figures: (start delay, alignment, sync, async, ack offset from the trigger,
/// checkpointed size, state size).
type Figures = (i64, i64, i64, i64, i64, u64, u64);

fn subtask(index: u32, f: Figures) -> Value {
    let (start_delay, alignment, sync, async_, ack, cs, ss) = f;
    json!({
        "className": "completed", "index": index, "status": "completed",
        "ack_timestamp": 1000 + ack, "end_to_end_duration": ack,
        "checkpointed_size": cs, "state_size": ss,
        "checkpoint": {"sync": sync, "async": async_},
        "alignment": {"buffered": 0, "processed": 4096, "persisted": 0, "duration": alignment},
        "start_delay": start_delay, "unaligned_checkpoint": false, "aborted": false
    })
}

/// Checkpoints `ids`, each with the keyed subtask 1's figures from `critical(id)`; every other
/// subtask acknowledges within 10 ms.
fn bundle_with(ids: &[u64], critical: impl Fn(u64) -> Figures, backend: &str) -> JobBundle {
    let quick: Figures = (2, 0, 1, 3, 10, 100, 100);
    let mut details = serde_json::Map::new();
    let mut subtasks = serde_json::Map::new();
    for &id in ids {
        let f = critical(id);
        let e2e = f.4;
        details.insert(
            id.to_string(),
            json!({
                "className": "completed", "id": id, "status": "COMPLETED",
                "trigger_timestamp": 1000, "latest_ack_timestamp": 1000 + e2e,
                "end_to_end_duration": e2e, "checkpoint_type": "CHECKPOINT",
                "num_subtasks": 4, "num_acknowledged_subtasks": 4, "tasks": {}
            }),
        );
        let task = |subs: Vec<Value>| json!({"id": id, "status": "COMPLETED", "subtasks": subs});
        subtasks.insert(
            id.to_string(),
            json!({
                SRC: task(vec![subtask(0, quick), subtask(1, quick)]),
                KEYED: task(vec![subtask(0, quick), subtask(1, f)]),
            }),
        );
    }
    let v = json!({
        "barrierlab_bundle": {"format_version": 1, "job_id": "j", "flink_version": "2.3.0"},
        "job": {
            "jid": "j", "name": "hand-built", "state": "RUNNING",
            "vertices": [
                {"id": SRC, "name": "Source: src", "parallelism": 2},
                {"id": KEYED, "name": "keyed", "parallelism": 2}
            ],
            "plan": {"nodes": [
                {"id": SRC, "parallelism": 2},
                {"id": KEYED, "parallelism": 2,
                 "inputs": [{"id": SRC, "num": 0, "ship_strategy": "HASH"}]}
            ]}
        },
        "config": {"mode": "exactly_once", "interval": 10000, "timeout": 600000,
                   "state_backend": backend, "unaligned_checkpoints": false},
        "details": details,
        "subtasks": subtasks,
        "backpressure": {
            SRC: {"status": "ok", "backpressureLevel": "low",
                  "subtasks": [{"subtask": 0, "ratio": 0.2, "busyRatio": 0.1, "idleRatio": 0.7},
                               {"subtask": 1, "ratio": 0.4, "busyRatio": 0.1, "idleRatio": 0.5}]},
            KEYED: {"status": "ok", "backpressureLevel": "ok",
                  "subtasks": [{"subtask": 0, "ratio": 0.0, "busyRatio": 0.3, "idleRatio": 0.7},
                               {"subtask": 1, "ratio": 0.0, "busyRatio": 0.9, "idleRatio": 0.1}]}
        }
    });
    read_bundle(&v.to_string()).unwrap()
}

fn one(f: Figures) -> super::explain::Explanation {
    explain(&bundle_with(&[1], |_| f, "HashMapStateBackend"), None).unwrap()
}

#[test]
fn start_delay_dominates_with_backpressure_upstream() {
    let e = one((1500, 100, 10, 200, 1900, 100, 100));
    let c = &e.checkpoints[0];
    assert_eq!(c.dominant, Some(Phase::StartDelay));
    let cr = c.critical.as_ref().unwrap();
    assert_eq!(
        (cr.subtask.vertex_name.as_str(), cr.subtask.index),
        ("keyed", 1)
    );
    let Some(Evidence::StartDelay {
        is_source,
        critical,
        upstream,
    }) = &c.evidence
    else {
        panic!("{:?}", c.evidence)
    };
    assert!(!is_source);
    assert_eq!(critical.busy_ratio, Some(0.9));
    assert_eq!(upstream[0].level, Some(VertexBackPressureLevel::Low));
    assert_eq!(upstream[0].max_ratio, Some(0.4));
    assert_eq!(e.summary.busiest.as_ref().unwrap().subtask.index, 1);
}

#[test]
fn alignment_dominates_with_processed_data() {
    let e = one((100, 1500, 10, 200, 1900, 100, 100));
    let c = &e.checkpoints[0];
    assert_eq!(c.dominant, Some(Phase::Alignment));
    let Some(Evidence::Alignment {
        processed,
        persisted,
        unaligned,
        upstream,
    }) = &c.evidence
    else {
        panic!("{:?}", c.evidence)
    };
    assert_eq!((*processed, *persisted, *unaligned), (4096, 0, false));
    assert_eq!(upstream[0].vertex_id, SRC);
}

#[test]
fn sync_dominates() {
    let e = one((100, 100, 1500, 200, 1900, 100, 100));
    assert_eq!(e.checkpoints[0].dominant, Some(Phase::Sync));
    assert_eq!(
        e.checkpoints[0].evidence,
        Some(Evidence::Sync { sync_ms: 1500 })
    );
}

#[test]
fn async_dominates_and_an_incremental_reupload_is_named() {
    // Checkpoints 1-3 upload about 1 MB of a 50 MB RocksDB state; checkpoint 4 uploads 20 MB.
    let mb = 1 << 20;
    let b = bundle_with(
        &[1, 2, 3, 4],
        |id| {
            let cs = if id == 4 { 20 * mb } else { mb + id };
            (100, 0, 10, 1500, 1700, cs, 50 * mb)
        },
        "EmbeddedRocksDBStateBackend",
    );
    let e = explain(&b, None).unwrap();
    let last = &e.checkpoints[3];
    assert_eq!(last.dominant, Some(Phase::Async));
    let Some(Evidence::Async {
        async_ms,
        checkpointed_size,
        state_size,
        state_backend,
        incremental,
        usual_checkpointed_size,
        reuploaded,
    }) = &last.evidence
    else {
        panic!("{:?}", last.evidence)
    };
    assert_eq!(
        (*async_ms, *checkpointed_size, *state_size),
        (1500, 20 * mb, 50 * mb)
    );
    assert_eq!(
        state_backend.as_deref(),
        Some("EmbeddedRocksDBStateBackend")
    );
    assert!(*incremental);
    assert_eq!(*usual_checkpointed_size, Some(mb + 2));
    assert!(*reuploaded);
    // The usual ones did not re-upload.
    let Some(Evidence::Async { reuploaded, .. }) = &e.checkpoints[1].evidence else {
        panic!()
    };
    assert!(!reuploaded);
    assert_eq!(e.summary.by_phase, [(Phase::Async, 4)]);

    // A full (non-incremental) snapshot of the same sizes is not a re-upload.
    let full = bundle_with(
        &[1, 2],
        |id| {
            let size = if id == 2 { 20 * mb } else { mb };
            (100, 0, 10, 1500, 1700, size, size)
        },
        "HashMapStateBackend",
    );
    let e = explain(&full, None).unwrap();
    let Some(Evidence::Async {
        incremental,
        reuploaded,
        ..
    }) = &e.checkpoints[1].evidence
    else {
        panic!()
    };
    assert!(!incremental && !reuploaded);
}

#[test]
fn acknowledgement_dominates_when_the_phases_leave_most_of_the_time() {
    let e = one((100, 50, 10, 200, 1900, 100, 100));
    let c = &e.checkpoints[0];
    assert_eq!(c.dominant, Some(Phase::Acknowledgement));
    assert_eq!(
        c.critical.as_ref().unwrap().phase(Phase::Acknowledgement),
        1540
    );
    assert_eq!(
        c.evidence,
        Some(Evidence::Acknowledgement {
            ack_latency: 1540,
            after_last_ack: 0
        })
    );
}

#[test]
fn a_quick_checkpoint_is_not_slow() {
    let e = one((100, 50, 10, 200, 400, 100, 100));
    assert!(!e.checkpoints[0].slow);
    let e = one((100, 50, 10, 200, 1900, 100, 100));
    assert!(e.checkpoints[0].slow);
}

#[test]
fn without_details_the_failed_requests_are_counted() {
    let mut v: Value = serde_json::from_str(RECORDED).unwrap();
    v["details"] = json!({});
    v["subtasks"] = json!({});
    v["barrierlab_bundle"]["failed"] = json!([
        {"request": "/jobs/j/checkpoints/details/5", "status": 500, "error": "boom"},
        {"request": "/jobs/j/vertices/x/backpressure", "status": 500, "error": "boom"},
        {"request": "/jobs/j/checkpoints/config", "status": 500, "error": "boom"}
    ]);
    v["barrierlab_bundle"]["skipped"] = json!([
        {"request": "/jobs/j/checkpoints/details/6", "reason": "in progress"}
    ]);
    let b = read_bundle(&v.to_string()).unwrap();
    let err = explain(&b, None).unwrap_err();
    assert_eq!(
        err,
        ExplainError::NoDetails {
            history: 6,
            failed: 2
        }
    );
    assert!(
        err.to_string().contains("history lists 6 checkpoint(s)"),
        "{err}"
    );
}

#[test]
fn without_subtask_details_the_last_vertex_is_named() {
    let mut v: Value = serde_json::from_str(RECORDED).unwrap();
    v["subtasks"] = json!({});
    let b = read_bundle(&v.to_string()).unwrap();
    let e = explain(&b, Some(4)).unwrap();
    let c = &e.checkpoints[0];
    assert_eq!((c.critical.as_ref(), c.dominant), (None, None));
    assert_eq!(
        c.critical_vertex.as_ref().map(|(id, _)| id.as_str()),
        Some(COUNT)
    );
}

#[test]
fn a_source_held_up_in_its_start_delay_is_named_a_source() {
    // The source's subtask 1 acknowledges last, after a 1.5 s start delay (a busy mailbox).
    let f: Figures = (1500, 0, 1, 3, 1600, 100, 100);
    let mut b = bundle_with(&[1], |_| (2, 0, 1, 3, 10, 100, 100), "HashMapStateBackend");
    let src = b.subtasks.get_mut(&1).unwrap().get_mut(SRC).unwrap();
    src.subtasks[1] = serde_json::from_value(subtask(1, f)).unwrap();
    b.details.get_mut(&1).unwrap().end_to_end_duration = 1600;
    let e = explain(&b, None).unwrap();
    let c = &e.checkpoints[0];
    let cr = c.critical.as_ref().unwrap();
    assert_eq!((cr.subtask.vertex_id.as_str(), cr.subtask.index), (SRC, 1));
    assert_eq!(c.dominant, Some(Phase::StartDelay));
    let Some(Evidence::StartDelay {
        is_source,
        upstream,
        ..
    }) = &c.evidence
    else {
        panic!("{:?}", c.evidence)
    };
    assert!(*is_source);
    assert!(upstream.is_empty());
}
