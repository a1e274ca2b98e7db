//! "Simulate this job": the figures of the recorded bundle, the side-by-side rows and their
//! differences, the what-ifs, and a run measured through its own report.

use barrierlab_engine::import::derive::derive;
use barrierlab_engine::types::MICROS_PER_SEC;

use super::open_text;
use super::sim_runs::JobRuns;
use super::simulate::*;

const RECORDED: &str = include_str!("../../../../tests/fixtures/collect/seed-backpressure.json");

#[test]
fn the_recorded_jobs_figures() {
    let b = open_text(RECORDED).unwrap();
    let f = Figures::of(&b);
    // Completed 1..5 took 959, 2291, 2731, 2786 and 2849 ms; 6 was in progress.
    assert_eq!(f.end_to_end, Some(2731.0));
    assert_eq!(f.checkpointed_size, Some(5622.0));
    assert_eq!(f.persisted, Some(0.0));
    // Details of 4 and 5 (6 in progress): the keyed chain's subtask 1 waited 2724 and 2845 ms.
    assert_eq!(f.start_delay, Some(2784.5));
    assert_eq!(f.alignment, Some(0.0));
    assert_eq!(f.async_, Some(3.5));
    assert_eq!((f.completed, f.failed), (Some(5), Some(1)));
    assert_eq!(f.high, vec!["Source: datagen".to_string()]);
    // The job had run 28.1 s when collected: 29 s, raised to the 30 s floor.
    assert_eq!(target(&b), MIN_TARGET);
    let mut longer = b.clone();
    longer.job.duration = 95_400;
    assert_eq!(target(&longer), 96 * MICROS_PER_SEC);
    // Without a duration: seven checkpoints at 5 s.
    longer.job.duration = 0;
    assert_eq!(target(&longer), 40 * MICROS_PER_SEC);
}

fn figures(e2e: f64, completed: u64, high: &[&str]) -> Figures {
    Figures {
        end_to_end: Some(e2e),
        completed: Some(completed),
        high: high.iter().map(|s| s.to_string()).collect(),
        ..Figures::default()
    }
}

#[test]
fn rows_name_the_difference() {
    let real = figures(2800.0, 5, &["Source: datagen"]);
    let sim = figures(2100.0, 7, &[]);
    let what_if = figures(210.0, 7, &[]);
    let rows = rows(&real, &sim, &[Some(&what_if), None]);
    let e2e = &rows[0];
    assert_eq!(e2e.label, "End to End Duration (median)");
    assert_eq!(
        (e2e.real.value.as_str(), e2e.simulated.value.as_str()),
        ("2.80 s", "2.10 s")
    );
    assert_eq!(
        (e2e.simulated.diff.as_str(), e2e.simulated.trend),
        ("×0.75", None)
    );
    // What-ifs against the simulation; one still running.
    let w = e2e.what_ifs[0].as_ref().unwrap();
    assert_eq!(
        (w.value.as_str(), w.diff.as_str(), w.trend),
        ("210 ms", "×0.10", Some("lower"))
    );
    assert!(e2e.what_ifs[1].is_none());
    let completed = rows
        .iter()
        .find(|r| r.label == "Completed checkpoints")
        .unwrap();
    assert_eq!(
        (completed.simulated.diff.as_str(), completed.simulated.trend),
        ("+2", None)
    );
    assert_eq!(completed.what_ifs[0].as_ref().unwrap().diff, "same");
    // Missing figures read as such, without a ratio.
    assert_eq!(rows[1].simulated.value, "–");
    assert_eq!(rows[1].simulated.diff, "–");
    let bp = rows.last().unwrap();
    assert_eq!(
        (bp.real.value.as_str(), bp.simulated.value.as_str()),
        ("Source: datagen", "none")
    );
    assert_eq!(bp.simulated.diff, "differs");
    assert_eq!(
        headline(&real, &sim),
        "End to End Duration (median): simulated 2.10 s vs real 2.80 s (×0.75)"
    );
}

#[test]
fn ratios_are_named_even_when_tiny() {
    let real = figures(2550.0, 5, &[]);
    for (sim, want) in [
        (5.0, "×0.002"),
        (18.0, "×0.0071"),
        (0.0, "×0"),
        (25.5, "×0.01"),
        (2550.0, "same"),
        (283_050.0, "×111"),
    ] {
        let sim = figures(sim, 5, &[]);
        assert_eq!(rows(&real, &sim, &[])[0].simulated.diff, want);
    }
}

#[test]
fn every_what_if_makes_a_scenario_that_runs() {
    let b = open_text(RECORDED).unwrap();
    let base = derive(&b).unwrap().scenario;
    for (i, w) in WHAT_IFS.iter().enumerate() {
        let mut s = base.clone();
        (w.apply)(&mut s).unwrap_or_else(|e| panic!("{}: {e}", w.label));
        assert_ne!(s, base, "{} changes nothing", w.label);
        barrierlab_engine::sim::Simulation::new(s.clone())
            .unwrap_or_else(|e| panic!("{}: {e}", w.label));
        if w.id == "parallelism" {
            for (o, op) in s.operators.iter().enumerate() {
                let before = base.parallelism(o);
                let chained_to_source = crate::faults::forward_group(&s, &op.name)
                    .iter()
                    .any(|n| s.operators[s.operator_index(n).unwrap()].kind.is_source());
                let want = if chained_to_source {
                    before
                } else {
                    before * 2
                };
                assert_eq!(s.parallelism(o), want, "{}", op.name);
            }
        }
        if w.id == "interval" {
            assert_eq!(
                s.config["execution.checkpointing.interval"], "10000ms",
                "what-if {i}"
            );
        }
    }
}

#[test]
fn a_run_is_measured_through_its_own_report() {
    let b = open_text(RECORDED).unwrap();
    let base = derive(&b).unwrap().scenario;
    let mut runs = JobRuns::new(base, 30 * MICROS_PER_SEC);
    for i in 0..WHAT_IFS.len() {
        runs.add_what_if(i);
    }
    runs.add_what_if(0);
    assert_eq!(runs.runs.len(), 1 + WHAT_IFS.len());
    assert!(!runs.done());
    while !runs.done() {
        runs.advance(f64::INFINITY);
    }
    assert_eq!(runs.progress(), 30 * MICROS_PER_SEC);
    let sim = runs.baseline().unwrap().as_ref().unwrap();
    assert!(sim.completed.unwrap() >= 3, "{sim:?}");
    assert!(sim.end_to_end.is_some() && sim.start_delay.is_some());
    for r in &runs.runs[1..] {
        let f = r.figures.as_ref().unwrap();
        let f = f
            .as_ref()
            .unwrap_or_else(|e| panic!("what-if {:?}: {e}", r.what_if));
        assert!(f.completed.unwrap() >= 1, "{f:?}");
    }
    // Unaligned persists in-flight data that aligned checkpoints do not.
    let unaligned = runs.runs[1].figures.as_ref().unwrap().as_ref().unwrap();
    assert!(
        unaligned.persisted > sim.persisted,
        "{unaligned:?} vs {sim:?}"
    );
}
