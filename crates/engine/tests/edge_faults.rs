//! Faults on an edge of the job graph: a network delay and a lost connection (docs/faults.md).

use barrierlab_engine::scenario::{preset, Fault, Scenario};
use barrierlab_engine::sim::{JobStatus, Simulation};
use barrierlab_engine::trace::TraceKind;
use barrierlab_engine::types::MICROS_PER_SEC;

/// A preset on two TaskManagers: subtask i runs on TaskManager i, so the hash edge
/// datagen -> count-per-key has remote channels (the forward edges stay local).
fn on_two_taskmanagers(name: &str) -> Scenario {
    let mut s = preset(name).unwrap();
    s.cluster.taskmanagers = 2;
    s
}

fn delay(edge: &str, by: &str, from: &str, until: Option<&str>) -> Fault {
    Fault::NetworkDelay {
        edge: edge.into(),
        by: by.into(),
        from: from.into(),
        until: until.map(Into::into),
    }
}

fn run(s: Scenario, seconds: u64) -> Simulation {
    let mut sim = Simulation::new(s).unwrap();
    sim.run_until(seconds * MICROS_PER_SEC);
    sim
}

/// Mean end-to-end duration of the completed checkpoints, and how many there were.
fn mean_duration(sim: &Simulation) -> (u64, usize) {
    let d: Vec<u64> = sim
        .checkpoint_rows()
        .iter()
        .filter_map(|r| r.duration)
        .collect();
    (d.iter().sum::<u64>() / d.len().max(1) as u64, d.len())
}

#[test]
fn a_network_delay_on_an_edge_makes_checkpoints_slower_while_it_lasts() {
    let base = on_two_taskmanagers("seed-demo");
    let mut slowed = base.clone();
    slowed
        .faults
        .push(delay("datagen -> count-per-key", "300ms", "0s", None));
    let (calm, n) = mean_duration(&run(base.clone(), 30));
    let slowed = run(slowed, 30);
    let (slow, m) = mean_duration(&slowed);
    // The consumer waits for the delayed barrier: its first barrier comes over a local channel
    // (start delay), the one from the other TaskManager ~300 ms later (alignment).
    for r in slowed
        .checkpoint_rows()
        .iter()
        .filter(|r| r.duration.is_some())
    {
        let v = r
            .vertices
            .iter()
            .find(|v| v.vertex.starts_with("count-per-key"))
            .unwrap();
        assert!(v.max_start_delay + v.max_alignment >= 300_000, "{r:?}");
    }
    assert!(n >= 4 && m >= 4, "{n} {m}");
    // The barrier crosses the delayed edge once: every checkpoint waits ~300 ms more.
    assert!(
        slow >= calm + 250_000,
        "{calm} µs without, {slow} µs with the delay"
    );
    // A window: checkpoints after it are as fast as without.
    let mut window = base.clone();
    window
        .faults
        .push(delay("datagen -> count-per-key", "300ms", "4s", Some("8s")));
    let sim = run(window, 30);
    let rows = sim.checkpoint_rows();
    let late = rows.iter().filter(|r| r.trigger > 9 * MICROS_PER_SEC);
    let calm_rows = run(base, 30).checkpoint_rows();
    for r in late {
        let twin = calm_rows.iter().find(|c| c.id == r.id).unwrap();
        assert!(
            r.duration.unwrap() < twin.duration.unwrap() + 50_000,
            "{r:?} vs {twin:?}"
        );
    }
    // The job kept running and nothing was lost: delays reorder nothing.
    assert_eq!(sim.status, JobStatus::Running);
}

#[test]
fn a_lost_connection_fails_the_consumer_over_and_two_phase_commit_stays_exactly_once() {
    let mut s = on_two_taskmanagers("seed-2pc");
    s.faults.push(Fault::ConnectionLoss {
        edge: "datagen -> count-per-key".into(),
        at: "12s".into(),
    });
    let sim = run(s, 40);
    let failed: Vec<_> = sim
        .trace
        .events()
        .filter_map(|e| match &e.kind {
            TraceKind::JobFailed { reason } => Some((e.task, reason.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(failed.len(), 1, "{failed:?}");
    let (task, reason) = &failed[0];
    assert!(reason.contains("RemoteTransportException"), "{reason}");
    // The consumer of the edge fails, not the producer.
    let consumer = task.unwrap();
    assert!(sim.graph.vertices[consumer.vertex as usize]
        .name
        .starts_with("count-per-key"));
    let restored = sim
        .trace
        .events()
        .filter(|e| matches!(e.kind, TraceKind::Restored { .. }))
        .count();
    assert_eq!(restored, 1);
    assert_eq!(sim.status, JobStatus::Running);
    let v = sim.verification();
    assert!(v.expected_records > 0, "{v:?}");
    assert_eq!((v.duplicates, v.missing), (0, 0), "{v:?}");
}

#[test]
fn edge_faults_must_name_an_edge_that_crosses_the_network() {
    let err = |s: Scenario, f: Fault| {
        let mut s = s;
        s.faults.push(f);
        Simulation::new(s).unwrap_err()
    };
    let two = on_two_taskmanagers("seed-demo");
    let lost = |edge: &str| Fault::ConnectionLoss {
        edge: edge.into(),
        at: "1s".into(),
    };
    assert!(err(two.clone(), lost("datagen -> discard-sink")).contains("the job has no such edge"));
    assert!(
        err(two.clone(), lost("count-per-key -> checkpoint-aware-map"))
            .contains("chained into one task")
    );
    assert!(err(two.clone(), lost("datagen -> nowhere")).contains("unknown operator 'nowhere'"));
    assert!(err(two, lost("datagen count-per-key")).contains("names no edge"));
    // The seed runs on one TaskManager: every channel is local.
    let one = preset("seed-demo").unwrap();
    assert!(
        err(one, delay("datagen -> count-per-key", "1s", "0s", None))
            .contains("every channel of this edge is local")
    );
}

#[test]
fn edge_faults_are_deterministic() {
    let mut s = on_two_taskmanagers("seed-2pc");
    s.faults
        .push(delay("datagen -> count-per-key", "40ms", "3s", Some("9s")));
    s.faults.push(Fault::ConnectionLoss {
        edge: "datagen -> count-per-key".into(),
        at: "15s".into(),
    });
    assert_eq!(run(s.clone(), 25).fingerprint(), run(s, 25).fingerprint());
}
