//! Opened bundles kept in this browser: a database of their own (`barrierlab-imports`), apart
//! from the checkpoint storage's (`storage::db`), so that neither's schema upgrade can touch
//! the other's records. Two stores: `bundles` (what the list shows) and `bundle_text` (the bundle
//! as opened, read only to open it), written together in one transaction.
//!
//! Schema versions: 1. `bundles` and `bundle_text`, both with key path `key`.

use idb::{Database, DatabaseEvent, Factory, KeyPath, ObjectStoreParams, Query, TransactionMode};
use js_sys::{Object, Reflect};
use wasm_bindgen::JsValue;

use barrierlab_engine::import::JobBundle;

pub const DB_NAME: &str = "barrierlab-imports";
pub const DB_VERSION: u32 = 1;
pub const BUNDLES: &str = "bundles";
pub const TEXT: &str = "bundle_text";

/// A stored bundle as the list shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredBundle {
    pub key: String,
    pub name: String,
    pub job_id: String,
    pub collected_at: String,
    pub flink_version: String,
    pub checkpoints: u32,
    pub size: u32,
}

/// The key a bundle is stored under: its job and when it was collected, so that the same
/// bundle opened twice is stored once and two collections of one job are two entries.
pub fn key(b: &JobBundle) -> String {
    let id: String = b
        .header
        .job_id
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect();
    format!("{id}-{}", b.header.collected_at_ms.unwrap_or(0))
}

/// The list entry for a bundle of `size` bytes.
pub fn entry(b: &JobBundle, size: usize) -> StoredBundle {
    StoredBundle {
        key: key(b),
        name: b.job.name.clone(),
        job_id: b.job.jid.clone(),
        collected_at: b.header.collected_at.clone(),
        flink_version: b.flink_version().unwrap_or("unknown").to_string(),
        checkpoints: b.history().len() as u32,
        size: size.min(u32::MAX as usize) as u32,
    }
}

fn err(e: impl std::fmt::Display) -> String {
    let text = e.to_string();
    if text.contains("QuotaExceededError") {
        "the browser's storage quota is used up (delete stored jobs or checkpoints to make room)"
            .into()
    } else {
        text
    }
}

fn get(o: &JsValue, field: &str) -> JsValue {
    Reflect::get(o, &field.into()).unwrap_or(JsValue::UNDEFINED)
}

fn set(o: &Object, field: &str, value: impl Into<JsValue>) {
    let _ = Reflect::set(o, &field.into(), &value.into());
}

pub async fn open() -> Result<Database, String> {
    let factory = Factory::new().map_err(|_| "this browser offers no IndexedDB".to_string())?;
    let mut request = factory.open(DB_NAME, Some(DB_VERSION)).map_err(err)?;
    request.on_upgrade_needed(|event| {
        let Ok(db) = event.database() else { return };
        let mut by_key = ObjectStoreParams::new();
        by_key.key_path(Some(KeyPath::new_single("key")));
        // Version 1 from nothing; later versions add steps here and keep these.
        if event.old_version().unwrap_or(0) < 1 {
            let _ = db.create_object_store(BUNDLES, by_key.clone());
            let _ = db.create_object_store(TEXT, by_key);
        }
    });
    request.await.map_err(err)
}

/// Every stored bundle, newest collection first.
pub async fn list(db: &Database) -> Result<Vec<StoredBundle>, String> {
    let tx = db
        .transaction(&[BUNDLES], TransactionMode::ReadOnly)
        .map_err(err)?;
    let all = tx
        .object_store(BUNDLES)
        .map_err(err)?
        .get_all(None, None)
        .map_err(err)?
        .await
        .map_err(err)?;
    let text = |o: &JsValue, f: &str| get(o, f).as_string().unwrap_or_default();
    let mut out: Vec<StoredBundle> = all
        .iter()
        .map(|o| StoredBundle {
            key: text(o, "key"),
            name: text(o, "name"),
            job_id: text(o, "job_id"),
            collected_at: text(o, "collected_at"),
            flink_version: text(o, "flink_version"),
            checkpoints: get(o, "checkpoints").as_f64().unwrap_or(0.0) as u32,
            size: get(o, "size").as_f64().unwrap_or(0.0) as u32,
        })
        .collect();
    out.sort_by(|a, b| b.collected_at.cmp(&a.collected_at));
    Ok(out)
}

/// Stores a bundle's entry and text together.
pub async fn put(db: &Database, entry: &StoredBundle, text: &str) -> Result<(), String> {
    let meta = Object::new();
    set(&meta, "key", entry.key.as_str());
    set(&meta, "name", entry.name.as_str());
    set(&meta, "job_id", entry.job_id.as_str());
    set(&meta, "collected_at", entry.collected_at.as_str());
    set(&meta, "flink_version", entry.flink_version.as_str());
    set(&meta, "checkpoints", f64::from(entry.checkpoints));
    set(&meta, "size", f64::from(entry.size));
    let body = Object::new();
    set(&body, "key", entry.key.as_str());
    set(&body, "text", text);
    let tx = db
        .transaction(&[BUNDLES, TEXT], TransactionMode::ReadWrite)
        .map_err(err)?;
    let texts = tx.object_store(TEXT).map_err(err)?;
    let metas = tx.object_store(BUNDLES).map_err(err)?;
    texts.put(&body, None).map_err(err)?.await.map_err(err)?;
    metas.put(&meta, None).map_err(err)?.await.map_err(err)?;
    tx.await.map_err(err)?;
    Ok(())
}

/// The text of a stored bundle.
pub async fn load(db: &Database, key: &str) -> Result<String, String> {
    let tx = db
        .transaction(&[TEXT], TransactionMode::ReadOnly)
        .map_err(err)?;
    let found = tx
        .object_store(TEXT)
        .map_err(err)?
        .get(Query::from(JsValue::from(key)))
        .map_err(err)?
        .await
        .map_err(err)?;
    found
        .and_then(|o| get(&o, "text").as_string())
        .ok_or_else(|| format!("no job is stored as “{key}” in this browser (deleted, or stored in another browser)"))
}

/// Deletes a stored bundle (entry and text).
pub async fn delete(db: &Database, key: &str) -> Result<(), String> {
    let tx = db
        .transaction(&[BUNDLES, TEXT], TransactionMode::ReadWrite)
        .map_err(err)?;
    for store in [BUNDLES, TEXT] {
        tx.object_store(store)
            .map_err(err)?
            .delete(Query::from(JsValue::from(key)))
            .map_err(err)?
            .await
            .map_err(err)?;
    }
    tx.await.map_err(err)?;
    Ok(())
}
