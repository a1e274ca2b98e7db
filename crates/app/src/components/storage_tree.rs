//! The storage browser's listing: jobs, their checkpoint directories laid out as Flink's
//! `FsCheckpointStorage` lays them out, and savepoints.

use std::collections::BTreeMap;

use yew::prelude::*;

use crate::format::bytes;
use crate::storage::Listed;

/// What a row's buttons ask for: (action, record key).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowAction {
    Restore,
    Export,
    Delete,
}

#[derive(Properties, PartialEq)]
pub struct TreeProps {
    pub entries: Vec<Listed>,
    pub busy: bool,
    pub onaction: Callback<(RowAction, String)>,
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

fn checkpoint_dir(p: &TreeProps, l: &Listed) -> Html {
    let name = dir_name(l);
    match &l.meta {
        Ok(m) => {
            let total: u64 = m.files.iter().map(|f| f.size).sum();
            let kind = if l.savepoint {
                "savepoint"
            } else {
                "checkpoint"
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
                            <span class="note">{ format!("{} subtasks, {} files", m.checkpoint.metadata.subtasks.len(), m.files.len()) }</span></li>
                        { for m.files.iter().map(|f| html! {
                            <li><span class="path">{ f.path.rsplit('/').next().unwrap_or(&f.path).to_string() }</span>
                                <span class="size">{ bytes(f.size) }</span></li>
                        }) }
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
    for l in &p.entries {
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
                        <li class="dir shared"><div class="storage-row"><span class="path">{ "shared/" }</span>
                            <span class="note">{ "empty: incremental (RocksDB) files several checkpoints share" }</span></div></li>
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
