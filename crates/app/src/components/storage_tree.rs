//! The storage browser's listing: jobs, their checkpoint directories laid out as Flink's
//! `FsCheckpointStorage` lays them out, and savepoints.

use std::collections::BTreeMap;
use std::rc::Rc;

use yew::prelude::*;

use crate::format::bytes;
use crate::storage::records::FileEntry;
use crate::storage::Listed;

/// What a row's buttons ask for: (action, record key).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowAction {
    Restore,
    Export,
    Delete,
}

#[derive(Properties)]
pub struct TreeProps {
    /// A new list is a new `Rc` (the browser sets it whole), so the same `Rc` is the same list.
    pub entries: Rc<Vec<Listed>>,
    pub busy: bool,
    pub onaction: Callback<(RowAction, String)>,
}

impl PartialEq for TreeProps {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.entries, &other.entries)
            && self.busy == other.busy
            && self.onaction == other.onaction
    }
}

fn dir_name(l: &Listed) -> String {
    l.key.rsplit('/').next().unwrap_or(&l.key).to_string()
}

fn buttons(p: &TreeProps, l: &Listed, restorable: bool) -> Html {
    let act = |a: RowAction| {
        let cb = p.onaction.clone();
        let key = l.key.clone();
        Callback::from(move |_: MouseEvent| cb.emit((a, key.clone())))
    };
    html! {
        <span class="storage-actions">
            if restorable {
                <button class="storage-restore" disabled={p.busy} onclick={act(RowAction::Restore)}
                        title="Submit the job again, restored from this checkpoint">{ "Restore" }</button>
                <button class="storage-export" onclick={act(RowAction::Export)}
                        title="Download this checkpoint as a file">{ "Export" }</button>
            }
            <button class="storage-delete danger" onclick={act(RowAction::Delete)}>{ "Delete" }</button>
        </span>
    }
}

/// Files a checkpoint directory lists one by one; a large job's thousands are summed up after.
const MAX_FILES_LISTED: usize = 32;

fn checkpoint_dir(p: &TreeProps, l: &Listed) -> Html {
    let name = dir_name(l);
    match &l.meta {
        Ok(m) => {
            // Its own files; incremental RocksDB files sit in `shared/`, listed once there.
            let own: Vec<&FileEntry> = m
                .files
                .iter()
                .filter(|f| !f.path.starts_with("shared/"))
                .collect();
            let shared: Vec<&FileEntry> = m
                .files
                .iter()
                .filter(|f| f.path.starts_with("shared/"))
                .collect();
            let total: u64 = own.iter().map(|f| f.size).sum();
            let shared_bytes: u64 = shared.iter().map(|f| f.size).sum();
            let kind = if l.savepoint {
                "savepoint"
            } else {
                "checkpoint"
            };
            let handles = if shared.is_empty() {
                format!(
                    "{} subtasks, {} files",
                    m.checkpoint.metadata.subtasks.len(),
                    m.files.len()
                )
            } else {
                format!(
                    "{} subtasks, {} handles: {} here, {} in shared/ ({})",
                    m.checkpoint.metadata.subtasks.len(),
                    m.files.len(),
                    own.len(),
                    shared.len(),
                    bytes(shared_bytes)
                )
            };
            html! {
                <li class={classes!("dir", kind)} data-key={l.key.clone()} data-id={l.id.to_string()}>
                    <div class="storage-row">
                        <span class="path">{ format!("{name}/") }</span>
                        <span class="size">{ bytes(total) }</span>
                        { buttons(p, l, true) }
                    </div>
                    <ul class="files">
                        <li><span class="path">{ "_metadata" }</span>
                            <span class="note">{ handles }</span></li>
                        { for own.iter().take(MAX_FILES_LISTED).map(|f| html! {
                            <li><span class="path">{ f.path.rsplit('/').next().unwrap_or(&f.path).to_string() }</span>
                                <span class="size">{ bytes(f.size) }</span>
                                if let Some(local) = &f.local {
                                    <span class="note">{ local.clone() }</span>
                                }</li>
                        }) }
                        if own.len() > MAX_FILES_LISTED {
                            <li class="more-files"><span class="note">{ format!(
                                "… and {} more files ({})",
                                own.len() - MAX_FILES_LISTED,
                                bytes(own.iter().skip(MAX_FILES_LISTED).map(|f| f.size).sum())
                            ) }</span></li>
                        }
                    </ul>
                </li>
            }
        }
        Err(reason) => html! {
            <li class="dir damaged" data-key={l.key.clone()}>
                <div class="storage-row">
                    <span class="path">{ format!("{name}/") }</span>
                    <span class="error damaged-reason">{ format!("damaged: {reason}") }</span>
                    { buttons(p, l, false) }
                </div>
            </li>
        },
    }
}

/// One file of `shared/`: its size, whose SST file it is, and the checkpoints that list it.
struct SharedFile {
    size: u64,
    local: Option<String>,
    owner: String,
    checkpoints: Vec<u64>,
}

