//! Checkpoint storage in the browser: the engine's storage effects carried out over IndexedDB
//! (`db`), in the record layout of `records`. See docs/storage.md.

pub mod db;
pub mod queue;
pub mod records;
pub mod work;

use barrierlab_engine::scenario::preset;
use barrierlab_engine::sim::Simulation;
use barrierlab_engine::storage::{StorageEffect, StoredCheckpoint};

use crate::job::Opened;

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

/// `flink run -s`: the stored checkpoint's job, restored from it, to replace the running one, or
/// why it does not restore. `consented`: the user chose to run it over the cost budget.
pub fn open_stored(stored: &StoredCheckpoint, consented: bool) -> Result<Opened, String> {
    let sim = Simulation::from_stored_consented(stored, consented)
        .map_err(|e| format!("cannot restore {}: {e}", stored.directory()))?;
    let mut as_preset = preset(&stored.job_name);
    if let Some(p) = &mut as_preset {
        p.seed = stored.scenario.seed;
    }
    Ok(Opened {
        custom: as_preset.as_ref() != Some(&stored.scenario),
        ..Opened::new(sim, &stored.job_name)
    })
}
