//! `barrierlab derive FILE --out scenario.json`: a scenario from a recorded bundle, which
//! `barrierlab run` then simulates; and the refusals.

mod common;

use common::barrierlab;

fn fixture(name: &str) -> String {
    format!(
        "{}/../../tests/fixtures/collect/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn temp_dir(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("barrierlab-derive-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn derives_a_scenario_that_runs() {
    let dir = temp_dir("run");
    let out = dir.join("x.json");
    let out = out.to_str().unwrap();
    let (ok, stdout, err) =
        barrierlab(&["derive", &fixture("seed-backpressure.json"), "--out", out]);
    assert!(ok, "{err}");
    assert!(stdout.is_empty(), "{stdout}");
    // The notes say what was assumed.
    assert!(
        err.contains("note: 'Source: datagen': keys are not in Flink's REST API"),
        "{err}"
    );
    assert!(err.contains("ValueState<Long> counter"), "{err}");
    assert!(err.contains(&format!("wrote {out}")), "{err}");
    let json = std::fs::read_to_string(out).unwrap();
    assert!(json.contains("\"partitioner\": \"hash\""), "{json}");
    assert!(
        json.contains("\"execution.checkpointing.interval\": \"5000ms\""),
        "{json}"
    );

    let (ok, stdout, err) = barrierlab(&["run", out, "--seconds", "20"]);
    assert!(ok, "{err}");
    // The simulated job has the real job's vertices.
    assert!(stdout.contains("Source: datagen"), "{stdout}");
    assert!(
        stdout.contains("count-per-key -> checkpoint-aware-map -> discard-sink: Writer"),
        "{stdout}"
    );
    assert!(stdout.contains("COMPLETED"), "{stdout}");

    // Without --out the scenario goes to stdout.
    let (ok, stdout, _) = barrierlab(&["derive", &fixture("seed-backpressure.json")]);
    assert!(ok);
    assert_eq!(stdout, json);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn refuses_what_is_not_a_usable_bundle() {
    let dir = temp_dir("refuse");
    let text = std::fs::read_to_string(fixture("seed-backpressure.json")).unwrap();
    let cut = dir.join("cut.json");
    std::fs::write(&cut, &text[..text.len() / 3]).unwrap();
    let out = dir.join("x.json");
    let (ok, stdout, err) = barrierlab(&[
        "derive",
        cut.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!ok);
    assert!(stdout.is_empty(), "{stdout}");
    assert!(err.contains("cut.json: the JSON stops early"), "{err}");
    assert!(!out.exists());

    let global = dir.join("global.json");
    std::fs::write(
        &global,
        text.replace("\"ship_strategy\":\"HASH\"", "\"ship_strategy\":\"GLOBAL\""),
    )
    .unwrap();
    let (ok, _, err) = barrierlab(&["derive", global.to_str().unwrap()]);
    assert!(!ok);
    assert!(
        err.contains("the edge into 'count-per-key -> checkpoint-aware-map -> discard-sink: Writer' ships GLOBAL"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
