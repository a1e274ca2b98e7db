//! The evaluator over real engine runs: every step of every tutorial reaches its condition, the
//! event it stops on is the one the narration describes, and reaching a step twice gives the
//! same fingerprint.

use barrierlab_engine::scenario::preset;
use barrierlab_engine::sim::Simulation;
use barrierlab_engine::trace::TraceKind;

use super::*;

fn completed(sim: &Simulation, id: u64) -> (u64, u64) {
    sim.trace
        .events()
        .find_map(|e| match e.kind {
            TraceKind::CheckpointCompleted {
                id: i,
                duration,
                size,
            } if i == id => Some((duration, size)),
            _ => None,
        })
        .expect("checkpoint completed")
}

#[test]
fn every_step_reaches_its_condition_deterministically() {
    assert_eq!(built_in().len(), 8, "every built-in tutorial file parses");
    for t in built_in() {
        let mut last = (None, 0, String::new());
        for (k, step) in t.steps.iter().enumerate() {
            let r = reach(t, k).unwrap_or_else(|e| panic!("{} step {}: {e}", t.id, k + 1));
            assert_eq!(r.error, None, "{} step {}", t.id, k + 1);
            if let Until::Event { .. } = step.until {
                let hit = r
                    .hit
                    .as_ref()
                    .expect("an event condition stops on an event");
                assert_eq!(
                    hit.time,
                    r.sim.now,
                    "{} step {} stops at its event",
                    t.id,
                    k + 1
                );
            }
            // Within one setup, steps move forward and each shows something new.
            if last.0.as_ref() == Some(&step.setup) {
                assert!(
                    r.sim.now >= last.1,
                    "{} step {} went back in time",
                    t.id,
                    k + 1
                );
                assert_ne!(
                    r.sim.fingerprint(),
                    last.2,
                    "{} step {} shows nothing new",
                    t.id,
                    k + 1
                );
            }
            last = (Some(step.setup.clone()), r.sim.now, r.sim.fingerprint());
            let again = reach(t, k).unwrap();
            assert_eq!(again.sim.fingerprint(), r.sim.fingerprint());
        }
    }
}

#[test]
fn only_sources_get_the_trigger_rpc() {
    let t = find("who-triggers").unwrap();
    let r = reach(t, 5).unwrap();
    let hit = r.hit.unwrap();
    assert!(hit.describe.starts_with("completed 1 "), "{}", hit.describe);
    let triggered: Vec<_> = r
        .sim
        .trace
        .events()
        .filter(|e| matches!(e.kind, TraceKind::MailQueued { mail, .. } if mail == "triggerCheckpointAsync"))
        .map(|e| r.sim.graph.vertices[e.task.unwrap().vertex as usize].name.clone())
        .collect();
    assert_eq!(triggered, vec!["Source: datagen", "Source: datagen"]);
    // Step 3 stops on the source's mail, step 5 at count-per-key.
    let s3 = reach(t, 2).unwrap().hit.unwrap();
    assert!(s3.place.starts_with("Source: datagen"), "{}", s3.place);
    let s5 = reach(t, 4).unwrap().hit.unwrap();
    assert!(s5.place.starts_with("count-per-key"), "{}", s5.place);
    assert!(s5.describe.starts_with("barrier 1 on channel"));
}

#[test]
fn alignment_blocks_one_channel_until_the_last_barrier() {
    let t = find("alignment").unwrap();
    let blocked = reach(t, 1).unwrap().hit.unwrap();
    let resumed = reach(t, 2).unwrap().hit.unwrap();
    assert!(blocked.describe.contains("blocked"), "{}", blocked.describe);
    assert!(resumed.describe.contains("resumed"), "{}", resumed.describe);
    assert_eq!(blocked.place, resumed.place, "the same subtask aligns");
    // Under backpressure the barriers queue behind data for seconds and then arrive close
    // together: the time is start delay; the alignment itself is short, but there is one (the
    // step shows the 7-key subtask: the 9-key one gets both barriers at once).
    assert!(resumed.time > blocked.time);
    assert!(resumed.time - blocked.time < 100_000);
    let done = reach(t, 3).unwrap();
    let (duration, size) = completed(&done.sim, 2);
    assert!(
        duration > 1_000_000,
        "aligned under backpressure: {duration} µs"
    );
    assert!(size < 10_000, "no in-flight data: {size} bytes");
}

#[test]
fn unaligned_is_fast_and_large() {
    let t = find("unaligned").unwrap();
    let s2 = reach(t, 1).unwrap().hit.unwrap();
    assert!(s2.describe.contains("(urgent)"), "{}", s2.describe);
    let r = reach(t, 4).unwrap();
    let (duration, size) = completed(&r.sim, 2);
    assert!(duration < 50_000, "{duration} µs");
    assert!(size > 100_000, "{size} bytes");
}

