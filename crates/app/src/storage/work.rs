//! The scenario being worked on, kept across reloads: one record in a database of its own
//! (`barrierlab-work`), so the checkpoint database's schema and data are never touched by it.
//!
//! Written whenever the running scenario changes; an unedited preset clears it. A page opened
//! without a link or tutorial reopens what it finds (`Action::RestoreWork`). A record that does
//! not parse is left in place and ignored, with a console message: nothing stored is lost.

use idb::{DatabaseEvent, Factory, KeyPath, ObjectStoreParams, Query, TransactionMode};
use js_sys::{Object, Reflect};
use wasm_bindgen::JsValue;

use barrierlab_engine::scenario::Scenario;

const DB_NAME: &str = "barrierlab-work";
const DB_VERSION: u32 = 1;
const STORE: &str = "work";
const KEY: &str = "current";

async fn open() -> Result<idb::Database, String> {
    let factory = Factory::new().map_err(|e| e.to_string())?;
    let mut request = factory
        .open(DB_NAME, Some(DB_VERSION))
        .map_err(|e| e.to_string())?;
    request.on_upgrade_needed(|event| {
        if let Ok(db) = event.database() {
            let mut params = ObjectStoreParams::new();
            params.key_path(Some(KeyPath::new_single("key")));
            let _ = db.create_object_store(STORE, params);
        }
    });
    request.await.map_err(|e| e.to_string())
}

/// Stores `scenario` as the current work, or clears it (`None`: an unedited preset runs).
pub async fn save(scenario: Option<&Scenario>) -> Result<(), String> {
    let db = open().await?;
    let tx = db
        .transaction(&[STORE], TransactionMode::ReadWrite)
        .map_err(|e| e.to_string())?;
    let store = tx.object_store(STORE).map_err(|e| e.to_string())?;
    match scenario {
        Some(s) => {
            let record = Object::new();
            let json = serde_json::to_string(s).map_err(|e| e.to_string())?;
            let _ = Reflect::set(&record, &"key".into(), &KEY.into());
            let _ = Reflect::set(&record, &"scenario".into(), &json.into());
            store
                .put(&record, None)
                .map_err(|e| e.to_string())?
                .await
                .map_err(|e| e.to_string())?;
        }
        None => {
            store
                .delete(Query::from(JsValue::from(KEY)))
                .map_err(|e| e.to_string())?
                .await
                .map_err(|e| e.to_string())?;
        }
    }
    tx.await.map_err(|e| e.to_string())?;
    db.close();
    Ok(())
}

/// The stored work, if any that parses.
pub async fn load() -> Result<Option<Scenario>, String> {
    let db = open().await?;
    let tx = db
        .transaction(&[STORE], TransactionMode::ReadOnly)
        .map_err(|e| e.to_string())?;
    let store = tx.object_store(STORE).map_err(|e| e.to_string())?;
    let record = store
        .get(Query::from(JsValue::from(KEY)))
        .map_err(|e| e.to_string())?
        .await
        .map_err(|e| e.to_string())?;
    drop(tx);
    db.close();
    let Some(record) = record else {
        return Ok(None);
    };
    let json = Reflect::get(&record, &"scenario".into())
        .ok()
        .and_then(|v| v.as_string())
        .ok_or("the stored work has no scenario")?;
    serde_json::from_str(&json)
        .map(Some)
        .map_err(|e| format!("the stored work does not parse: {e}"))
}
