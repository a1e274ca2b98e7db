//! Bad scripts are refused with a message that says where and what, never a panic.

use super::support::error;

const HEAD: &str = r#""version":1,"machine":"aligned","channels":2"#;
const COORD: &str =
    r#""version":1,"machine":"coordinator","tasks":{"sources":["0/0"],"all":["0/0","1/0"]}"#;

fn barrier_script(steps: &str) -> String {
    format!("{{{HEAD},\"steps\":[{steps}]}}")
}

fn coordinator_script(steps: &str) -> String {
    format!("{{{COORD},\"steps\":[{steps}]}}")
}

#[test]
fn json_syntax_errors_have_line_and_column() {
    let e = error("{\n  \"version\": 1,\n  oops\n}");
    assert!(
        e.contains("not valid JSON") && e.contains("line 3 column 3"),
        "{e}"
    );
    assert!(error("").contains("not valid JSON"));
    assert!(error("[1, 2]").contains("must be a JSON object"));
}

#[test]
fn header_errors_name_the_field() {
    assert!(error(r#"{"machine":"aligned"}"#).contains("\"version\""));
    assert!(error(r#"{"version":3,"machine":"aligned"}"#).contains("unsupported"));
    let e = error(r#"{"version":1,"machine":"turbo"}"#);
    assert!(
        e.contains("turbo") && e.contains("aligned-with-timeout"),
        "{e}"
    );
    let e = error(&format!("{{{HEAD},\"steps\":[],\"seed\":1}}"));
    assert!(e.contains("unknown field `seed`"), "{e}");
    let e = error(r#"{"version":1,"machine":"aligned","channels":0,"steps":[]}"#);
    assert!(e.contains("\"channels\""), "{e}");
    let e = error(r#"{"version":1,"machine":"unaligned","steps":[]}"#);
    assert!(e.contains("missing field `channels`"), "{e}");
}

#[test]
fn step_errors_name_the_step() {
    let e = error(&barrier_script(
        r#"{"buffer":{"channel":0,"bytes":1}},{"barier":{"channel":0,"id":1}}"#,
    ));
    assert!(e.starts_with("step 1 ") && e.contains("barier"), "{e}");
    assert!(e.contains("`barrier`"), "lists the valid kinds: {e}");

    let e = error(&barrier_script(
        r#"{"advance":"1s"},{"buffer":{"channel":0}}"#,
    ));
    assert!(
        e.starts_with("step 1 ") && e.contains("missing field `bytes`"),
        "{e}"
    );

    let e = error(&barrier_script(
        r#"{"buffer":{"channel":0,"bytes":1,"colour":"red"}}"#,
    ));
    assert!(
        e.starts_with("step 0 ") && e.contains("unknown field `colour`"),
        "{e}"
    );

    let e = error(&barrier_script(r#"{"advance":"1s","timeout":{"id":1}}"#));
    assert!(e.contains("exactly one key"), "{e}");

    let e = error(&barrier_script(r#""advance""#));
    assert!(e.contains("exactly one key"), "{e}");
}

#[test]
fn value_errors_explain_the_expected_form() {
    let e = error(&barrier_script(r#"{"advance":"soon"}"#));
    assert!(
        e.starts_with("step 0 ") && e.contains("not a duration"),
        "{e}"
    );
    let e = error(&barrier_script(r#"{"advance":-1}"#));
    assert!(e.contains("negative"), "{e}");
    let e = error(&barrier_script(
        r#"{"buffer":{"channel":0,"bytes":"lots"}}"#,
    ));
    assert!(e.contains("not a memory size"), "{e}");
    let e = error(&coordinator_script(r#"{"fail_task":"1-0"}"#));
    assert!(e.contains("vertex/subtask"), "{e}");
    let e = error(&coordinator_script(
        r#"{"decline":{"id":1,"task":"1/0","reason":"BORED"}}"#,
    ));
    assert!(
        e.contains("BORED") && e.contains("CHECKPOINT_DECLINED"),
        "{e}"
    );
    let e = error(&coordinator_script(r#"{"trigger":"snapshot"}"#));
    assert!(e.contains("stop-with-savepoint"), "{e}");
    let e = error(&coordinator_script(
        r#"{"fail_next":{"call":"disk","exception":"IOException"}}"#,
    ));
    assert!(
        e.starts_with("step 0 ") && e.contains("checkpoint_id_counter"),
        "{e}"
    );
    let e = error(&coordinator_script(
        r#"{"fail_next":{"call":"metadata","exception":"OutOfMemoryError"}}"#,
    ));
    assert!(e.contains("IOException"), "{e}");
    let e = error(&coordinator_script(r#"{"abort_pending_checkpoints":{}}"#));
    assert!(e.contains("reason"), "{e}");
    let e = error(&coordinator_script(
        r#"{"stop_scheduler":{"during":"completed_store"}}"#,
    ));
    assert!(
        e.starts_with("step 0 ") && e.contains("only be stopped during"),
        "{e}"
    );
}

#[test]
fn barriers_flink_never_sends_are_refused() {
    let e = error(&barrier_script(
        r#"{"barrier":{"channel":0,"id":1,"timeout":"1s"}}"#,
    ));
    assert!(e.contains("aligned-with-timeout"), "{e}");
    let e = error(&barrier_script(
        r#"{"barrier":{"channel":0,"id":1,"kind":"savepoint","alignment":"unaligned"}}"#,
    ));
    assert!(e.contains("savepoint"), "{e}");
    let e = error(
        r#"{"version":1,"machine":"aligned-with-timeout","channels":1,"steps":[
            {"barrier":{"channel":0,"id":1,"timeout":0}}]}"#,
    );
    assert!(e.contains("unaligned from the start"), "{e}");
}

#[test]
fn upstream_stops_false_refuses_a_gate() {
    let e = error(
        r#"{"version":1,"machine":"aligned","channels":2,"gate":true,"upstream_stops":false,"steps":[]}"#,
    );
    assert!(e.contains("upstream_stops") && e.contains("gate"), "{e}");
}

#[test]
fn coordinator_setup_errors() {
    let e = error(
        r#"{"version":1,"machine":"coordinator","config":{"execution.checkpointing.intervall":"5s"},
            "tasks":{"sources":["0/0"],"all":["0/0"]},"steps":[]}"#,
    );
    assert!(
        e.starts_with("config:") && e.contains("did you mean"),
        "{e}"
    );
    let e = error(
        r#"{"version":1,"machine":"coordinator","config":{"execution.checkpointing.interval":5000},
            "tasks":{"sources":["0/0"],"all":["0/0"]},"steps":[]}"#,
    );
    assert!(e.contains("\"5000ms\""), "{e}");
    let e = error(
        r#"{"version":1,"machine":"coordinator","tasks":{"sources":["2/0"],"all":["0/0"]},"steps":[]}"#,
    );
    assert!(e.contains("2/0") && e.contains("\"all\""), "{e}");
    let e = error(
        r#"{"version":1,"machine":"coordinator","channels":2,"tasks":{"sources":[],"all":[]},"steps":[]}"#,
    );
    assert!(e.contains("unknown field `channels`"), "{e}");
}

#[test]
fn runaway_advances_are_refused() {
    let e = error(
        r#"{"version":1,"machine":"coordinator","config":{"execution.checkpointing.interval":"10ms"},
            "tasks":{"sources":["0/0"],"all":["0/0"]},"steps":[{"advance":"1d"}]}"#,
    );
    assert!(
        e.starts_with("step 0 ") && e.contains("shorter advances"),
        "{e}"
    );
    let e = error(&barrier_script(
        r#"{"advance":18446744073709551615},{"advance":1}"#,
    ));
    assert!(e.starts_with("step 1 ") && e.contains("overflow"), "{e}");
}