#[test]
fn commit_waits_for_the_notification() {
    let t = find("completion-2pc").unwrap();
    let pending = reach(t, 1).unwrap();
    assert!(pending.sim.trace.events().all(|e| !matches!(
        e.kind,
        TraceKind::Commit { .. } | TraceKind::CheckpointCompleted { .. }
    )));
    let complete = reach(t, 2).unwrap();
    assert!(complete
        .sim
        .trace
        .events()
        .all(|e| !matches!(e.kind, TraceKind::Commit { .. })));
    let commit = reach(t, 3).unwrap().hit.unwrap();
    assert!(
        commit.describe.starts_with("committed"),
        "{}",
        commit.describe
    );
    // With notification 2 lost, subtask 1/2 commits checkpoint 2's records with checkpoint 3.
    let lost = reach(t, 4).unwrap();
    let commits: Vec<(u64, u32)> = lost
        .sim
        .trace
        .events()
        .filter_map(|e| match e.kind {
            TraceKind::Commit { id, .. } => Some((id, e.task.unwrap().subtask)),
            _ => None,
        })
        .collect();
    assert!(commits.contains(&(2, 1)));
    assert!(!commits.contains(&(2, 0)), "{commits:?}");
    assert!(commits.contains(&(3, 0)));
}

#[test]
fn the_experiment_reproduces_the_seed_ordering() {
    let t = find("experiment").unwrap();
    let d: Vec<(u64, u64)> = (0..t.steps.len())
        .map(|k| completed(&reach(t, k).unwrap().sim, 3))
        .collect();
    let (aligned, backpressured, unaligned, timeout, light, small) =
        (d[0], d[1], d[2], d[3], d[4], d[5]);
    assert!(aligned.0 < 50_000 && backpressured.0 > 1_000_000 && unaligned.0 < 50_000);
    assert_eq!(
        aligned.1 / 1000,
        backpressured.1 / 1000,
        "backpressure does not grow the state"
    );
    assert!(unaligned.1 > 50 * backpressured.1);
    assert!((900_000..1_200_000).contains(&timeout.0), "{timeout:?}");
    assert!(timeout.1 > backpressured.1 && timeout.1 < unaligned.1);
    assert!(light.0 < backpressured.0 && small.0 < backpressured.0);
}

#[test]
fn a_condition_that_never_holds_says_so() {
    let mut sim = Simulation::new(preset("seed-demo").unwrap()).unwrap();
    let err = run_until(
        &mut sim,
        &on(Ev::BarrierOvertaking, None, None),
        &mut 0,
        |_| {},
    )
    .unwrap_err();
    assert!(err.contains("never got there"), "{err}");
    assert!(sim.now <= STEP_BOUND + 1_000_000);
}

#[test]
fn every_built_in_file_parses_and_round_trips() {
    for (name, json) in BUILT_IN {
        let t = file::parse(json, name).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            format!("{}.json", t.id),
            *name,
            "a file is named after its id"
        );
        let again = file::parse(&file::to_json(&t), name).unwrap();
        assert_eq!(again, t, "{name} round trips");
    }
}

#[test]
fn tutorial_texts_describe_the_job_instead_of_citing_unpublished_documents() {
    for t in built_in() {
        let texts = std::iter::once(&t.summary)
            .chain(std::iter::once(&t.title))
            .chain(t.steps.iter().flat_map(|s| [&s.title, &s.text]));
        for text in texts {
            let lower = text.to_lowercase();
            for bad in ["seed 000", "the seed", "seed's", "§"] {
                assert!(!lower.contains(bad), "{}: “{bad}” in “{text}”", t.id);
            }
        }
    }
}

