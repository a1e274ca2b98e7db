//! The IndexedDB side of checkpoint storage, through `idb`.
//!
//! Schema versions (`DB_VERSION`), each upgrade a step from the one before:
//! 1. object store `checkpoints` (key path `key`); a record held `_metadata` and, inline in its
//!    `state` field, the deflated state files.
//! 2. state files move to their own store `state` (key path `key`, same key as the metadata), and
//!    `checkpoints` gets the index `job` that retention and cancel look checkpoints up by. Version-1
//!    records stay readable as they are (their inline `state` is used).
//!
//! Every write is one readwrite transaction over both stores: the state files, `_metadata`, and
//! the checkpoints retention discards go together or not at all.

use idb::{
    Database, DatabaseEvent, Event, Factory, KeyPath, ObjectStoreParams, Query, Request,
    TransactionMode,
};
use std::rc::Rc;

use js_sys::{Object, Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};

use super::records::{self, MetadataRecord};
use barrierlab_engine::storage::{retention_discards, StoredCheckpoint};

pub const DB_NAME: &str = "barrierlab-checkpoints";
pub const DB_VERSION: u32 = 2;
pub const CHECKPOINTS: &str = "checkpoints";
pub const STATE: &str = "state";
pub const JOB_INDEX: &str = "job";

/// Why storage did not do what it was asked, as the user reads it.
#[derive(Debug, Clone, PartialEq)]
pub enum StorageError {
    /// No `window.indexedDB` (an old or locked-down browser, some private modes).
    Unavailable,
    /// The origin's storage quota is used up.
    QuotaExceeded,
    /// The database has a newer schema than this build knows.
    TooNew,
    Failed(String),
}

impl StorageError {
    pub fn message(&self) -> String {
        match self {
            StorageError::Unavailable => "This browser offers no IndexedDB (or blocks it here): checkpoints are not stored. Everything else works.".into(),
            StorageError::QuotaExceeded => "Storage quota exceeded: the checkpoint was not stored. Stored checkpoints are intact; delete some to make room.".into(),
            StorageError::TooNew => format!("The checkpoint database was written by a newer Barrier Lab (schema newer than version {DB_VERSION}); storage is off in this tab."),
            StorageError::Failed(e) => format!("Checkpoint storage failed: {e}. Stored checkpoints are intact."),
        }
    }
}

/// Turns an `idb` error into one the user can act on: quota and version errors are recognised by
/// their `DOMException` name.
fn classify(e: idb::Error) -> StorageError {
    let text = e.to_string();
    if text.contains("QuotaExceededError") {
        StorageError::QuotaExceeded
    } else if text.contains("VersionError") {
        StorageError::TooNew
    } else {
        StorageError::Failed(text)
    }
}

/// Opens (creating or upgrading) the database. `on_blocked` runs if another tab holds an older
/// version open, which delays the upgrade until that tab closes or reloads; `on_closed` if a newer
/// build in another tab upgrades it later (this tab then lets go of it).
pub async fn open(
    on_blocked: impl FnOnce() + 'static,
    on_closed: impl Fn() + 'static,
) -> Result<Rc<Database>, StorageError> {
    let factory = Factory::new().map_err(|_| StorageError::Unavailable)?;
    let mut request = factory
        .open(DB_NAME, Some(DB_VERSION))
        .map_err(|_| StorageError::Unavailable)?;
    request.on_upgrade_needed(|event| {
        if let Err(e) = upgrade(&event) {
            web_sys::console::error_1(&format!("checkpoint storage upgrade failed: {e}").into());
            if let Some(tx) = event.target().ok().and_then(|r| r.transaction()) {
                let _ = tx.abort();
            }
        }
    });
    request.on_blocked(move |_| on_blocked());
    let raw: web_sys::IdbDatabase = request.await.map_err(classify)?.into();
    // A newer build in another tab wants to upgrade: let it (this tab's storage stops) rather
    // than block it.
    let handle = raw.clone();
    let close = wasm_bindgen::closure::Closure::<dyn Fn()>::new(move || {
        handle.close();
        on_closed();
    });
    raw.set_onversionchange(Some(close.as_ref().unchecked_ref()));
    close.forget();
    Ok(Rc::new(Database::from(raw)))
}

fn upgrade(event: &idb::event::VersionChangeEvent) -> Result<(), idb::Error> {
    let old = event.old_version()?;
    let db = event.database()?;
    let mut by_key = ObjectStoreParams::new();
    by_key.key_path(Some(KeyPath::new_single("key")));
    if old < 1 {
        db.create_object_store(CHECKPOINTS, by_key.clone())?;
    }
    if old < 2 {
        db.create_object_store(STATE, by_key)?;
        let tx = event
            .target()?
            .transaction()
            .ok_or(idb::Error::EventTargetNotFound)?;
        tx.object_store(CHECKPOINTS)?
            .create_index(JOB_INDEX, KeyPath::new_single("job"), None)?;
    }
    Ok(())
}

