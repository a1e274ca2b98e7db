//! The cost estimate is an upper bound on what a run does, for every preset and for a sample of
//! the fuzzer's hostile scenarios; the budget refuses what it must and nothing a preset needs.

use barrierlab_engine::scenario::fuzz::{over_budget_example, ScenarioFuzzer};
use barrierlab_engine::scenario::{preset, Scenario, PRESETS};
use barrierlab_engine::sim::Simulation;
use barrierlab_engine::types::MICROS_PER_SEC;

/// Record-hops plus events of a run of `seconds`, and what the estimate allowed; `None` when the
/// fault script names what does not exist (refused with a message when the job deploys).
fn try_actual_and_allowed(scenario: Scenario, seconds: u64) -> Option<(u64, u64)> {
    let estimate = scenario.cost_estimate().unwrap();
    let mut sim = match Simulation::new(scenario) {
        Ok(sim) => sim,
        Err(m) => {
            assert!(!m.trim().is_empty());
            return None;
        }
    };
    sim.run_until(seconds * MICROS_PER_SEC);
    let hops: u64 = sim.tasks.iter().map(|t| t.records_in).sum();
    Some((
        hops + sim.events,
        estimate.work_for(seconds * MICROS_PER_SEC),
    ))
}

fn actual_and_allowed(scenario: Scenario, seconds: u64) -> (u64, u64) {
    try_actual_and_allowed(scenario, seconds).expect("the job deploys")
}

#[test]
fn every_preset_stays_within_its_estimate_and_the_budget() {
    for (name, _) in PRESETS {
        let s = preset(name).unwrap();
        let e = s.cost_estimate().unwrap();
        assert!(e.over_budget().is_none(), "{name}: {e}");
        let (actual, allowed) = actual_and_allowed(s, 20);
        assert!(actual <= allowed, "{name}: {actual} > {allowed}");
        // Not a vacuous bound: within an order of magnitude of the run.
        assert!(allowed < actual * 10, "{name}: {actual} vs {allowed}");
    }
}

#[test]
fn the_estimate_follows_rate_record_size_and_broadcast() {
    let base = preset("seed-demo").unwrap().cost_estimate().unwrap();
    let with = |set: &str| {
        let mut s = preset("seed-demo").unwrap();
        barrierlab_engine::scenario::apply_set(&mut s, set).unwrap();
        s.cost_estimate().unwrap()
    };
    let faster = with("operator.datagen.rate=20000");
    assert!(
        faster.record_hops >= 9 * base.record_hops,
        "{faster} vs {base}"
    );
    let larger = with("operator.datagen.record-size=1048576");
    assert!(
        larger.buffers >= 2000 * 32,
        "1 MiB records span 32 buffers: {larger}"
    );
    assert!(larger.over_budget().is_none(), "{larger}");
    // A `slow` fault can make an operator cheaper than the scenario says: the estimate takes the
    // lowest cost it will have.
    let mut bp = preset("seed-backpressure").unwrap();
    let capped = bp.cost_estimate().unwrap();
    bp.faults.push(barrierlab_engine::scenario::Fault::Slow {
        operator: "count-per-key".into(),
        from: "1s".into(),
        cost_per_record: "0us".into(),
    });
    let freed = bp.cost_estimate().unwrap();
    assert!(
        freed.record_hops > capped.record_hops,
        "{freed} vs {capped}"
    );
    assert!(
        freed.work_for(0) >= 2 * freed.work_per_second(),
        "a fault adds a second's worth"
    );
    let often = with("execution.checkpointing.interval=10ms");
    assert!(often.events > base.events, "{often} vs {base}");
    let slow = with("operator.count-per-key.cost-per-record=5ms");
    assert!(
        slow.record_hops < base.record_hops,
        "capacity caps the flow: {slow}"
    );
}

#[test]
fn an_over_budget_scenario_needs_consent() {
    let mut s = over_budget_example();
    let Err(err) = Simulation::new(s.clone()) else {
        panic!("refused")
    };
    assert!(
        err.contains("above the budget") && err.contains("Run anyway"),
        "{err}"
    );
    assert!(Simulation::new_over_budget(s.clone()).is_ok());
    // Past the channel budget: refused for memory, whatever the work.
    for op in [
        "datagen",
        "count-per-key",
        "checkpoint-aware-map",
        "discard-sink",
    ] {
        barrierlab_engine::scenario::apply_set(&mut s, &format!("operator.{op}.parallelism=1024"))
            .unwrap();
    }
    let why = s.cost_estimate().unwrap().over_budget().unwrap();
    assert!(why.contains("channels"), "{why}");
}

