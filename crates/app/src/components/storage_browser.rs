//! The checkpoint storage panel: drains the engine's storage effects into IndexedDB as the job
//! runs, lists what is stored (also after a reload), and restores, exports, imports and deletes.

use std::cell::RefCell;
use std::rc::Rc;

use barrierlab_engine::coordinator::ExternalizedCheckpointRetention;
use barrierlab_engine::sim::Simulation;
use barrierlab_engine::storage::{CheckpointStorage, StorageEffect, StoredCheckpoint};
type Database = Rc<idb::Database>;
use wasm_bindgen_futures::{spawn_local, JsFuture};
use web_sys::HtmlInputElement;
use yew::prelude::*;

use super::storage_tree::{RowAction, StorageTree};
use crate::job::SimRef;
use crate::state::{Action, State};
use crate::storage::{db, execute, records, Listed, Outcome, StorageError};

#[derive(Properties, PartialEq)]
pub struct StorageProps {
    pub sim: SimRef,
    /// A re-run is catching up: restores wait.
    pub busy: bool,
    pub dispatch: UseReducerDispatcher<State>,
}

/// Where the database connection stands.
#[derive(Clone, PartialEq)]
enum Conn {
    Opening,
    /// Another tab holds an older version open.
    Blocked,
    Ready,
    Off(String),
}

/// The panel's message line: (is an error, text).
type Message = Option<(bool, String)>;

struct Shared {
    db: Option<Database>,
    /// The simulation the outbox follows, and its job's submission (`SimRef::submission`).
    sim: usize,
    submission: u64,
    /// Flink gives every submission a fresh JobID, so a new run (after a reload, a reset, a
    /// restore) never overwrites or retires the checkpoints of an earlier one.
    job_id: String,
    outbox: CheckpointStorage,
    /// Effects produced before the database was open.
    waiting: Vec<(StorageEffect, u32)>,
    /// Effects to carry out, oldest first, and whether a task is carrying them out. One task at
    /// a time: two running side by side finish in any order, and the list the later-finishing
    /// one shows can be older than the writes of the other (a discarded checkpoint still
    /// listed, a retired one back).
    queue: std::collections::VecDeque<(StorageEffect, u32)>,
    draining: bool,
    /// When the task last listed what is stored (wall clock, ms).
    listed_ms: f64,
}

/// While writes keep coming (a job at maximum speed), the list still follows them this often.
const LIST_EVERY_MS: f64 = 1_000.0;

fn retention_label(r: ExternalizedCheckpointRetention) -> &'static str {
    match r {
        ExternalizedCheckpointRetention::DeleteOnCancellation => "DELETE_ON_CANCELLATION",
        ExternalizedCheckpointRetention::RetainOnCancellation => "RETAIN_ON_CANCELLATION",
        ExternalizedCheckpointRetention::NoExternalizedCheckpoints => "NO_EXTERNALIZED_CHECKPOINTS",
    }
}

fn refresh(
    db: Database,
    entries: UseStateHandle<Rc<Vec<Listed>>>,
    message: UseStateHandle<Message>,
) {
    spawn_local(async move {
        match db::list(&db).await {
            Ok(list) => entries.set(Rc::new(list)),
            Err(e) => message.set(Some((true, e.message()))),
        }
    });
}

