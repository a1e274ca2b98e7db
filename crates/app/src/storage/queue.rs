//! The storage effects waiting for IndexedDB, oldest first. A job at maximum speed completes
//! checkpoints faster than IndexedDB writes them (hundreds a wall second against one write in
//! several milliseconds): each waiting `Store` holds a whole checkpoint, so the queue would grow
//! without bound. A write that retention would discard before anyone could list it is dropped
//! while it waits instead; what ends up stored is the same.

use std::collections::VecDeque;

use barrierlab_engine::storage::StorageEffect;

use super::records;

/// What retention needs to know of one waiting effect.
#[derive(Debug, Clone, PartialEq)]
pub struct Pending {
    /// `records::job_key`.
    pub job: String,
    /// `records::record_key`; `None` for a discard.
    pub key: Option<String>,
    pub id: u64,
    pub savepoint: bool,
    /// The job's `num-retained`, as the write applies it.
    pub retain: u32,
}

fn pending(effect: &StorageEffect, retain: u32) -> Pending {
    match effect {
        StorageEffect::Store(stored) => Pending {
            job: records::job_key(&stored.job_name, &stored.job_id),
            key: Some(records::record_key(stored)),
            id: stored.id(),
            savepoint: stored.is_savepoint(),
            retain,
        },
        StorageEffect::DiscardCheckpoints { job_name, job_id } => Pending {
            job: records::job_key(job_name, job_id),
            key: None,
            id: 0,
            savepoint: false,
            retain,
        },
    }
}

/// Which waiting effects need not be carried out: a checkpoint's write is superseded by a later
/// write of the same record (time travel completes a checkpoint again), or by at least
/// `num-retained` later writes of the same job's newer checkpoints (each write keeps the newest
/// `num-retained` by id, so once they are written this one is gone whatever else is stored).
/// Savepoints and discards are always carried out.
pub fn superseded(queue: &[Pending]) -> Vec<bool> {
    queue
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let Some(key) = &p.key else { return false };
            if p.savepoint {
                return false;
            }
            let later = &queue[i + 1..];
            let rewritten = later.iter().any(|l| l.key.as_ref() == Some(key));
            let keep = p.retain.max(1) as usize;
            let mut newer = later
                .iter()
                .filter(|l| l.job == p.job && l.key.is_some() && !l.savepoint && l.id > p.id);
            // Retention with another `num-retained` keeps another set: then keep the write.
            let same_retention = newer.clone().all(|l| l.retain == p.retain);
            rewritten || (same_retention && newer.nth(keep - 1).is_some())
        })
        .collect()
}

/// Drops the superseded effects from `queue`, keeping the order of the others.
pub fn coalesce(queue: &mut VecDeque<(StorageEffect, u32)>) {
    let described: Vec<Pending> = queue.iter().map(|(e, r)| pending(e, *r)).collect();
    let drop = superseded(&described);
    let mut i = 0;
    queue.retain(|_| {
        let keep = !drop[i];
        i += 1;
        keep
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use barrierlab_engine::scenario::preset;
    use barrierlab_engine::sim::Simulation;
    use barrierlab_engine::storage::{retention_discards, CheckpointStorage};
    use std::collections::BTreeMap;

    fn store(job: &str, id: u64, savepoint: bool, retain: u32) -> Pending {
        Pending {
            job: job.into(),
            key: Some(format!(
                "{job}/{}-{id}",
                if savepoint { "savepoint" } else { "chk" }
            )),
            id,
            savepoint,
            retain,
        }
    }

    fn discard(job: &str) -> Pending {
        Pending {
            job: job.into(),
            key: None,
            id: 0,
            savepoint: false,
            retain: 1,
        }
    }

    /// What IndexedDB holds after carrying out `queue` in order, as `storage::execute` does.
    fn carry_out(queue: &[Pending]) -> BTreeMap<String, (String, u64, bool)> {
        let mut db = BTreeMap::new();
        for p in queue {
            match &p.key {
                Some(key) => {
                    db.insert(key.clone(), (p.job.clone(), p.id, p.savepoint));
                    let ids: Vec<(u64, bool)> = db
                        .values()
                        .filter(|(j, _, _)| *j == p.job)
                        .map(|(_, id, s)| (*id, *s))
                        .collect();
                    let gone = retention_discards(&ids, p.retain);
                    db.retain(|_, (j, id, s)| !(*j == p.job && !*s && gone.contains(id)));
                }
                None => db.retain(|_, (j, _, s)| *j != p.job || *s),
            }
        }
        db
    }

    fn kept(queue: &[Pending]) -> Vec<Pending> {
        let drop = superseded(queue);
        queue
            .iter()
            .zip(drop)
            .filter(|(_, d)| !d)
            .map(|(p, _)| p.clone())
            .collect()
    }

    #[test]
    fn only_the_newest_num_retained_checkpoints_of_a_job_wait() {
        let queue: Vec<Pending> = (1..=9).map(|id| store("a", id, false, 2)).collect();
        let left = kept(&queue);
        assert_eq!(left.iter().map(|p| p.id).collect::<Vec<_>>(), [8, 9]);
        assert_eq!(carry_out(&left), carry_out(&queue));
    }

    #[test]
    fn savepoints_discards_other_jobs_and_other_retentions_are_kept() {
        let queue = vec![
            store("a", 1, false, 1),
            store("a", 2, true, 1),
            store("b", 1, false, 1),
            store("a", 3, false, 1),
            discard("a"),
            store("a", 4, false, 1),
            store("c", 1, false, 1),
            store("c", 2, false, 3),
        ];
        let left = kept(&queue);
        // a's checkpoints 1 and 3 go (each has a newer one after it, the discard notwithstanding);
        // c's 1 stays (the later write retains another way).
        let dropped: Vec<_> = queue.iter().filter(|p| !left.contains(p)).collect();
        assert_eq!(dropped, [&queue[0], &queue[3]]);
        assert_eq!(carry_out(&left), carry_out(&queue));
    }

    #[test]
    fn a_checkpoint_written_again_waits_once() {
        let queue = vec![
            store("a", 5, false, 3),
            store("a", 6, false, 3),
            store("a", 5, false, 3),
        ];
        let left = kept(&queue);
        assert_eq!(left, &queue[1..]);
        assert_eq!(carry_out(&left), carry_out(&queue));
    }

    #[test]
    fn a_job_at_full_speed_stores_what_it_would_have_stored() {
        // The engine's own effects: the seed's job, polled after every simulated second.
        let mut sim = Simulation::new(preset("seed-demo").unwrap()).unwrap();
        let mut outbox = CheckpointStorage::submitted(&sim);
        let retain = sim.graph.config.num_retained;
        let mut queue = VecDeque::new();
        for s in 1..=60 {
            sim.run_until(s * 1_000_000);
            queue.extend(outbox.poll(&sim).into_iter().map(|e| (e, retain)));
        }
        let all: Vec<Pending> = queue.iter().map(|(e, r)| pending(e, *r)).collect();
        assert!(all.len() > 8, "{} checkpoints", all.len());
        coalesce(&mut queue);
        let left: Vec<Pending> = queue.iter().map(|(e, r)| pending(e, *r)).collect();
        assert_eq!(left.len(), retain as usize);
        assert_eq!(carry_out(&left), carry_out(&all));
    }
}
