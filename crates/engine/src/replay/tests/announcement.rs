//! The replay's `announcement` step: where the handler's priority conversions come, and holding.

use crate::replay::{replay, Effect, ReplayStep};

fn names(step: &ReplayStep) -> Vec<String> {
    step.effects
        .iter()
        .map(|e| match &e.effect {
            Effect::Handler(h) => format!("{h:?}"),
            Effect::Driver(d) => format!("{d:?}"),
            other => format!("{other:?}"),
        })
        .map(|s| s.split([' ', '{']).next().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn announcement_requests_come_where_the_handler_made_them() {
    let r = replay(
        r#"{"version":1,"machine":"aligned-with-timeout","channels":3,"steps":[
        {"announcement":{"channel":1,"id":1,"timestamp":0,"timeout":"10ms","sequence_number":4}},
        {"barrier":{"channel":0,"id":1,"timestamp":0,"timeout":"10ms"}},
        {"advance":"10ms"}
    ]}"#,
    )
    .expect("the script runs");
    assert_eq!(
        names(&r.steps[2]),
        [
            "AlignmentTimerFired",
            "SwitchedToUnaligned",
            "ConvertToPriorityEvent",
            "StartPersisting",
            "StartPersisting",
            "TriggerCheckpoint",
        ]
    );
    let json = serde_json::to_value(&r.steps[2].effects[2]).unwrap();
    assert_eq!(
        json["handler"]["ConvertToPriorityEvent"],
        serde_json::json!({"channel": 1, "sequence_number": 4})
    );
}

#[test]
fn an_announcement_on_a_blocked_channel_waits_upstream() {
    let r = replay(
        r#"{"version":1,"machine":"aligned-with-timeout","channels":2,"steps":[
        {"barrier":{"channel":0,"id":1,"timeout":"1s"}},
        {"announcement":{"channel":0,"id":2,"timeout":"1s","sequence_number":7}},
        {"barrier":{"channel":1,"id":1,"timeout":"1s"}}
    ]}"#,
    )
    .expect("the script runs");
    assert_eq!(names(&r.steps[1]), ["Held"]);
    let last = names(&r.steps[2]);
    assert_eq!(
        last[last.len() - 2..],
        ["Released", "RegisterAlignmentTimer"]
    );
}

#[test]
fn announcement_steps_are_checked_like_barriers() {
    let run = |step: &str| {
        replay(&format!(
            r#"{{"version":1,"machine":"aligned","channels":2,"steps":[{step}]}}"#
        ))
    };
    let missing = run(r#"{"announcement":{"channel":0,"id":1}}"#).unwrap_err();
    assert!(missing.contains("sequence_number"), "{missing}");
    let unknown =
        run(r#"{"announcement":{"channel":0,"id":1,"sequence_number":0,"seq":1}}"#).unwrap_err();
    assert!(unknown.contains("seq"), "{unknown}");
    let timeout =
        run(r#"{"announcement":{"channel":0,"id":1,"sequence_number":0,"timeout":"1s"}}"#)
            .unwrap_err();
    assert!(timeout.contains("aligned-with-timeout"), "{timeout}");
}