/// A minimal valid file with `step` as its only step.
fn one_step(step: &str) -> String {
    format!(r#"{{"id": "mine", "title": "T", "summary": "S", "steps": [{step}]}}"#)
}

#[test]
fn a_bad_tutorial_file_says_what_is_wrong() {
    let ok = r#"{"title": "a", "text": "b", "setup": {"preset": "seed-demo"}, "until": {"event": "completed", "checkpoint": 1}}"#;
    assert!(file::parse(&one_step(ok), "x").is_ok());
    let cases: &[(&str, &str)] = &[
        ("not json", "expected"),
        (
            r#"{"id": "Mine!", "title": "T", "summary": "S", "steps": []}"#,
            "“id”",
        ),
        (
            r#"{"id": "mine", "title": "T", "summary": "S", "steps": []}"#,
            "“steps” is empty",
        ),
        (
            r#"{"id": "mine", "title": "T", "summary": "S", "steps": [], "colour": 1}"#,
            "unknown field `colour`",
        ),
        (
            r#"{"format": "barrierlab-tutorial/9", "id": "m", "title": "T", "summary": "S", "steps": [{}]}"#,
            "“format”",
        ),
        (
            &one_step(r#"{"title": "a", "text": "b", "until": {"at": "1s"}}"#),
            "the first step needs a “setup”",
        ),
        (
            &one_step(
                r#"{"title": "a", "text": "b", "setup": {"preset": "nope"}, "until": {"at": "1s"}}"#,
            ),
            "no preset “nope”",
        ),
        (
            &one_step(
                r#"{"title": "a", "text": "b", "setup": {"preset": "seed-demo", "set": ["no.such.key=1"]}, "until": {"at": "1s"}}"#,
            ),
            "step 1 (“a”): setup:",
        ),
        (
            &one_step(
                r#"{"title": "a", "text": "b", "setup": {"preset": "seed-demo"}, "until": {"event": "complted"}}"#,
            ),
            "unknown variant `complted`",
        ),
        (
            &one_step(
                r#"{"title": "a", "text": "b", "setup": {"preset": "seed-demo"}, "until": {}}"#,
            ),
            "exactly one of “at”",
        ),
        (
            &one_step(
                r#"{"title": "a", "text": "b", "setup": {"preset": "seed-demo"}, "until": {"at": "soon"}}"#,
            ),
            "until.at",
        ),
        (
            &one_step(
                r#"{"title": "a", "text": "b", "setup": {"preset": "seed-demo"}, "until": {"event": "commit", "operator": "count-per-kye"}}"#,
            ),
            "no operator “count-per-kye”",
        ),
        (
            &one_step(
                r#"{"title": "a", "text": "b", "setup": {"preset": "seed-demo"}, "until": {"event": "commit", "nth": 0}}"#,
            ),
            "counts from 1",
        ),
        (
            &one_step(
                r#"{"title": "a", "text": "b", "setup": {"preset": "seed-demo"}, "until": {"at": "1s"}, "view": {"panel": "nowhere"}}"#,
            ),
            "no panel “nowhere”",
        ),
        (
            &one_step(
                r#"{"title": "a", "text": "b", "setup": {"preset": "seed-demo"}, "until": {"at": "1s"}, "view": {"highlight": "all"}}"#,
            ),
            "view.highlight",
        ),
    ];
    for (json, want) in cases {
        let err = file::parse(json, "“mine.json”").expect_err(json);
        assert!(
            err.starts_with("The tutorial file “mine.json” cannot be used: "),
            "{err}"
        );
        assert!(err.contains(want), "{json}\n→ {err}\n(wanted “{want}”)");
    }
    // A built-in id cannot be taken over by a loaded file.
    let mut t = file::parse(&one_step(ok), "x").unwrap();
    t.id = "alignment".into();
    assert!(register(t).unwrap_err().contains("built-in"));
}

#[test]
fn the_documented_example_file_parses_and_runs() {
    let json = include_str!("../../../../docs/tutorial-example.json");
    let t = file::parse(json, "docs/tutorial-example.json").unwrap_or_else(|e| panic!("{e}"));
    for k in 0..t.steps.len() {
        let r = reach(&t, k).unwrap();
        assert_eq!(r.error, None, "step {}", k + 1);
    }
}

/// Every step of every built-in tutorial lands on the trace fingerprint it had before the
/// tutorials moved from Rust statics into JSON files (`fingerprints.txt`: id, step, fingerprint).
/// After an intended model change: `BARRIERLAB_UPDATE_FINGERPRINTS=1 cargo test -p barrierlab-app
/// --lib built_in_steps`, as for the engine's fixture.
#[test]
fn built_in_steps_land_on_their_recorded_fingerprints() {
    let update = std::env::var_os("BARRIERLAB_UPDATE_FINGERPRINTS").is_some();
    let mut want = include_str!("fingerprints.txt").lines();
    let mut got_all = String::new();
    for t in built_in() {
        for k in 0..t.steps.len() {
            let got = format!(
                "{} {} {}",
                t.id,
                k + 1,
                reach(t, k).unwrap().sim.fingerprint()
            );
            if !update {
                assert_eq!(Some(got.as_str()), want.next());
            }
            got_all += &(got + "\n");
        }
    }
    if update {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/tutorial/fingerprints.txt");
        std::fs::write(path, got_all).unwrap();
    } else {
        assert_eq!(want.next(), None, "a step is missing");
    }
}