/// Queues effects; one task carries them out in order, and lists again once none is left.
fn run_effects(
    db: Database,
    shared: Rc<RefCell<Shared>>,
    effects: Vec<(StorageEffect, u32)>,
    entries: UseStateHandle<Rc<Vec<Listed>>>,
    message: UseStateHandle<Message>,
) {
    {
        let mut s = shared.borrow_mut();
        s.queue.extend(effects);
        crate::storage::queue::coalesce(&mut s.queue);
        if s.draining {
            return; // the running task takes them
        }
        s.draining = true;
    }
    spawn_local(async move {
        loop {
            let (next, list_due) = {
                let mut s = shared.borrow_mut();
                let due = crate::clock::now_ms() - s.listed_ms >= LIST_EVERY_MS;
                (s.queue.pop_front(), due)
            };
            if next.is_none() || list_due {
                shared.borrow_mut().listed_ms = crate::clock::now_ms();
                if let Ok(list) = db::list(&db).await {
                    entries.set(Rc::new(list));
                }
            }
            let Some((effect, retain)) = next else {
                // Effects queued while listing need another round.
                let mut s = shared.borrow_mut();
                if s.queue.is_empty() {
                    s.draining = false;
                    return;
                }
                continue;
            };
            match execute(&db, effect, retain).await {
                Ok(Outcome::Stored { .. }) => {}
                Ok(Outcome::Discarded(keys)) => message.set(Some((
                    false,
                    format!(
                        "Job cancelled: {} checkpoint(s) discarded (savepoints stay).",
                        keys.len()
                    ),
                ))),
                Err((key, e)) => {
                    let text = match e {
                        StorageError::QuotaExceeded => format!("Storage quota exceeded: {key} was not stored. Stored checkpoints are intact; delete some to make room."),
                        other => format!("{key}: {}", other.message()),
                    };
                    message.set(Some((true, text)));
                }
            }
        }
    });
}