/// One `checkpoints` record as listed: what could be read, or why not.
#[derive(Debug, Clone, PartialEq)]
pub struct Listed {
    pub key: String,
    /// `<job name>/<job id>`.
    pub job: String,
    pub id: u64,
    pub savepoint: bool,
    pub meta: Result<MetadataRecord, String>,
}

fn get(o: &JsValue, field: &str) -> JsValue {
    Reflect::get(o, &field.into()).unwrap_or(JsValue::UNDEFINED)
}

fn set(o: &Object, field: &str, value: impl Into<JsValue>) {
    let _ = Reflect::set(o, &field.into(), &value.into());
}

fn bytes(v: &JsValue) -> Option<Vec<u8>> {
    v.dyn_ref::<Uint8Array>().map(Uint8Array::to_vec)
}

/// The state bytes of a metadata record: inline (schema 1) or in the `state` store.
fn state_of(record: &JsValue, state: &JsValue) -> Option<Vec<u8>> {
    bytes(&get(record, "state")).or_else(|| bytes(&get(state, "bytes")))
}

fn listed(record: &JsValue, state: Option<&JsValue>) -> Listed {
    let key = get(record, "key").as_string().unwrap_or_default();
    let mut entry = Listed {
        job: get(record, "job").as_string().unwrap_or_default(),
        id: get(record, "id").as_f64().unwrap_or(0.0) as u64,
        savepoint: get(record, "savepoint").as_bool().unwrap_or(false),
        meta: Err(String::new()),
        key,
    };
    entry.meta = get(record, "metadata")
        .as_string()
        .ok_or_else(|| "_metadata is missing".to_string())
        .and_then(|t| records::decode_metadata(&t))
        .and_then(|m| {
            let state = state_of(record, state.unwrap_or(&JsValue::UNDEFINED))
                .ok_or("state files are missing")?;
            let sum = format!("{:016x}", barrierlab_engine::storage::checksum(&state));
            if sum != m.state_checksum {
                return Err(format!(
                    "state files are damaged: checksum {sum} does not match {} in _metadata",
                    m.state_checksum
                ));
            }
            Ok(m)
        });
    entry
}

/// Every stored checkpoint, each readable or with the reason it is not.
pub async fn list(db: &Database) -> Result<Vec<Listed>, StorageError> {
    let tx = db
        .transaction(&[CHECKPOINTS, STATE], TransactionMode::ReadOnly)
        .map_err(classify)?;
    let metas = tx.object_store(CHECKPOINTS).map_err(classify)?;
    let states = tx.object_store(STATE).map_err(classify)?;
    let metas = metas.get_all(None, None).map_err(classify)?.await;
    let states = states.get_all(None, None).map_err(classify)?.await;
    drop(tx);
    let states = states.map_err(classify)?;
    let by_key: std::collections::BTreeMap<String, &JsValue> = states
        .iter()
        .filter_map(|s| Some((get(s, "key").as_string()?, s)))
        .collect();
    Ok(metas
        .map_err(classify)?
        .iter()
        .map(|m| {
            let key = get(m, "key").as_string().unwrap_or_default();
            listed(m, by_key.get(&key).copied())
        })
        .collect())
}

/// Reads one stored checkpoint in full.
pub async fn load(db: &Database, key: &str) -> Result<StoredCheckpoint, String> {
    let tx = db
        .transaction(&[CHECKPOINTS, STATE], TransactionMode::ReadOnly)
        .map_err(|e| classify(e).message())?;
    let k = Query::from(JsValue::from(key));
    let meta = tx.object_store(CHECKPOINTS).map_err(|e| e.to_string())?;
    let state = tx.object_store(STATE).map_err(|e| e.to_string())?;
    let meta = meta.get(k.clone()).map_err(|e| e.to_string())?.await;
    let state = state.get(k).map_err(|e| e.to_string())?.await;
    drop(tx);
    let meta = meta
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("{key} is no longer stored"))?;
    let state = state
        .map_err(|e| e.to_string())?
        .unwrap_or(JsValue::UNDEFINED);
    let text = get(&meta, "metadata")
        .as_string()
        .ok_or("_metadata is missing")?;
    let m = records::decode_metadata(&text)?;
    let bytes = state_of(&meta, &state).ok_or("state files are missing")?;
    records::decode(&m, &bytes)
}

/// Waits for a transaction's `complete` or `abort`. (`idb`'s own transaction future resolves on the
/// `error` event that precedes an abort and then drops the abort handler the browser still calls.)
struct Settled {
    tx: web_sys::IdbTransaction,
    promise: js_sys::Promise,
    _handlers: [wasm_bindgen::closure::Closure<dyn FnMut()>; 2],
}

impl Settled {
    /// Must run before the transaction's requests complete, i.e. synchronously after creating it.
    fn watch(tx: web_sys::IdbTransaction) -> Settled {
        let mut resolve = None;
        let promise = js_sys::Promise::new(&mut |ok, _| resolve = Some(ok));
        let resolve = resolve.expect("a promise runs its executor at once");
        let on = |value: bool| {
            let resolve = resolve.clone();
            wasm_bindgen::closure::Closure::<dyn FnMut()>::new(move || {
                let _ = resolve.call1(&JsValue::NULL, &JsValue::from_bool(value));
            })
        };
        let handlers = [on(true), on(false)];
        tx.set_oncomplete(Some(handlers[0].as_ref().unchecked_ref()));
        tx.set_onabort(Some(handlers[1].as_ref().unchecked_ref()));
        Settled {
            tx,
            promise,
            _handlers: handlers,
        }
    }

