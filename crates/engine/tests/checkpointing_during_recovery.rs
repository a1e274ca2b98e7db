//! Restoring from an unaligned checkpoint, and FLIP-547's two options, as real Flink 2.3 showed
//! them on seed-unaligned with checkpoints every second, 20 ms a record in count-per-key and
//! count-per-key#1 killed at 12 s (docs/fidelity.md, "Checkpointing during recovery"):
//! - by default the sources re-send their output channel state, the keyed subtasks are RUNNING
//!   ~0.5 s after the restore and the next checkpoint completes ~1 s after it;
//! - `recover-output-on-downstream` alone: the keyed subtasks consume all of it while
//!   INITIALIZING (2.8 s and 5.7 s), every trigger meanwhile fails, the next checkpoint ~6 s on;
//! - with `during-recovery` as well: RUNNING at once, and checkpoints complete during the
//!   recovery, storing what is left of it again (914 KB, then ~100 KB less each second).

use barrierlab_engine::scenario::{apply_set, parse_fail_flag, preset, Scenario};
use barrierlab_engine::sim::Simulation;
use barrierlab_engine::stats::CheckpointStatsStatus;
use barrierlab_engine::types::{Micros, MICROS_PER_SEC};

const DOWNSTREAM: &str = "execution.checkpointing.unaligned.recover-output-on-downstream.enabled";
const DURING: &str = "execution.checkpointing.during-recovery.enabled";

fn scenario(base: &str, sets: &[&str], kills: &[&str]) -> Scenario {
    let mut s = preset(base).unwrap();
    for set in [
        "execution.checkpointing.unaligned.enabled=true",
        "execution.checkpointing.interval=1s",
        "operator.count-per-key.cost-per-record=20ms",
        "web.checkpoints.history=100",
    ]
    .iter()
    .chain(sets)
    {
        apply_set(&mut s, set).unwrap();
    }
    for k in kills {
        s.faults.push(parse_fail_flag(k).unwrap());
    }
    s
}

fn run(s: Scenario, seconds: u64) -> Simulation {
    let mut sim = Simulation::new(s).unwrap();
    sim.run_until(seconds * MICROS_PER_SEC);
    sim
}

/// After the (last) restore: the completed checkpoints' (time since the restore, persisted
/// data), and the number of failed checkpoints in all.
fn after_restore(sim: &Simulation) -> (Vec<(Micros, u64)>, u64) {
    let stats = sim.coordinator.stats();
    let restored = stats.latest_restored.as_ref().expect("restored");
    let mut cps: Vec<_> = stats
        .history()
        .filter(|c| {
            c.status == CheckpointStatsStatus::COMPLETED
                && c.trigger_timestamp > restored.restore_timestamp
        })
        .map(|c| {
            (
                c.trigger_timestamp - restored.restore_timestamp,
                c.persisted_data(),
            )
        })
        .collect();
    cps.sort_unstable();
    (cps, stats.counts.failed)
}

#[test]
fn recovery_of_output_channel_state_on_the_downstream_blocks_checkpoints_unless_flip_547_allows_them(
) {
    let kill = ["count-per-key#1@12s"];
    let (default, default_failed) = after_restore(&run(scenario("seed-unaligned", &[], &kill), 30));
    let downstream_set = format!("{DOWNSTREAM}=true");
    let (down, down_failed) = after_restore(&run(
        scenario("seed-unaligned", &[&downstream_set], &kill),
        30,
    ));
    let during_set = format!("{DURING}=true");
    let (during, during_failed) = after_restore(&run(
        scenario("seed-unaligned", &[&downstream_set, &during_set], &kill),
        30,
    ));
    // Default: the next checkpoint about a second after the restore; only the two triggers
    // every run fails (before the tasks run, at the start and at the restore).
    assert!(default[0].0 <= 3 * MICROS_PER_SEC / 2, "{default:?}");
    assert_eq!(default_failed, 2);
    // Downstream recovery alone: the keyed subtasks stay INITIALIZING for seconds, each trigger
    // meanwhile fails.
    assert!(down[0].0 >= 4 * MICROS_PER_SEC, "{down:?}");
    assert!(down_failed >= default_failed + 4, "{down_failed}");
    // Checkpointing during recovery: as soon as by default, and the first ones hold the
    // recovered data not yet consumed, less and less of it.
    assert!(during[0].0 <= 3 * MICROS_PER_SEC / 2, "{during:?}");
    assert_eq!(during_failed, default_failed);
    assert!(during[0].1 > 800_000, "{during:?}");
    assert!(
        during[0].1 > during[2].1 && during[2].1 > during[4].1,
        "{during:?}"
    );
    // Without unaligned checkpoints the option has no effect (Flink requires them).
    let aligned = scenario(
        "seed-unaligned",
        &[
            &downstream_set,
            &during_set,
            "execution.checkpointing.unaligned.enabled=false",
        ],
        &[],
    );
    let params = Simulation::new(aligned).unwrap().params;
    assert!(!params.task.checkpoint_during_recovery);
}

/// A second failure during the recovery restores from a checkpoint taken during it: the
/// recovered data it stored again is replayed, and the two-phase-commit sink still commits
/// every record exactly once.
#[test]
fn a_checkpoint_taken_during_recovery_restores_exactly_once() {
    let downstream_set = format!("{DOWNSTREAM}=true");
    let during_set = format!("{DURING}=true");
    let sim = run(
        scenario(
            "seed-2pc",
            &[&downstream_set, &during_set],
            &["count-per-key#1@12s", "count-per-key#0@15500ms"],
        ),
        40,
    );
    let stats = sim.coordinator.stats();
    assert_eq!(stats.counts.restored, 2);
    let v = sim.verification();
    assert!(v.expected_records > 3000, "{v:?}");
    assert_eq!((v.missing, v.duplicates), (0, 0), "{v:?}");
    assert_eq!(v.committed_records, v.expected_records, "{v:?}");
}