#[function_component(StorageBrowser)]
pub fn storage_browser(p: &StorageProps) -> Html {
    let conn = use_state(|| Conn::Opening);
    // Behind an `Rc`: the tree takes it as a prop on every render, and a stored checkpoint's
    // record is large (the 4096-subtask job's); cloning and comparing it each frame showed in a
    // profile.
    let entries = use_state(|| Rc::new(Vec::<Listed>::new()));
    let message = use_state(|| None::<(bool, String)>);
    let shared = use_mut_ref(|| Shared {
        db: None,
        sim: 0,
        submission: 0,
        job_id: String::new(),
        outbox: CheckpointStorage::default(),
        waiting: Vec::new(),
        queue: std::collections::VecDeque::new(),
        draining: false,
        listed_ms: 0.0,
    });
    // Open once; effects produced meanwhile wait.
    {
        let (conn, entries, message, shared) = (
            conn.clone(),
            entries.clone(),
            message.clone(),
            shared.clone(),
        );
        use_effect_with((), move |_| {
            let blocked = conn.clone();
            let (closed, dropped) = (conn.clone(), shared.clone());
            let on_closed = move || {
                dropped.borrow_mut().db = None;
                closed.set(Conn::Off("A newer Barrier Lab in another tab upgraded the checkpoint database; reload this tab to store checkpoints again.".into()));
            };
            spawn_local(async move {
                match db::open(move || blocked.set(Conn::Blocked), on_closed).await {
                    Ok(database) => {
                        let waiting = {
                            let mut s = shared.borrow_mut();
                            s.db = Some(database.clone());
                            std::mem::take(&mut s.waiting)
                        };
                        conn.set(Conn::Ready);
                        run_effects(database, shared, waiting, entries, message);
                    }
                    Err(e) => conn.set(Conn::Off(e.message())),
                }
            });
        });
    }
    // After every change of the simulation: what is there to store or discard?
    {
        let (entries, message, shared, sim) = (
            entries.clone(),
            message.clone(),
            shared.clone(),
            p.sim.clone(),
        );
        let off = matches!(*conn, Conn::Off(_));
        use_effect_with(p.sim.version, move |_| {
            if !off {
                poll(&sim, &shared, entries, message);
            }
        });
    }
    let db = shared.borrow().db.clone();
    let onaction = {
        let (entries, message, dispatch, db) = (
            entries.clone(),
            message.clone(),
            p.dispatch.clone(),
            db.clone(),
        );
        Callback::from(move |(action, key): (RowAction, String)| {
            let Some(db) = db.clone() else { return };
            row_action(
                db,
                action,
                key,
                entries.clone(),
                message.clone(),
                dispatch.clone(),
            );
        })
    };
    let onimport = {
        let (entries, message, db) = (entries.clone(), message.clone(), db.clone());
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            let Some(file) = input.files().and_then(|f| f.get(0)) else {
                return;
            };
            input.set_value("");
            let Some(db) = db.clone() else { return };
            import(db, file, entries.clone(), message.clone());
        })
    };
    let sim = p.sim.borrow();
    let retention = sim.coordinator.config().externalized_retention;
    let oncancel = {
        let d = p.dispatch.clone();
        Callback::from(move |_: MouseEvent| d.dispatch(Action::CancelJob))
    };
    let status = match &*conn {
        Conn::Opening => {
            html! { <p class="muted" id="storage-status">{ "Opening checkpoint storage…" }</p> }
        }
        Conn::Blocked => {
            html! { <p class="error" id="storage-status" role="alert">{ "Checkpoint storage is waiting: another tab has the checkpoint database open at an older version. Close or reload that tab to continue." }</p> }
        }
        Conn::Ready => html! {},
        Conn::Off(text) => {
            html! { <p class="warn" id="storage-status" role="status">{ text.clone() }</p> }
        }
    };
    html! {
        <div class="storage">
            <div class="storage-head">
                <span class="muted">{ format!("IndexedDB '{}', schema v{} · num-retained {} · {}", db::DB_NAME, db::DB_VERSION,
                    sim.graph.config.num_retained, retention_label(retention)) }</span>
                <label class="button import" title="Import a checkpoint file exported before">{ "Import…" }
                    <input id="storage-import" type="file" accept=".json,application/json" hidden=true
                           onchange={onimport} disabled={db.is_none()} /></label>
                <button id="cancel-job" class="danger" disabled={!sim.status.is_live() || p.busy} onclick={oncancel}
                        title="Cancel the job (CANCELED); with RETAIN_ON_CANCELLATION its checkpoints stay">{ "Cancel job" }</button>
            </div>
            { status }
            if let Some((error, text)) = &*message {
                <p id="storage-message" class={if *error { "error" } else { "note" }} role="status">{ text.clone() }</p>
            }
            if *conn == Conn::Ready {
                <StorageTree entries={Rc::clone(&entries)} busy={p.busy} onaction={onaction} />
            }
            <p class="note">{ "As Flink's FsCheckpointStorage: each checkpoint is a directory chk-N/ with _metadata and the state files exclusive to it (the heap backend's full snapshots, a full RocksDB checkpoint's SST files). Incremental RocksDB checkpoints put their SST files in shared/, where each stays while a retained checkpoint lists it. taskowned/ stays empty. Savepoints are self-contained and yours: retention and cancel never delete them." }</p>
        </div>
    }
}

/// A random JobID (32 hex digits), as Flink's `JobID.generate()`.
fn new_job_id() -> String {
    let half = || (js_sys::Math::random() * 4_294_967_296.0) as u64;
    format!(
        "{:016x}{:016x}",
        half() << 32 | half(),
        half() << 32 | half()
    )
}

