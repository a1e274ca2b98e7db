//! The subtask inspector: mailbox, barrier handler, keyed state by key group, source offsets and
//! two-phase-commit transactions of one task, read straight from the simulation.

use barrierlab_engine::barrier::BarrierHandler;
use barrierlab_engine::sim::Simulation;
use barrierlab_engine::task::{Operator, StreamTask};
use yew::prelude::*;

use crate::format;
use crate::job::SimRef;
use crate::model::subtask_label;
use crate::state::{Action, State};

/// Key groups listed at most, and sample entries per key group.
const MAX_KEY_GROUPS: usize = 24;
const SAMPLE: usize = 3;

#[derive(Properties, PartialEq)]
pub struct InspectorProps {
    pub sim: SimRef,
    pub task: Option<u32>,
    pub dispatch: UseReducerDispatcher<State>,
}

fn mailbox(t: &StreamTask, now: u64) -> Html {
    let mails: Vec<&'static str> = t.mailbox.iter().map(|m| m.name()).collect();
    let running = if t.busy_until > now {
        format!(
            "processing until {} ({:?})",
            format::sim_time(t.busy_until),
            t.time.state
        )
    } else {
        format!("{:?}", t.time.state).to_ascii_lowercase()
    };
    html! {
        <section class="insp-section" id="insp-mailbox">
            <h3>{ "Mailbox (TaskMailbox)" }</h3>
            <p>{ "Now: " }<strong>{ running }</strong>{ format!(" · status {:?}", t.status) }</p>
            if mails.is_empty() {
                <p class="muted">{ "No queued mails." }</p>
            } else {
                <ol class="mails">{ for mails.iter().map(|m| html! { <li><code>{ *m }</code></li> }) }</ol>
            }
        </section>
    }
}

fn handler(t: &StreamTask) -> Html {
    let Some(h) = &t.handler else {
        return html! {
            <section class="insp-section" id="insp-handler">
                <h3>{ "Barrier handler" }</h3>
                <p class="muted">{ "A source: barriers start here (triggerCheckpointAsync)." }</p>
            </section>
        };
    };
    let blocked = h.blocked_channels();
    let pending = h.pending_checkpoint_ids();
    html! {
        <section class="insp-section" id="insp-handler">
            <h3>{ "Barrier handler" }</h3>
            <dl class="kv">
                <dt>{ "State" }</dt><dd><code>{ h.state_name() }</code></dd>
                <dt>{ "Blocked channels" }</dt>
                <dd>{ if blocked.is_empty() { "none".to_string() } else { format!("{blocked:?}") } }</dd>
                <dt>{ "Pending checkpoints" }</dt>
                <dd>{ if pending.is_empty() { "none".to_string() } else { format!("{pending:?}") } }</dd>
                <dt>{ "Input channels" }</dt><dd>{ t.inputs.len() }</dd>
            </dl>
        </section>
    }
}

fn operator_section(op: &Operator) -> Option<Html> {
    match op {
        Operator::Datagen(d) => Some(html! {
            <section class="insp-section" id="insp-source">
                <h3>{ "Source offset (SourceReaderState)" }</h3>
                <dl class="kv">
                    <dt>{ "next_seq" }</dt><dd>{ d.next_seq }</dd>
                    <dt>{ "bounded" }</dt>
                    <dd>{ d.bounded.map_or("unbounded".to_string(), |b| b.to_string()) }</dd>
                    <dt>{ "rate / subtask" }</dt><dd>{ format!("{} records/s", d.rate_per_subtask) }</dd>
                </dl>
            </section>
        }),
        Operator::TwoPhaseCommitSink(c) => Some(html! {
            <section class="insp-section" id="insp-2pc">
                <h3>{ "Two-phase commit" }</h3>
                <dl class="kv">
                    <dt>{ "Open transaction" }</dt><dd>{ format!("{} record(s)", c.open.len()) }</dd>
                    <dt>{ "Committed" }</dt>
                    <dd>{ match c.committed_transactions.last() {
                        Some(newest) => format!("{} recent transaction(s), newest from checkpoint {newest}", c.committed_transactions.len()),
                        None => "nothing yet".to_string(),
                    } }</dd>
                </dl>
                if c.pending.is_empty() {
                    <p class="muted">{ "No pre-committed transaction waits for its checkpoint." }</p>
                } else {
                    <ul>{ for c.pending.iter().map(|(id, recs)| html! {
                        <li>{ format!("checkpoint {id}: {} record(s) pre-committed, waiting for notifyCheckpointComplete", recs.len()) }</li>
                    }) }</ul>
                }
            </section>
        }),
        _ => {
            let keyed = op.keyed_ref()?;
            let range = keyed.backend.key_group_range();
            let groups: Vec<(u32, usize, Vec<String>)> =
                (range.start..=range.end)
                    .map(|kg| {
                        let entries: Vec<_> = keyed
                            .backend
                            .entries_in_key_group(keyed.state, kg)
                            .collect();
                        let sample =
                            entries
                                .iter()
                                .take(SAMPLE)
                                .map(|(k, n, v)| {
                                    format!("{k:?}{} = {v}", match n {
                            barrierlab_engine::state::state_table::Namespace::Void => String::new(),
                            other => format!(" @{other:?}"),
                        })
                                })
                                .collect();
                        (kg, entries.len(), sample)
                    })
                    .filter(|(_, n, _)| *n > 0)
                    .collect();
            let total: usize = groups.iter().map(|g| g.1).sum();
            let describe = keyed.backend.descriptor(keyed.state).map(state_description);
            Some(html! {
                <>
                if let Some(r) = &keyed.rocksdb {
                    { rocksdb_files(r) }
                }
                <section class="insp-section" id="insp-keyed">
                    <h3>{ format!("Keyed state (key groups {}–{})", range.start, range.end) }</h3>
                    if let Some(d) = describe {
                        <p id="insp-state-desc">{ d }</p>
                    }
                    <p>{ format!("{total} entr(ies) in {} non-empty key group(s)", groups.len()) }</p>
                    <table class="data keygroups">
                        <thead><tr><th>{ "key group" }</th><th>{ "entries" }</th><th>{ "sample" }</th></tr></thead>
                        <tbody>{ for groups.iter().take(MAX_KEY_GROUPS).map(|(kg, n, sample)| html! {
                            <tr><td>{ kg }</td><td>{ n }</td><td class="sample">{ sample.join(", ") }</td></tr>
                        }) }</tbody>
                    </table>
                </section>
                </>
            })
        }
    }
}

