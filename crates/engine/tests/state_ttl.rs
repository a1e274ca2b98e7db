//! State TTL and list state through whole runs: the heap's incremental cleanup levels the state
//! off, RocksDB keeps expired entries until a compaction's filter drops them, a list's appends
//! are what an incremental checkpoint uploads.

use barrierlab_engine::scenario::{apply_set, preset, Scenario};
use barrierlab_engine::sim::Simulation;
use barrierlab_engine::types::MICROS_PER_SEC;

fn run(name: &str, sets: &[&str], seconds: u64) -> Simulation {
    let mut s: Scenario = preset(name).expect("preset exists");
    for set in sets {
        apply_set(&mut s, set).unwrap();
    }
    let mut sim = Simulation::new(s).expect("valid scenario");
    sim.run_until(seconds * MICROS_PER_SEC);
    sim
}

/// (id, checkpointed size, state size) of each completed checkpoint, by id.
fn sizes(sim: &Simulation) -> Vec<(u64, u64, u64)> {
    let mut v: Vec<_> = sim
        .coordinator
        .stats()
        .history()
        .filter(|cp| cp.completion_timestamp.is_some())
        .map(|cp| (cp.id, cp.checkpointed_size(), cp.state_size()))
        .collect();
    v.sort();
    v
}

#[test]
fn heap_state_with_a_ttl_levels_off_below_the_state_without() {
    let ttl = sizes(&run("state-ttl", &[], 41));
    let plain = sizes(&run("large-state", &[], 41));
    assert!(ttl.len() >= 8, "{ttl:?}");
    // 1 M keys written 100 000 times a second, live 5 s: 1 - e^-0.5 = 39 % of them.
    let last = |v: &[(u64, u64, u64)]| v.last().unwrap().2 as f64;
    let ratio = last(&ttl) / last(&plain);
    assert!((0.55..0.75).contains(&ratio), "ttl/plain state {ratio:.2}");
    // Level from the third checkpoint on: within 2 % of each other.
    let later: Vec<u64> = ttl[3..].iter().map(|c| c.2).collect();
    let (lo, hi) = (later.iter().min().unwrap(), later.iter().max().unwrap());
    assert!(hi - lo < hi / 50, "state sizes {later:?}");
}

#[test]
fn rocksdb_keeps_expired_entries_until_a_compaction_drops_them() {
    let ttl = sizes(&run("state-ttl-rocksdb", &[], 41));
    let plain = sizes(&run("rocksdb-incremental", &[], 41));
    // Every fourth checkpoint from the fifth on uploads the level the flush before it compacted.
    let compactions = |v: &[(u64, u64, u64)]| -> Vec<usize> {
        (2..v.len())
            .filter(|&i| v[i].1 > v[i - 1].1 * 3 / 2)
            .collect()
    };
    let (c, p) = (compactions(&ttl), compactions(&plain));
    let ids = |v: &[(u64, u64, u64)], at: &[usize]| at.iter().map(|&i| v[i].0).collect::<Vec<_>>();
    assert_eq!((ids(&ttl, &c), ids(&plain, &p)), (vec![5, 9], vec![5, 9]));
    // Before a compaction the files hold every write, expired or not: the state only grows.
    assert!(ttl[1..c[0]].windows(2).all(|w| w[1].2 > w[0].2), "{ttl:?}");
    // The compaction filter drops what expired: the state falls back to the same level at each
    // compaction, where without a TTL the compacted level keeps every key seen so far.
    assert!(ttl[c[0]].2 < ttl[c[0] - 1].2 * 6 / 10, "{ttl:?}");
    let (first, second) = (ttl[c[0]].2, ttl[c[1]].2);
    assert!(first.abs_diff(second) < first / 100, "{ttl:?}");
    assert!(plain[p[1]].2 > plain[p[0]].2 * 11 / 10, "{plain:?}");
    assert!(second * 10 < plain[p[1]].2 * 8, "{ttl:?} {plain:?}");
}

#[test]
fn an_incremental_checkpoint_of_a_list_uploads_the_appended_elements() {
    let sim = run("list-state-rocksdb", &[], 21);
    let cps = sizes(&sim);
    // 20 000 appends/s for 5 s, each a TtlValue<Long> of 16 bytes, at the L0 file's 0.93, plus
    // the keys written (most of 100 000) and the misc files.
    let (_, checkpointed, _) = cps[2];
    let elements = 100_000 * 16 * 93 / 100;
    assert!(
        checkpointed > elements && checkpointed < elements + 100_000 * 10,
        "checkpointed {checkpointed}"
    );
    // On the heap a checkpoint writes every list whole: the state, not the appends.
    let heap = sizes(&run("list-state", &[], 21));
    assert_eq!(heap[2].1, heap[2].2);
    assert!(heap[3].2 > checkpointed * 3 / 2, "{heap:?}");
}

#[test]
fn a_list_without_ttl_grows_with_every_record_and_verifies() {
    let with = sizes(&run("list-state", &[], 31));
    let without = sizes(&run(
        "list-state",
        &["operator.list-per-key.state-ttl=none"],
        31,
    ));
    // With TTL the lists hold the last 10 s: level from the fifth checkpoint on, within 1 %.
    let level: Vec<u64> = with[4..].iter().map(|c| c.2).collect();
    let (lo, hi) = (level.iter().min().unwrap(), level.iter().max().unwrap());
    assert!(hi - lo < hi / 100, "{with:?}");
    // Without, each checkpoint holds 100 000 more elements of 8 bytes (once every key has its
    // list: within 4 %).
    for w in without[4..].windows(2) {
        let growth = w[1].2 - w[0].2;
        assert!((800_000..832_000).contains(&growth), "{without:?}");
    }
    // A bounded job's lists hold exactly the records that reached them.
    let sim = run(
        "list-state",
        &[
            "operator.list-per-key.state-ttl=none",
            "operator.datagen.bounded=30000",
        ],
        10,
    );
    let v = sim.verification();
    assert_eq!(v.state.len(), 1, "{v:?}");
    assert_eq!(v.state[0].counted, 30_000);
    assert_eq!(v.state[0].expected, 30_000);
}