/// The engine's share of `barrierlab fuzz-scenarios` (CI runs 20,000 with the CLI).
#[test]
fn fuzzed_scenarios_are_refused_with_a_message_or_stay_within_their_estimate() {
    let (mut ran, mut refused) = (0, 0);
    for (i, case) in ScenarioFuzzer::new(11).take(400).enumerate() {
        let scenario = match case.scenario() {
            Ok(s) => s,
            Err(m) => {
                assert!(!m.trim().is_empty(), "case {i}");
                refused += 1;
                continue;
            }
        };
        let estimate = match scenario.cost_estimate() {
            Ok(e) => e,
            Err(m) => {
                assert!(!m.trim().is_empty(), "case {i}");
                refused += 1;
                continue;
            }
        };
        if estimate.over_budget().is_some() {
            refused += 1;
            continue;
        }
        let Some((actual, allowed)) = try_actual_and_allowed(scenario, 1) else {
            refused += 1;
            continue;
        };
        assert!(
            actual <= allowed,
            "case {i}: {actual} > {allowed}\n{}",
            case.json
        );
        ran += 1;
    }
    assert!(ran > 50 && refused > 50, "ran {ran}, refused {refused}");
}

#[test]
fn a_rescale_beyond_the_budget_is_refused_unless_the_job_runs_by_consent() {
    let mut s = preset("seed-demo").unwrap();
    barrierlab_engine::scenario::apply_set(&mut s, "pipeline.max-parallelism=4096").unwrap();
    // 512 source subtasks: a consumer at 1024 would make 524,288 channels over the hash edge.
    barrierlab_engine::scenario::apply_set(&mut s, "operator.datagen.parallelism=512").unwrap();
    let mut sim = Simulation::new(s.clone()).unwrap();
    sim.run_until(12 * MICROS_PER_SEC);
    let wide = [
        ("count-per-key", 1024),
        ("checkpoint-aware-map", 1024),
        ("discard-sink", 1024),
    ];
    let err = sim.rescale(&wide).unwrap_err();
    assert!(err.contains("above the budget"), "{err}");
    assert_eq!(sim.tasks.len(), 514, "the job keeps its parallelism");
    let narrow = [
        ("count-per-key", 4),
        ("checkpoint-aware-map", 4),
        ("discard-sink", 4),
    ];
    assert!(sim.rescale(&narrow).is_ok(), "a rescale within it works");
    let mut consented = Simulation::new_over_budget(s).unwrap();
    consented.run_until(12 * MICROS_PER_SEC);
    let result = consented.rescale(&wide);
    assert!(result.is_ok(), "{result:?}");
}

#[test]
fn a_stored_checkpoint_of_a_job_over_the_budget_restores_only_by_consent() {
    use barrierlab_engine::storage::{CheckpointStorage, StorageEffect};
    let mut sim = Simulation::new_over_budget(over_budget_example()).unwrap();
    let mut storage = CheckpointStorage::attach(&sim);
    let mut stored = None;
    while stored.is_none() && sim.now < 3 * MICROS_PER_SEC {
        sim.run_until(sim.now + 100_000);
        stored = storage.poll(&sim).into_iter().find_map(|e| match e {
            StorageEffect::Store(s) => Some(s),
            _ => None,
        });
    }
    let stored = stored.expect("a checkpoint completed");
    let Err(err) = Simulation::from_stored(&stored) else {
        panic!("restored without consent")
    };
    assert!(err.contains("above the budget"), "{err}");
    assert!(Simulation::from_stored_consented(&stored, true).is_ok());
}

/// A source far slower than its rate still generates every record due in its first action and
/// pays their cost after them: the burst is in the bound (the fuzzer's case #354, seed 1).
#[test]
fn a_slow_sources_first_burst_is_within_the_estimate() {
    for name in PRESETS.iter().map(|(n, _)| *n) {
        let mut s = preset(name).unwrap();
        let sources: Vec<String> = s
            .operators
            .iter()
            .filter(|o| o.kind.is_source())
            .map(|o| o.name.clone())
            .collect();
        for source in sources {
            let set = format!("operator.{source}.cost-per-record=10ms");
            barrierlab_engine::scenario::apply_set(&mut s, &set).unwrap();
        }
        let (actual, allowed) = actual_and_allowed(s, 2);
        assert!(actual <= allowed, "{name}: {actual} > {allowed}");
    }
}
