//! The IndexedDB storage layer in a real browser (headless Chromium via wasm-bindgen-test):
//! write, list, read back, retention, delete, and a damaged record.
#![cfg(target_arch = "wasm32")]

use barrierlab_app::storage::{db, records};
use barrierlab_engine::scenario::preset;
use barrierlab_engine::sim::Simulation;
use barrierlab_engine::storage::{CheckpointStorage, StorageEffect, StoredCheckpoint};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Every checkpoint the seed demo completes in `seconds`, with `num-retained` 10.
fn checkpoints(seconds: u64) -> Vec<StoredCheckpoint> {
    let mut scenario = preset("seed-demo").unwrap();
    scenario
        .config
        .insert("execution.checkpointing.num-retained".into(), "10".into());
    let mut sim = Simulation::new(scenario).unwrap();
    sim.run_until(seconds * 1_000_000);
    CheckpointStorage::default()
        .poll(&sim)
        .into_iter()
        .filter_map(|e| match e {
            StorageEffect::Store(s) => Some(*s),
            StorageEffect::DiscardCheckpoints { .. } => None,
        })
        .collect()
}

#[wasm_bindgen_test]
async fn store_list_load_retain_delete() {
    let db = db::open(|| panic!("nothing else holds the database"), || {})
        .await
        .unwrap();
    let all = checkpoints(21);
    assert!(all.len() >= 3, "{} checkpoints", all.len());
    let job = records::job_key(&all[0].job_name, &all[0].job_id);
    let mut discarded = Vec::new();
    for c in &all {
        discarded.extend(db::store(&db, c, Some(2)).await.unwrap());
    }
    let listed: Vec<_> = db::list(&db)
        .await
        .unwrap()
        .into_iter()
        .filter(|l| l.job == job)
        .collect();
    // num-retained 2: the newest two stay, every older one was discarded in its write.
    assert_eq!(listed.len(), 2);
    assert_eq!(discarded.len(), all.len() - 2);
    let newest = all.last().unwrap();
    let key = records::record_key(newest);
    assert!(listed.iter().any(|l| l.key == key && l.meta.is_ok()));
    assert_eq!(&db::load(&db, &key).await.unwrap(), newest);
    db::delete(&db, std::slice::from_ref(&key)).await.unwrap();
    let e = db::load(&db, &key).await.unwrap_err();
    assert!(e.contains("no longer stored"), "{e}");
}

#[wasm_bindgen_test]
async fn a_missing_state_record_is_reported_not_fatal() {
    let db = db::open(|| {}, || {}).await.unwrap();
    let mut c = checkpoints(6).pop().unwrap();
    c.job_id = "damaged-state".into();
    db::store(&db, &c, None).await.unwrap();
    let key = records::record_key(&c);
    // Remove the state record behind storage's back.
    let tx = db
        .transaction(&[db::STATE], idb::TransactionMode::ReadWrite)
        .unwrap();
    tx.object_store(db::STATE)
        .unwrap()
        .delete(idb::Query::from(wasm_bindgen::JsValue::from(key.as_str())))
        .unwrap()
        .await
        .unwrap();
    let listed = db::list(&db).await.unwrap();
    let entry = listed.iter().find(|l| l.key == key).unwrap();
    assert_eq!(entry.meta, Err("state files are missing".to_string()));
    assert_eq!(
        db::load(&db, &key).await.unwrap_err(),
        "state files are missing"
    );
}

#[wasm_bindgen_test]
async fn a_newer_schema_elsewhere_closes_this_connection_and_is_refused_after() {
    use std::cell::Cell;
    use std::rc::Rc;
    let closed = Rc::new(Cell::new(false));
    let flag = closed.clone();
    let _db = db::open(|| {}, move || flag.set(true)).await.unwrap();
    // Another tab with a newer build upgrades the database.
    let factory = idb::Factory::new().unwrap();
    let newer = factory
        .open(db::DB_NAME, Some(db::DB_VERSION + 1))
        .unwrap()
        .await
        .unwrap();
    assert!(closed.get(), "this tab let go of the database");
    newer.close();
    let e = db::open(|| {}, || {}).await.unwrap_err();
    assert_eq!(e, db::StorageError::TooNew);
    assert!(e.message().contains("newer Barrier Lab"));
    factory.delete(db::DB_NAME).unwrap().await.unwrap();
}
