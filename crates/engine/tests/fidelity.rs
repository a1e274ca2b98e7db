//! The seed's §10 table, reproduced: `barrierlab run --preset P --seconds 30 --seed 1`.

use barrierlab_engine::scenario::preset;
use barrierlab_engine::sim::{CheckpointRow, Simulation};
use barrierlab_engine::stats::CheckpointStatsStatus;
use barrierlab_engine::task::Operator;
use barrierlab_engine::types::{MICROS_PER_MS, MICROS_PER_SEC};

fn run(name: &str) -> Simulation {
    let mut scenario = preset(name).expect("preset exists");
    scenario.seed = 1;
    let mut sim = Simulation::new(scenario).expect("preset is valid");
    sim.run_until(30 * MICROS_PER_SEC);
    sim
}

fn completed(sim: &Simulation) -> Vec<CheckpointRow> {
    let rows: Vec<CheckpointRow> = sim
        .checkpoint_rows()
        .into_iter()
        .filter(|r| r.status == CheckpointStatsStatus::COMPLETED)
        .collect();
    assert!(
        rows.len() >= 5,
        "expected at least 5 completed checkpoints, got {rows:?}"
    );
    rows
}

#[test]
fn seed_demo_checkpoints_take_at_most_100ms() {
    let sim = run("seed-demo");
    for r in completed(&sim) {
        let d = r.duration.unwrap();
        assert!(d <= 100 * MICROS_PER_MS, "checkpoint {} took {d}us", r.id);
        assert_eq!(
            r.persisted, 0,
            "aligned checkpoints persist no in-flight data"
        );
    }
}

#[test]
fn seed_backpressure_checkpoints_wait_in_start_delay_for_seconds() {
    let sim = run("seed-backpressure");
    let rows = completed(&sim);
    let sizes: Vec<u64> = rows[1..5].iter().map(|r| r.checkpointed_size).collect();
    for r in &rows[1..5] {
        let d = r.duration.unwrap();
        assert!(
            // Real Flink 2.3 on this job: checkpoint 2 about 2.4 s (its queues still filling
            // after the start), then 2.8-2.9 s (tests/flink); the seed measured 3.0-3.9 s.
            (2_200 * MICROS_PER_MS..=4_500 * MICROS_PER_MS).contains(&d),
            "checkpoint {} took {d}us",
            r.id
        );
        // The time is the barrier queuing behind full buffers: start delay, not alignment.
        let keyed = r
            .vertices
            .iter()
            .find(|v| v.vertex.starts_with("count-per-key"))
            .unwrap();
        assert!(
            keyed.max_start_delay * 10 >= d * 7,
            "start delay {} of {d}",
            keyed.max_start_delay
        );
        assert!(
            keyed.max_alignment * 5 <= d,
            "alignment {} of {d}",
            keyed.max_alignment
        );
    }
    assert!(
        sizes.windows(2).all(|w| w[0] == w[1]),
        "state size grew: {sizes:?}"
    );
}

#[test]
fn seed_unaligned_checkpoints_are_fast_but_persist_in_flight_data() {
    let sim = run("seed-unaligned");
    let rows = completed(&sim);
    for r in &rows[1..5] {
        let d = r.duration.unwrap();
        assert!(d <= 100 * MICROS_PER_MS, "checkpoint {} took {d}us", r.id);
        assert!(r.unaligned);
        assert!(
            (400 * 1024..=900 * 1024).contains(&r.persisted),
            "checkpoint {} persisted {} bytes",
            r.id,
            r.persisted
        );
    }
}

#[test]
fn sixteen_integer_keys_split_seven_nine_over_two_subtasks() {
    let sim = run("seed-demo");
    let keyed: Vec<_> = sim
        .tasks
        .iter()
        .filter(|t| t.id.vertex == 1)
        .map(|t| match &t.operators[0] {
            Operator::KeyedCount(k) => k.backend.counters().entries,
            other => panic!("expected the keyed count, got {other:?}"),
        })
        .collect();
    assert_eq!(keyed, vec![7, 9]);
    // The same split shows in the records each subtask received (within 2 % of 7/16 and 9/16).
    let records: Vec<u64> = sim
        .tasks
        .iter()
        .filter(|t| t.id.vertex == 1)
        .map(|t| t.records_in)
        .collect();
    let total = records[0] + records[1];
    assert!(
        (records[0] * 1600 / total).abs_diff(700) <= 14,
        "{records:?}"
    );
    let bp = sim.backpressure();
    let keyed = &sim.job_vertex_ids()[1];
    assert_eq!(bp[keyed].subtasks[0].records_in, records[0]);
}

#[test]
fn only_the_nine_key_subtask_is_truly_backpressured() {
    let sim = run("seed-backpressure");
    let busy: Vec<u64> = sim
        .tasks
        .iter()
        .filter(|t| t.id.vertex == 1)
        .map(|t| t.time.recent(10).busy * 100 / t.time.recent(10).total())
        .collect();
    assert!(busy[1] >= 95, "9-key subtask busy {}%", busy[1]);
    assert!(busy[0] < 90, "7-key subtask busy {}%", busy[0]);
}

