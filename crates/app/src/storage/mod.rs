//! Checkpoint storage in the browser: the engine's storage effects carried out over IndexedDB
//! (`db`), in the record layout of `records`. See docs/storage.md.

pub mod db;
pub mod records;
pub mod work;

use std::rc::Rc;

use barrierlab_engine::scenario::preset;
use barrierlab_engine::sim::Simulation;
use barrierlab_engine::storage::{StorageEffect, StoredCheckpoint};

use crate::state::State;

pub use db::{Listed, StorageError};

/// What carrying out one effect did, for the browser's message line.
pub enum Outcome {
    Stored { key: String, discarded: Vec<String> },
    Discarded(Vec<String>),
}

/// Carries out one storage effect. `retain` is the job's `num-retained`.
pub async fn execute(
    db: &idb::Database,
    effect: StorageEffect,
    retain: u32,
) -> Result<Outcome, (String, StorageError)> {
    match effect {
        StorageEffect::Store(stored) => {
            let key = records::record_key(&stored);
            let discarded = db::store(db, &stored, Some(retain))
                .await
                .map_err(|e| (key.clone(), e))?;
            Ok(Outcome::Stored { key, discarded })
        }
        StorageEffect::DiscardCheckpoints { job_name, job_id } => {
            let job = records::job_key(&job_name, &job_id);
            let keys: Vec<String> = db::list(db)
                .await
                .map_err(|e| (job.clone(), e))?
                .into_iter()
                .filter(|l| l.job == job && !l.savepoint)
                .map(|l| l.key)
                .collect();
            db::delete(db, &keys).await.map_err(|e| (job, e))?;
            Ok(Outcome::Discarded(keys))
        }
    }
}

/// `flink run -s`: the stored checkpoint's job, restored from it, replaces the running one. A
/// checkpoint that does not restore leaves the running job and says why.
pub fn restore_into(state: Rc<State>, stored: &StoredCheckpoint) -> Rc<State> {
    // A stored job over the cost budget asks first, as a link to it would.
    if let Some(mut pending) = crate::consent::for_scenario(&stored.scenario) {
        pending.stored = Some(Rc::new(stored.clone()));
        return crate::consent::ask(&state, pending);
    }
    restore_into_consented(state, stored, false)
}

/// [`restore_into`]; `consented`: the user chose to run the stored job over the cost budget.
pub fn restore_into_consented(
    state: Rc<State>,
    stored: &StoredCheckpoint,
    consented: bool,
) -> Rc<State> {
    match Simulation::from_stored_consented(stored, consented) {
        Ok(sim) => {
            let mut next = State::with_sim(sim, None, &stored.job_name, state.playing, state.speed);
            let mut as_preset = preset(&stored.job_name);
            if let Some(p) = &mut as_preset {
                p.seed = stored.scenario.seed;
            }
            next.custom = as_preset.as_ref() != Some(&stored.scenario);
            next.version = state.version + 1;
            Rc::new(next)
        }
        Err(e) => {
            let mut next = (*state).clone();
            next.recovery_error = Some(format!("cannot restore {}: {e}", stored.directory()));
            next.version += 1;
            Rc::new(next)
        }
    }
}
