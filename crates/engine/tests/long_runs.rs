//! Long runs stay small: nothing the engine keeps grows with simulated time, and folding final
//! sink records into their verdict leaves every verdict as it was.

use barrierlab_engine::barrier::BarrierHandler;
use barrierlab_engine::scenario::{parse_fail_flag, preset, OperatorKind, Scenario};
use barrierlab_engine::sim::{Simulation, UserRequest};
use barrierlab_engine::stats::CheckpointStatsStatus;
use barrierlab_engine::types::MICROS_PER_SEC;

fn with_faults(mut s: Scenario, kills: &[&str]) -> Scenario {
    for k in kills {
        s.faults.push(parse_fail_flag(k).unwrap());
    }
    s
}

fn unaligned(mut s: Scenario) -> Scenario {
    s.config.insert(
        "execution.checkpointing.unaligned.enabled".into(),
        "true".into(),
    );
    s.operators[1].cost_per_record = Some("5ms".into());
    s
}

fn plain_sink(mut s: Scenario) -> Scenario {
    let last = s.operators.len() - 1;
    s.operators[last].kind = OperatorKind::CollectSink;
    s
}

/// Runs `script` on two copies of the scenario, one folding records and one keeping them all.
fn both(s: Scenario, script: impl Fn(&mut Simulation)) -> (Simulation, Simulation) {
    let mut folded = Simulation::new(s.clone()).unwrap();
    let mut kept = Simulation::new(s).unwrap();
    kept.fold_records = false;
    script(&mut folded);
    script(&mut kept);
    (folded, kept)
}

fn folded_records(sim: &Simulation) -> u64 {
    sim.external.sinks.values().map(|s| s.folded.expected).sum()
}

fn until(seconds: u64) -> impl Fn(&mut Simulation) {
    move |sim| sim.run_until(seconds * MICROS_PER_SEC)
}

#[test]
fn folding_final_records_changes_no_verdict() {
    let kills = ["count-per-key#1@12s", "datagen#0@23s"];
    let seed_2pc = preset("seed-2pc").unwrap();
    let cases: Vec<(&str, Scenario)> = vec![
        ("2pc aligned", with_faults(seed_2pc.clone(), &kills)),
        (
            "2pc unaligned",
            with_faults(unaligned(seed_2pc.clone()), &kills),
        ),
        (
            "plain aligned",
            with_faults(plain_sink(seed_2pc.clone()), &kills),
        ),
        (
            "plain unaligned",
            with_faults(unaligned(plain_sink(seed_2pc.clone())), &kills),
        ),
    ];
    for (name, s) in cases {
        let (folded, kept) = both(s, until(60));
        assert!(folded_records(&folded) > 0, "{name}: nothing was folded");
        assert_eq!(folded_records(&kept), 0, "{name}");
        assert_eq!(folded.verification(), kept.verification(), "{name}");
    }
}

#[test]
fn folding_survives_restoring_an_older_savepoint() {
    for (name, s) in [
        ("2pc", preset("seed-2pc").unwrap()),
        ("plain", plain_sink(preset("seed-2pc").unwrap())),
        (
            "plain unaligned",
            unaligned(plain_sink(preset("seed-2pc").unwrap())),
        ),
    ] {
        let (folded, kept) = both(s, |sim| {
            sim.run_until(15 * MICROS_PER_SEC);
            sim.request(UserRequest::Savepoint);
            sim.run_until(40 * MICROS_PER_SEC);
            let savepoint = sim
                .checkpoint_rows()
                .into_iter()
                .find(|r| r.savepoint && r.status == CheckpointStatsStatus::COMPLETED)
                .expect("a savepoint");
            // Back 25 s: records folded since must not be judged twice.
            sim.restore_from(savepoint.id).unwrap();
            sim.run_until(70 * MICROS_PER_SEC);
        });
        assert!(folded_records(&folded) > 0, "{name}: nothing was folded");
        let v = folded.verification();
        assert_eq!(v, kept.verification(), "{name}");
        // Going back 25 s writes those 25 s again, committed or not: the verdict says so.
        assert!(v.duplicates > 0, "{name}: {v:?}");
        assert_eq!(v.missing, 0, "{name}: {v:?}");
    }
}

#[test]
fn what_the_engine_keeps_stays_bounded_over_a_long_run() {
    let s = unaligned(preset("seed-2pc").unwrap());
    let mut sim = Simulation::new(s).unwrap();
    sim.run_until(600 * MICROS_PER_SEC);
    // 2000 records/s and a checkpoint every 5 s: the unfolded records are the last few
    // checkpoints' worth, not ten minutes' (1.2 million).
    let written: usize = sim.external.sinks.values().map(|s| s.written.len()).sum();
    assert!(written < 40_000, "{written} records kept after 600 s");
    assert!(
        sim.checkpoint_offsets.len() <= 3,
        "{:?}",
        sim.checkpoint_offsets.keys()
    );
    assert!(sim.checkpoint_in_flight.len() <= 3);
    let transactions: usize = sim
        .external
        .sinks
        .values()
        .map(|s| s.committed_transactions.len())
        .sum();
    assert!(
        transactions <= 8,
        "{transactions} committed transactions remembered"
    );
    // Each barrier handler's input channel state accounting: the checkpoints in progress only.
    for t in &sim.tasks {
        if let Some(h) = &t.handler {
            let ids = h.persister().checkpoint_ids();
            assert!(ids.len() <= 2, "{:?} keeps {ids:?}", t.id);
        }
    }
    let v = sim.verification();
    assert_eq!((v.duplicates, v.missing), (0, 0), "{v:?}");
    assert!(v.expected_records > 100_000, "{v:?}");
}