/// The keyed state's descriptor in Flink's words, with its TTL and what the samples show.
fn state_description(d: &barrierlab_engine::state::ValueStateDescriptor) -> String {
    use barrierlab_engine::state::StateKind;
    let kind = match d.kind {
        StateKind::Value => format!("ValueState<Long> \"{}\"", d.name),
        StateKind::List => format!(
            "ListState<Long> \"{}\" (a sample shows a list's length)",
            d.name
        ),
    };
    match d.ttl_millis {
        Some(ms) => format!(
            "{kind}, state TTL {} (StateTtlConfig): expired entries read as absent; the heap's incremental cleanup or RocksDB's compaction filter drops them",
            format::millis(ms)
        ),
        None => kind,
    }
}

/// The subtask's RocksDB instance: its SST files by level, and which of them the last completed
/// checkpoint already holds (an incremental checkpoint refers to those from `shared/`).
fn rocksdb_files(r: &barrierlab_engine::state::RocksDbInstance) -> Html {
    let files: Vec<&barrierlab_engine::state::SstFile> = r.levels().iter().flatten().collect();
    let bytes: u64 = files.iter().map(|f| f.bytes).sum();
    html! {
        <section class="insp-section" id="insp-rocksdb">
            <h3>{ if r.is_forst() { "ForSt files (ForStStateBackend)" } else { "RocksDB files (EmbeddedRocksDBStateBackend)" } }</h3>
            <p>{ format!("{} SST file(s), {} · {}", files.len(), format::bytes(bytes),
                match (r.is_forst(), r.incremental()) {
                    (true, _) => "on checkpoint storage (ForSt's primary directory): checkpoints refer to them, never upload them",
                    (false, true) => "incremental checkpoints",
                    (false, false) => "full checkpoints (every file uploaded)",
                }) }</p>
            <table class="data sst-files">
                <thead><tr><th>{ "file" }</th><th>{ "level" }</th><th>{ "entries" }</th><th>{ "size" }</th><th>{ "last completed checkpoint" }</th></tr></thead>
                <tbody>{ for files.iter().map(|f| html! {
                    <tr data-level={f.level.to_string()}>
                        <td><code>{ f.name() }</code></td>
                        <td>{ format!("L{}", f.level) }</td>
                        <td>{ f.entries }</td>
                        <td>{ format::bytes(f.bytes) }</td>
                        <td>{ match r.held_by(f.number) {
                            Some(id) => format!("in shared/ since checkpoint {id}: referenced, not uploaded again"),
                            None if r.is_forst() => "on checkpoint storage (the primary directory): the next checkpoint refers to it".to_string(),
                            None if r.incremental() => "not confirmed (notifyCheckpointComplete) yet: a checkpoint now uploads it".to_string(),
                            None => "uploaded again by every full checkpoint".to_string(),
                        } }</td>
                    </tr>
                }) }</tbody>
            </table>
        </section>
    }
}

fn body(sim: &Simulation, index: u32) -> Html {
    let Some(t) = sim.tasks.get(index as usize) else {
        return html! { <p class="empty">{ "That subtask is not part of this job." }</p> };
    };
    let vertex = sim.graph.vertices.get(t.id.vertex as usize);
    let vname = vertex.map_or("", |v| v.name.as_str());
    let parallelism = vertex.map_or(1, |v| v.parallelism);
    html! {
        <>
            <h3 class="insp-title" id="insp-title">{ subtask_label(vname, t.id.subtask) }</h3>
            // Subtasks count from #0 here, as in Flink's Web UI; Flink's task names and logs count
            // from 1, so #0 of 2 is "(1/2)" there.
            <p class="muted" id="insp-flink-name" title="Subtask indexes count from 0 (Web UI); task names in Flink's logs count from 1">
                { format!("in Flink's logs: {vname} ({}/{parallelism})", t.id.subtask + 1) }
            </p>
            <p class="muted">{ format!("records in {} · out {}", t.records_in, t.records_out) }</p>
            { mailbox(t, sim.now) }
            { handler(t) }
            { for t.operators.iter().filter_map(operator_section) }
        </>
    }
}

#[function_component(Inspector)]
pub fn inspector(p: &InspectorProps) -> Html {
    let Some(index) = p.task else {
        return html! { <p class="empty">{ "Click a subtask in the job graph to inspect it." }</p> };
    };
    let close = {
        let d = p.dispatch.clone();
        Callback::from(move |_| d.dispatch(Action::Inspect(None)))
    };
    let sim = p.sim.borrow();
    html! {
        <div class="inspector" id="inspector">
            <button class="icon close" id="inspector-close" aria-label="Close inspector" onclick={close}>{ "×" }</button>
            { body(&sim, index) }
        </div>
    }
}
