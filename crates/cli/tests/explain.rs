//! `barrierlab explain FILE`: a real job's checkpoints explained from a recorded bundle.

mod common;

use common::barrierlab;

fn fixture(name: &str) -> String {
    format!(
        "{}/../../tests/fixtures/collect/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

const CHAIN_1: &str = "count-per-key -> checkpoint-aware-map -> discard-sink: Writer #1";

#[test]
fn explains_the_recorded_backpressured_job() {
    let (ok, out, err) = barrierlab(&["explain", &fixture("seed-backpressure.json")]);
    assert!(ok, "{err}");
    assert!(err.is_empty(), "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with("Job 'seed-backpressure' (b7066dc5"),
        "{out}"
    );
    assert!(
        out.contains("Checkpoint 4 took 2.73 s end to end, 54 % of the 5 s interval"),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "Its last acknowledgement came from {CHAIN_1}: start delay 2.72 s, alignment 0 ms, sync 0 ms, async 1 ms, acknowledgement 6 ms. The start delay phase dominated"
        )),
        "{out}"
    );
    assert!(
        out.contains("Upstream is back-pressured: Source: datagen (backpressureLevel high, ratio up to 1.00, HASH)"),
        "{out}"
    );
    assert!(out.contains("Checkpoint 6 was still in progress"), "{out}");
    assert!(
        out.contains(&format!("Still waiting for {CHAIN_1}")),
        "{out}"
    );
    let summary = lines.last().unwrap();
    assert!(
        summary.starts_with(&format!(
            "Summary: start delay dominated 2 of 2 checkpoints, each at {CHAIN_1}."
        )),
        "{summary}"
    );
    assert!(
        summary.contains("execution.checkpointing.unaligned.enabled"),
        "{summary}"
    );
}

#[test]
fn one_checkpoint_and_the_refusals() {
    let path = fixture("seed-backpressure.json");
    let (ok, out, err) = barrierlab(&["explain", &path, "--checkpoint", "5"]);
    assert!(ok, "{err}");
    assert!(out.contains("Checkpoint 5 took 2.85 s"), "{out}");
    assert!(!out.contains("Checkpoint 4"), "{out}");
    assert!(!out.contains("Summary"), "{out}");

    let (ok, _, err) = barrierlab(&["explain", &path, "--checkpoint", "3"]);
    assert!(!ok);
    assert!(
        err.contains("no details of checkpoint 3; it has checkpoint(s) 4, 5, 6"),
        "{err}"
    );

    let (ok, out, err) = barrierlab(&["explain", &fixture("no-checkpoints-yet.json")]);
    assert!(!ok);
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains("the bundle holds no checkpoint details"),
        "{err}"
    );

    let dir = std::env::temp_dir().join(format!("barrierlab-explain-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cut = dir.join("cut.json");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&cut, &text[..text.len() / 2]).unwrap();
    let (ok, _, err) = barrierlab(&["explain", cut.to_str().unwrap()]);
    assert!(!ok);
    assert!(err.contains("the JSON stops early"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A hand-built bundle: a source and `keyed`, three checkpoints whose critical subtask, keyed
/// #1, spends them in async (1 MB of 50 MB uploaded), alignment, and async again (20 MB: an
/// incremental RocksDB checkpoint re-uploading more than usual).
fn hand_built() -> String {
    let mb: u64 = 1 << 20;
    let sub = |index: u32, (delay, align, sync, asy, ack, cs): (i64, i64, i64, i64, i64, u64)| {
        serde_json::json!({
            "className": "completed", "index": index, "status": "completed",
            "ack_timestamp": 1000 + ack, "end_to_end_duration": ack,
            "checkpointed_size": cs, "state_size": 50 * mb,
            "checkpoint": {"sync": sync, "async": asy},
            "alignment": {"buffered": 0, "processed": 4096, "persisted": 0, "duration": align},
            "start_delay": delay, "unaligned_checkpoint": false
        })
    };
    let quick = (2, 0, 1, 3, 10, 100);
    let critical = [
        (10, 0, 1, 1500, 1600, mb),
        (10, 1500, 1, 10, 1600, mb),
        (10, 0, 1, 1500, 1600, 20 * mb),
    ];
    let (mut details, mut subtasks) = (serde_json::Map::new(), serde_json::Map::new());
    for (i, f) in critical.into_iter().enumerate() {
        let id = i as u64 + 1;
        details.insert(id.to_string(), serde_json::json!({
            "className": "completed", "id": id, "status": "COMPLETED",
            "trigger_timestamp": 1000, "latest_ack_timestamp": 2600, "end_to_end_duration": 1600,
            "checkpoint_type": "CHECKPOINT", "num_subtasks": 4, "num_acknowledged_subtasks": 4
        }));
        subtasks.insert(
            id.to_string(),
            serde_json::json!({
                "s": {"id": id, "status": "COMPLETED", "subtasks": [sub(0, quick), sub(1, quick)]},
                "k": {"id": id, "status": "COMPLETED", "subtasks": [sub(0, quick), sub(1, f)]}
            }),
        );
    }
    serde_json::json!({
        "barrierlab_bundle": {"format_version": 1, "job_id": "j", "flink_version": "2.3.0"},
        "job": {"jid": "j", "name": "hand-built", "state": "RUNNING", "vertices": [
            {"id": "s", "name": "Source: src", "parallelism": 2},
            {"id": "k", "name": "keyed", "parallelism": 2}
        ]},
        "config": {"mode": "exactly_once", "interval": 10000, "timeout": 60000,
                   "state_backend": "EmbeddedRocksDBStateBackend"},
        "details": details,
        "subtasks": subtasks
    })
    .to_string()
}

#[test]
fn names_alignment_and_an_incremental_reupload() {
    let path =
        std::env::temp_dir().join(format!("barrierlab-explain-hb-{}.json", std::process::id()));
    std::fs::write(&path, hand_built()).unwrap();
    let (ok, out, err) = barrierlab(&["explain", path.to_str().unwrap()]);
    std::fs::remove_file(&path).unwrap();
    assert!(ok, "{err}");
    assert!(out.contains("The alignment phase dominated"), "{out}");
    assert!(
        out.contains("It processed 4.0 KB during alignment"),
        "{out}"
    );
    assert!(
        out.contains("keyed #1 took 1.50 s uploading 1.0 MB (checkpointed size) of 50.0 MB of state (state size) (EmbeddedRocksDBStateBackend). The checkpoint is incremental"),
        "{out}"
    );
    assert!(
        out.contains("re-uploaded more than usual: 20.0 MB against a median of 1.0 MB"),
        "{out}"
    );
    assert!(
        out.contains("Summary: async dominated 2 of 3 checkpoints, each at keyed #1 (otherwise: alignment 1)."),
        "{out}"
    );
}
