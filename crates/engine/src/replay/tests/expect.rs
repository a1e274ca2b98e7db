//! `expect` steps: subset matching, units, the step they check, and refusals of bad ones.

use super::support::*;

fn aligned(steps: &str) -> String {
    format!(r#"{{"version": 1, "machine": "aligned", "channels": 2, "steps": [{steps}]}}"#)
}

fn failures(steps: &str) -> Vec<Vec<String>> {
    run(&aligned(steps))
        .expectations
        .into_iter()
        .map(|e| e.failures)
        .collect()
}

#[test]
fn subset_of_state_and_effects_holds() {
    let f = failures(
        r#"{"expect": {"state": {"state": "WaitingForFirstBarrier"}, "effects": []}},
           {"advance": "2ms"},
           {"barrier": {"channel": 0, "id": 1, "timestamp": "1ms"}},
           {"expect": {"time": "2ms", "state": {"blocked_channels": [0], "pending_checkpoints": [1]},
                       "effects": [{"handler": {"BlockChannel": {"channel": 0}}}]}},
           {"barrier": {"channel": 1, "id": 1, "timestamp": "1ms"}},
           {"expect": {"effects_include": [{"handler": {"TriggerCheckpoint": {"barrier": {"id": 1}, "start_delay": "1ms"}}}],
                       "effects_exclude": [{"handler": {"AbortCheckpoint": {}}}]}}"#,
    );
    assert_eq!(f, vec![Vec::<String>::new(); 3]);
}

#[test]
fn each_kind_of_mismatch_is_named() {
    let f = failures(
        r#"{"barrier": {"channel": 0, "id": 1}},
           {"expect": {"time": 5,
                       "state": {"state": "CollectingBarriers", "blocked_channels": [1], "nope": 1},
                       "effects": [],
                       "effects_include": [{"handler": {"TriggerCheckpoint": {}}}],
                       "effects_exclude": [{"handler": {"BlockChannel": {}}}]}}"#,
    );
    let f = &f[0];
    assert_eq!(f.len(), 6, "{f:#?}");
    assert!(f[0].starts_with("time: expected 5, got 0"), "{f:?}");
    assert!(
        f[1].starts_with("state.blocked_channels[0]: expected 1, got 0"),
        "{f:?}"
    );
    assert!(
        f[2].starts_with("state.nope: expected 1, but there is no 'nope'"),
        "{f:?}"
    );
    assert!(
        f[3].starts_with("effects: expected 0 item(s), got 1"),
        "{f:?}"
    );
    assert!(
        f[4].starts_with("effects_include[0]: no effect matches"),
        "{f:?}"
    );
    assert!(
        f[5].starts_with("effects_exclude[0]: effect 0 matches"),
        "{f:?}"
    );
}

#[test]
fn an_expectation_checks_the_step_right_before_it() {
    let r = run(&aligned(
        r#"{"barrier": {"channel": 0, "id": 1}},
           {"expect": {"effects": [{"handler": {"BlockChannel": {"channel": 0}}}]}},
           {"expect": {"state": {"state": "CollectingBarriers"}}},
           {"buffer": {"channel": 1, "bytes": "1kb"}},
           {"expect": {"effects": [{"handler": {"Process": {"channel": 1, "bytes": "1kb"}}}]}}"#,
    ));
    // Expect steps keep their own indices and make no report steps.
    assert_eq!(r.steps.iter().map(|s| s.step).collect::<Vec<_>>(), [0, 3]);
    let on: Vec<_> = r.expectations.iter().map(|e| (e.step, e.after)).collect();
    assert_eq!(on, [(1, Some(0)), (2, Some(0)), (4, Some(3))]);
    assert_eq!(r.failed_expectations().count(), 0);
}

#[test]
fn from_and_differs_are_reported() {
    let r = run(r#"{"version": 1, "machine": "at-least-once", "channels": 1,
        "from": "CheckpointBarrierTrackerTest#x", "differs": "why", "note": "n",
        "steps": [{"barrier": {"channel": 0, "id": 1}},
                  {"expect": {"effects": [{"handler": {"TriggerCheckpoint": {"barrier": {"id": 2}}}}]}}]}"#);
    assert_eq!(r.from.as_deref(), Some("CheckpointBarrierTrackerTest#x"));
    assert_eq!(r.differs.as_deref(), Some("why"));
    assert_eq!(r.failed_expectations().count(), 1);
}

#[test]
fn bad_expectations_are_refused_with_the_step() {
    let e = error(&aligned(r#"{"expect": {"stat": {}}}"#));
    assert!(
        e.starts_with("step 0 {\"expect\":{\"stat\":{}}}: unknown \"expect\" key 'stat'"),
        "{e}"
    );
    let e = error(&aligned(r#"{"expect": {}}"#));
    assert!(e.contains("\"expect\" takes an object"), "{e}");
    let e = error(&aligned(r#"{"expect": {"effects_include": {}}}"#));
    assert!(e.contains("\"effects_include\" takes a list"), "{e}");
    let e = error(r#"{"version": 1, "machine": "aligned", "channels": 1, "from": 3, "steps": []}"#);
    assert!(e.contains("\"from\" must be a string"), "{e}");
    // An expect next to another key is not an expect step: it is a malformed step.
    let e = error(&aligned(r#"{"expect": {"time": 0}, "advance": "1ms"}"#));
    assert!(e.contains("exactly one key"), "{e}");
}

#[test]
fn coordinator_scripts_take_expectations() {
    let r = run(r#"{"version": 1, "machine": "coordinator",
        "config": {"execution.checkpointing.interval": "1s"},
        "tasks": {"sources": ["0/0"], "all": ["0/0"]},
        "steps": [{"expect": {"effects": [{"coordinator": {"ScheduleTimer": {"timer": "Periodic"}}}]}},
                  {"trigger": "checkpoint"},
                  {"expect": {"state": {"pending": [{"id": 1, "waiting_for": ["0/0"]}], "next_checkpoint_id": 2}}},
                  {"ack": {"id": 1, "task": "0/0"}},
                  {"expect": {"effects_include": [{"coordinator": {"CheckpointCompleted": {}}}], "state": {"latest_completed": 1}}}]}"#);
    assert_eq!(r.expectations.len(), 3);
    assert_eq!(r.failed_expectations().count(), 0, "{:#?}", r.expectations);
}

#[test]
fn coordinator_state_shows_the_statistics() {
    let r = run(r#"{"version": 1, "machine": "coordinator",
        "tasks": {"sources": ["0/0"], "all": ["0/0"]},
        "steps": [{"trigger": "checkpoint"},
                  {"decline": {"id": 1, "task": "0/0"}},
                  {"expect": {"state": {"stats": {"counts": {"total": 1, "failed": 1, "in_progress": 0},
                      "history": [{"id": 1, "status": "FAILED", "num_acknowledged_subtasks": 0}]}}}}]}"#);
    assert_eq!(r.failed_expectations().count(), 0, "{:#?}", r.expectations);
}