/// The reference figure of the differential harness's machine calibration
/// (tests/flink/harness.py, `machine_speed`): seed-demo's median ack − trigger over checkpoints
/// from 2 on, every subtask, seeds 1..=8, as the harness pools them. It is what the latency
/// defaults were measured to give; pinned here so that the harness's "machine too slow, not
/// judged" can only ever mean that real Flink was slow, never that the simulator got faster.
#[test]
fn calibration_reference_seed_demo_ack_after_trigger_is_about_10ms() {
    let mut acks = Vec::new();
    for seed in 1..=8 {
        let mut scenario = preset("seed-demo").unwrap();
        scenario.seed = seed;
        let mut sim = Simulation::new(scenario).unwrap();
        sim.run_until(22 * MICROS_PER_SEC);
        let report = sim.json_report_at(0);
        let details = report["details"].as_object().unwrap();
        for (id, vertices) in report["subtasks"].as_object().unwrap() {
            if id.parse::<u64>().unwrap() < 2 {
                continue;
            }
            let trigger = details[id]["trigger_timestamp"].as_i64().unwrap();
            for v in vertices.as_object().unwrap().values() {
                for s in v["subtasks"].as_array().unwrap() {
                    if let Some(ack) = s["ack_timestamp"].as_i64() {
                        acks.push(ack - trigger);
                    }
                }
            }
        }
    }
    acks.sort_unstable();
    assert!(acks.len() >= 100, "{} acks", acks.len());
    let median = acks[acks.len() / 2];
    assert!(
        (8..=13).contains(&median),
        "seed-demo's median ack − trigger is {median} ms (pinned 8-13 ms): the harness calibrates \
         the machine against it; if the model changed on purpose, re-measure the latency defaults \
         against real Flink (docs/fidelity.md, Calibration)"
    );
}

/// Seed 000 §10.3's exercise: the backpressured job with buffer debloating on. Real Flink 2.3
/// (tests/flink, scenario seed-debloat): checkpoints 2 and 3 take 0.6 s and 0.8 s while the
/// buffers shrink, then 0.92-0.96 s against the 1 s target; the 9-key subtask's gate settles at
/// `debloatedBufferSize` 10 719 bytes and the starved 7-key one stays at 32 768.
#[test]
fn buffer_debloating_brings_aligned_checkpoints_under_backpressure_to_the_target() {
    let mut scenario = preset("seed-backpressure").expect("preset exists");
    scenario.seed = 1;
    scenario.config.insert(
        "taskmanager.network.memory.buffer-debloat.enabled".into(),
        "true".into(),
    );
    let mut sim = Simulation::new(scenario).expect("valid");
    sim.run_until(30 * MICROS_PER_SEC);
    let rows = completed(&sim);
    for r in &rows[3..] {
        let d = r.duration.unwrap();
        assert!(
            (800 * MICROS_PER_MS..=1_100 * MICROS_PER_MS).contains(&d),
            "checkpoint {} took {d}us",
            r.id
        );
        assert_eq!(r.persisted, 0, "still aligned");
    }
    let report = sim.rest_report();
    let sizes: Vec<String> = report
        .metrics
        .values()
        .flatten()
        .flat_map(|m| m.iter())
        .filter(|m| m.id == "Shuffle.Netty.Input.0.debloatedBufferSize")
        .map(|m| m.value.clone())
        .collect();
    assert_eq!(sizes.len(), 2, "{sizes:?}");
    assert_eq!(sizes[0], "32768", "the starved subtask keeps full buffers");
    let busy: u32 = sizes[1].parse().unwrap();
    assert!((9_000..=12_500).contains(&busy), "{busy}");
}

/// Checkpoint 1 runs on cold TaskManager JVMs (`task/warm_up.rs`). Real Flink 2.3 on seed-demo
/// (tests/flink): checkpoint 1 takes 61-93 ms, the sources' start delay 25-38 ms, their sync and
/// async phases 9-27 ms; the next checkpoints 8-24 ms. After a failover the TaskManagers are
/// still warm: seed-2pc-kill's first checkpoint after the restore takes 13-19 ms.
#[test]
fn checkpoint_1_runs_on_cold_jvms_and_a_failover_keeps_them_warm() {
    let sim = run("seed-demo");
    let rows = completed(&sim);
    let first = rows[0].duration.unwrap();
    assert!(
        (50 * MICROS_PER_MS..=110 * MICROS_PER_MS).contains(&first),
        "checkpoint 1 took {first}us"
    );
    let source = rows[0]
        .vertices
        .iter()
        .find(|v| v.vertex.contains("datagen"))
        .unwrap();
    assert!(source.max_start_delay >= 25 * MICROS_PER_MS, "{source:?}");
    for r in &rows[1..] {
        assert!(r.duration.unwrap() <= 25 * MICROS_PER_MS, "{r:?}");
    }

    let mut scenario = preset("seed-2pc").unwrap();
    scenario.seed = 1;
    scenario
        .faults
        .push(barrierlab_engine::scenario::parse_fail_flag("count-per-key#1@12s").unwrap());
    let mut sim = Simulation::new(scenario).unwrap();
    sim.run_until(30 * MICROS_PER_SEC);
    let after: Vec<_> = completed(&sim)
        .into_iter()
        .filter(|r| r.trigger > 12 * MICROS_PER_SEC)
        .collect();
    assert!(!after.is_empty());
    assert!(
        after[0].duration.unwrap() <= 25 * MICROS_PER_MS,
        "the first checkpoint after the restore: {:?}",
        after[0]
    );
}