/// `shared/` of one job: every file the stored checkpoints list there, with its reference count
/// (the stored checkpoints that list it). A file no stored checkpoint lists is gone, as the
/// `SharedStateRegistry` deletes it once no retained checkpoint does.
fn shared_dir(checkpoints: &[&Listed]) -> Html {
    let mut files: BTreeMap<&str, SharedFile> = BTreeMap::new();
    for l in checkpoints {
        let Ok(m) = &l.meta else { continue };
        for f in m.files.iter().filter(|f| f.path.starts_with("shared/")) {
            let e = files.entry(f.path.as_str()).or_insert_with(|| SharedFile {
                size: f.size,
                local: f.local.clone(),
                owner: m
                    .checkpoint
                    .metadata
                    .subtasks
                    .iter()
                    .find(|s| s.files.contains(&f.path))
                    .map(|s| format!("{} ({})", s.vertex, s.subtask))
                    .unwrap_or_default(),
                checkpoints: Vec::new(),
            });
            e.checkpoints.push(l.id);
        }
    }
    if files.is_empty() {
        return html! {
            <li class="dir shared"><div class="storage-row"><span class="path">{ "shared/" }</span>
                <span class="note">{ "empty: incremental RocksDB checkpoints keep the SST files they share here" }</span></div></li>
        };
    }
    let mut rows: Vec<(&str, SharedFile)> = files.into_iter().collect();
    // Oldest upload first, then by SST file and subtask.
    rows.sort_by(|a, b| {
        let key = |r: &(&str, SharedFile)| {
            (
                r.1.checkpoints.first().copied(),
                r.1.local.clone(),
                r.1.owner.clone(),
            )
        };
        key(a).cmp(&key(b))
    });
    let total: u64 = rows.iter().map(|(_, f)| f.size).sum();
    html! {
        <li class="dir shared">
            <div class="storage-row"><span class="path">{ "shared/" }</span>
                <span class="size">{ bytes(total) }</span>
                <span class="note">{ format!("{} files (SharedStateRegistry): each stays while a retained checkpoint lists it", rows.len()) }</span></div>
            <table class="data shared-files">
                <thead><tr><th>{ "file" }</th><th>{ "size" }</th><th>{ "SST file of" }</th><th>{ "references" }</th><th>{ "listed by" }</th></tr></thead>
                <tbody>{ for rows.iter().map(|(path, f)| html! {
                    <tr class="shared-file" data-refs={f.checkpoints.len().to_string()}>
                        <td class="path" title={path.to_string()}>{ path.trim_start_matches("shared/").chars().take(8).collect::<String>() + "…" }</td>
                        <td class="size">{ bytes(f.size) }</td>
                        <td>{ format!("{} · {}", f.local.as_deref().unwrap_or("SST"), f.owner) }</td>
                        <td class="refs">{ f.checkpoints.len() }</td>
                        <td>{ f.checkpoints.iter().map(|id| format!("chk-{id}")).collect::<Vec<_>>().join(", ") }</td>
                    </tr>
                }) }</tbody>
            </table>
        </li>
    }
}

/// The directory the entries' `_metadata` pointers sit in (`<execution.checkpointing.dir>/<job-id>/`
/// for checkpoints, the savepoint directory for savepoints), or `fallback` when none is readable.
fn parent_dir(entries: &[&Listed], fallback: String) -> String {
    entries
        .iter()
        .filter_map(|l| l.meta.as_ref().ok())
        .find_map(|m| {
            let pointer = &m.checkpoint.metadata.external_pointer;
            pointer.rsplit_once('/').map(|(dir, _)| format!("{dir}/"))
        })
        .unwrap_or(fallback)
}

#[function_component(StorageTree)]
pub fn storage_tree(p: &TreeProps) -> Html {
    let mut jobs: BTreeMap<&str, Vec<&Listed>> = BTreeMap::new();
    for l in p.entries.iter() {
        jobs.entry(l.job.as_str()).or_default().push(l);
    }
    if jobs.is_empty() {
        return html! { <p class="muted" id="storage-empty">{ "No checkpoints stored yet: they are written as they complete." }</p> };
    }
    html! {
        <div class="storage-tree">
        { for jobs.into_iter().map(|(job, mut entries)| {
            entries.sort_by_key(|l| l.id);
            let (name, id) = job.split_once('/').unwrap_or((job, ""));
            let (savepoints, checkpoints): (Vec<&Listed>, Vec<&Listed>) =
                entries.into_iter().partition(|l| l.savepoint);
            html! {
                <details class="storage-job" open=true data-job={job.to_string()}>
                    <summary><strong>{ name.to_string() }</strong>
                        <span class="muted">{ format!(" · job {}", id.chars().take(12).collect::<String>()) }</span></summary>
                    <p class="path root">{ parent_dir(&checkpoints, format!("file:/tmp/flink-checkpoints/{id}/")) }</p>
                    <ul class="tree">
                        { for checkpoints.iter().map(|l| checkpoint_dir(p, l)) }
                        { shared_dir(&checkpoints) }
                        <li class="dir taskowned"><div class="storage-row"><span class="path">{ "taskowned/" }</span>
                            <span class="note">{ "empty: state the TaskManager owns (e.g. changelog)" }</span></div></li>
                    </ul>
                    if !savepoints.is_empty() {
                        <p class="path root">{ parent_dir(&savepoints, "file:/tmp/flink-savepoints/".to_string()) }</p>
                        <ul class="tree">{ for savepoints.iter().map(|l| checkpoint_dir(p, l)) }</ul>
                    }
                </details>
            }
        }) }
        </div>
    }
}