fn poll(
    r: &SimRef,
    shared: &Rc<RefCell<Shared>>,
    entries: UseStateHandle<Rc<Vec<Listed>>>,
    message: UseStateHandle<Message>,
) {
    let sim = r.cell.borrow();
    let mut s = shared.borrow_mut();
    let ptr = r.cell.id();
    if s.sim != ptr {
        s.sim = ptr;
        // A new job gets a fresh JobID and writes what it retains (it may have run ahead: a
        // tutorial step, a re-run catching up). Time travel continues the same job: its
        // checkpoints are stored already, and one completed again is the same record.
        s.outbox = if s.submission != r.submission {
            s.job_id = new_job_id();
            CheckpointStorage::submitted(&sim)
        } else {
            CheckpointStorage::attach(&sim)
        };
        s.submission = r.submission;
    }
    let engine_id = sim.coordinator.job_id().to_string();
    let job_id = s.job_id.clone();
    let effects: Vec<StorageEffect> = s
        .outbox
        .poll(&sim)
        .into_iter()
        .map(|e| match e {
            StorageEffect::Store(mut stored) => {
                stored.metadata.external_pointer = stored
                    .metadata
                    .external_pointer
                    .replace(&engine_id, &job_id);
                stored.job_id = job_id.clone();
                StorageEffect::Store(stored)
            }
            StorageEffect::DiscardCheckpoints { job_name, .. } => {
                StorageEffect::DiscardCheckpoints {
                    job_name,
                    job_id: job_id.clone(),
                }
            }
        })
        .collect();
    if effects.is_empty() {
        return;
    }
    let retain = sim.graph.config.num_retained;
    let effects: Vec<_> = effects.into_iter().map(|e| (e, retain)).collect();
    let Some(db) = s.db.clone() else {
        s.waiting.extend(effects);
        return;
    };
    drop(s);
    drop(sim);
    run_effects(db, shared.clone(), effects, entries, message);
}

fn row_action(
    db: Database,
    action: RowAction,
    key: String,
    entries: UseStateHandle<Rc<Vec<Listed>>>,
    message: UseStateHandle<Message>,
    dispatch: UseReducerDispatcher<State>,
) {
    spawn_local(async move {
        match action {
            RowAction::Delete => match db::delete(&db, std::slice::from_ref(&key)).await {
                Ok(()) => message.set(Some((false, format!("Deleted {key}.")))),
                Err(e) => message.set(Some((true, e.message()))),
            },
            RowAction::Restore | RowAction::Export => match db::load(&db, &key).await {
                Ok(stored) if action == RowAction::Restore => {
                    // The reducer restores again; checking here first lets this panel say why not.
                    match Simulation::from_stored(&stored) {
                        Ok(_) => {
                            message.set(Some((false, format!("Restored the job from {key}."))));
                            dispatch.dispatch(Action::RestoreStored(Rc::new(stored)));
                        }
                        Err(e) => message.set(Some((true, format!("Cannot restore {key}: {e}")))),
                    }
                }
                Ok(stored) => {
                    let name = format!("{}.json", key.replace('/', "_"));
                    match crate::components::export::download_text(
                        &name,
                        "application/json",
                        &stored.to_json(),
                    ) {
                        Ok(()) => message.set(Some((false, format!("Exported {key} as {name}.")))),
                        Err(_) => message.set(Some((true, format!("Could not export {key}.")))),
                    }
                }
                Err(e) => message.set(Some((true, format!("{key}: {e}")))),
            },
        }
        if let Ok(list) = db::list(&db).await {
            entries.set(Rc::new(list));
        }
    });
}

/// Reads an exported file, checks it restores (same checks as a restore), and stores it.
fn import(
    db: Database,
    file: web_sys::File,
    entries: UseStateHandle<Rc<Vec<Listed>>>,
    message: UseStateHandle<Message>,
) {
    spawn_local(async move {
        let name = file.name();
        let text = match JsFuture::from(file.text())
            .await
            .ok()
            .and_then(|t| t.as_string())
        {
            Some(t) => t,
            None => return message.set(Some((true, format!("Could not read {name}.")))),
        };
        let stored =
            StoredCheckpoint::from_json(&text).and_then(|s| Simulation::from_stored(&s).map(|_| s));
        match stored {
            Err(e) => message.set(Some((true, format!("Import of {name} refused: {e}")))),
            Ok(stored) => match db::store(&db, &stored, None).await {
                Ok(_) => message.set(Some((
                    false,
                    format!("Imported {}.", records::record_key(&stored)),
                ))),
                Err(e) => message.set(Some((true, e.message()))),
            },
        }
        refresh(db, entries, message);
    });
}