    /// True if the transaction committed.
    async fn committed(self) -> bool {
        let result = wasm_bindgen_futures::JsFuture::from(self.promise.clone()).await;
        self.tx.set_oncomplete(None);
        self.tx.set_onabort(None);
        result.is_ok_and(|v| v.is_truthy())
    }
}

/// A readwrite transaction over both stores, with a watch on its outcome set up before any
/// request (as [`Settled::watch`] needs).
struct BothStores {
    _tx: idb::Transaction,
    metas: idb::ObjectStore,
    states: idb::ObjectStore,
    handle: web_sys::IdbTransaction,
    done: Settled,
}

fn both_stores(db: &Database) -> Result<BothStores, StorageError> {
    let tx = db
        .transaction(&[CHECKPOINTS, STATE], TransactionMode::ReadWrite)
        .map_err(classify)?;
    let metas = tx.object_store(CHECKPOINTS).map_err(classify)?;
    let states = tx.object_store(STATE).map_err(classify)?;
    let handle: web_sys::IdbTransaction = metas.transaction().into();
    let done = Settled::watch(handle.clone());
    Ok(BothStores {
        _tx: tx,
        metas,
        states,
        handle,
        done,
    })
}

/// Deletes both records (`_metadata` and state files) of checkpoint `key`.
async fn delete_both(
    metas: &idb::ObjectStore,
    states: &idb::ObjectStore,
    key: &str,
) -> Result<(), idb::Error> {
    metas.delete(Query::from(JsValue::from(key)))?.await?;
    states.delete(Query::from(JsValue::from(key)))?.await?;
    Ok(())
}

/// Writes a checkpoint (state files and `_metadata`) and, with `retain`, discards the job's
/// checkpoints beyond that many, all in one transaction. Returns the keys discarded.
pub async fn store(
    db: &Database,
    stored: &StoredCheckpoint,
    retain: Option<u32>,
) -> Result<Vec<String>, StorageError> {
    let key = records::record_key(stored);
    let job = records::job_key(&stored.job_name, &stored.job_id);
    let (meta_json, state) = records::encode(stored);
    let meta = Object::new();
    set(&meta, "key", key.as_str());
    set(&meta, "job", job.as_str());
    set(&meta, "id", stored.id() as f64);
    set(&meta, "savepoint", stored.is_savepoint());
    set(&meta, "metadata", meta_json);
    let files = Object::new();
    set(&files, "key", key.as_str());
    set(&files, "bytes", Uint8Array::from(state.as_slice()));
    let both = both_stores(db)?;
    let writes = async {
        both.states.put(&files, None)?.await?;
        both.metas.put(&meta, None)?.await?;
        let mut discarded = Vec::new();
        if let Some(n) = retain {
            let query = Query::from(JsValue::from(job.as_str()));
            let same_job = both
                .metas
                .index(JOB_INDEX)?
                .get_all(Some(query), None)?
                .await?;
            let ids: Vec<(u64, bool, String)> = same_job
                .iter()
                .map(|r| {
                    (
                        get(r, "id").as_f64().unwrap_or(0.0) as u64,
                        get(r, "savepoint").as_bool().unwrap_or(false),
                        get(r, "key").as_string().unwrap_or_default(),
                    )
                })
                .collect();
            let pairs: Vec<(u64, bool)> = ids.iter().map(|(i, s, _)| (*i, *s)).collect();
            for id in retention_discards(&pairs, n) {
                for (_, _, k) in ids.iter().filter(|(i, s, _)| *i == id && !s) {
                    delete_both(&both.metas, &both.states, k).await?;
                    discarded.push(k.clone());
                }
            }
        }
        Ok::<_, idb::Error>(discarded)
    }
    .await;
    if writes.is_err() {
        // Nothing of a failed write may stay: the state files without `_metadata` are useless.
        let _ = both.handle.abort();
    }
    let committed = both.done.committed().await;
    let discarded = writes.map_err(classify)?;
    if committed {
        Ok(discarded)
    } else {
        Err(both
            .handle
            .error()
            .map(|e| classify(idb::Error::DomException(e)))
            .unwrap_or_else(|| StorageError::Failed("the write was aborted".into())))
    }
}

/// Deletes the given checkpoints (both records of each) in one transaction.
pub async fn delete(db: &Database, keys: &[String]) -> Result<(), StorageError> {
    let both = both_stores(db)?;
    let result = async {
        for k in keys {
            delete_both(&both.metas, &both.states, k).await?;
        }
        Ok::<_, idb::Error>(())
    }
    .await;
    if result.is_err() {
        let _ = both.handle.abort();
    }
    let committed = both.done.committed().await;
    result.map_err(classify)?;
    if committed {
        Ok(())
    } else {
        Err(StorageError::Failed("the delete was aborted".into()))
    }
}
