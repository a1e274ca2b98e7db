//! Stop conditions over the engine's trace: a tutorial step runs the simulation one event at a
//! time until the condition holds, then pauses there. Matching looks only at trace events
//! recorded since the step began, so the same step from the same start always stops on the same
//! event (the engine is deterministic).

use barrierlab_engine::sim::Simulation;
use barrierlab_engine::trace::{TraceEvent, TraceKind};
use barrierlab_engine::types::Micros;

use crate::format::{micros, sim_time};

/// Longest a step may run, in simulated time, before it reports that its condition never held.
pub const STEP_BOUND: Micros = 120_000_000;

/// The engine events a step can wait for (one per `TraceKind` a tutorial talks about). In a
/// tutorial file they are written in kebab-case: `"mail-queued"`, `"barrier-received"`, ….
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Ev {
    /// `CheckpointCoordinator.startTriggeringCheckpoint`.
    Triggered,
    /// A task mail queued (the trigger RPC lands in the source's mailbox).
    MailQueued,
    /// Step (2) of `checkpointState`: the barrier is broadcast downstream.
    BarrierEmitted,
    /// An unaligned barrier overtakes buffered output.
    BarrierOvertaking,
    /// `SingleCheckpointBarrierHandler.processBarrier`.
    BarrierReceived,
    /// Alignment blocks the channel the barrier came from.
    ChannelBlocked,
    /// `ChannelState.unblockAllChannels` after alignment.
    ChannelResumed,
    /// In-flight data persisted as channel state.
    InFlightPersisted,
    /// Step (5): the synchronous snapshot begins.
    SyncStart,
    /// The asynchronous part (`AsyncCheckpointRunnable`) finished.
    AsyncEnd,
    /// `CheckpointCoordinator.receiveAcknowledgeMessage`.
    Acknowledged,
    /// `CheckpointCoordinator.completePendingCheckpoint`.
    Completed,
    /// `StreamTask.notifyCheckpointCompleteAsync` in a subtask.
    Notified,
    /// `SinkWriterOperator.prepareSnapshotPreBarrier`: the transaction is pre-committed.
    PreCommit,
    /// `CommitterOperator.notifyCheckpointComplete`: the transaction is committed.
    Commit,
}

impl Ev {
    /// Whether `kind` is this event, and the checkpoint it belongs to (if the kind carries one).
    fn matches(self, kind: &TraceKind) -> Option<Option<u64>> {
        use TraceKind as K;
        let id = match (self, kind) {
            (Ev::Triggered, K::CheckpointTriggered { id, .. })
            | (Ev::BarrierEmitted, K::BarrierEmitted { id, .. })
            | (Ev::BarrierOvertaking, K::BarrierOvertaking { id, .. })
            | (Ev::BarrierReceived, K::BarrierReceived { id, .. })
            | (Ev::InFlightPersisted, K::InFlightPersisted { id, .. })
            | (Ev::SyncStart, K::SyncStart { id })
            | (Ev::AsyncEnd, K::AsyncEnd { id, .. })
            | (Ev::Acknowledged, K::Acknowledged { id })
            | (Ev::Completed, K::CheckpointCompleted { id, .. })
            | (Ev::Notified, K::NotifyComplete { id })
            | (Ev::PreCommit, K::PreCommit { id, .. })
            | (Ev::Commit, K::Commit { id, .. }) => Some(*id),
            (Ev::MailQueued, K::MailQueued { .. })
            | (Ev::ChannelBlocked, K::ChannelBlocked { .. })
            | (Ev::ChannelResumed, K::ChannelResumed { .. }) => None,
            _ => return None,
        };
        Some(id)
    }

    fn phrase(self) -> &'static str {
        match self {
            Ev::Triggered => "is triggered",
            Ev::MailQueued => "a checkpoint mail is queued",
            Ev::BarrierEmitted => "broadcasts its barrier",
            Ev::BarrierOvertaking => "overtakes in-flight output",
            Ev::BarrierReceived => "barrier arrives",
            Ev::ChannelBlocked => "an input channel is blocked",
            Ev::ChannelResumed => "blocked channels resume",
            Ev::InFlightPersisted => "in-flight data is persisted",
            Ev::SyncStart => "synchronous snapshot starts",
            Ev::AsyncEnd => "asynchronous snapshot part finishes",
            Ev::Acknowledged => "is acknowledged",
            Ev::Completed => "completes",
            Ev::Notified => "notifyCheckpointComplete arrives",
            Ev::PreCommit => "pre-commits",
            Ev::Commit => "commits",
        }
    }
}

/// When a step stops (in a tutorial file: `{"at": "300ms"}` or `{"event": "completed", …}`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Until {
    /// At this simulated time.
    At(Micros),
    /// The `nth` (1-based) event of kind `ev`, of checkpoint `checkpoint` if given, in a subtask
    /// of a vertex that chains operator `operator` if given. Kinds without a checkpoint id match
    /// `checkpoint` while it is the newest triggered one.
    Event {
        ev: Ev,
        checkpoint: Option<u64>,
        operator: Option<String>,
        nth: u32,
    },
}

/// Shorthand for the common case: the first such event.
pub fn on(ev: Ev, checkpoint: Option<u64>, operator: Option<&str>) -> Until {
    Until::Event {
        ev,
        checkpoint,
        operator: operator.map(str::to_string),
        nth: 1,
    }
}

impl Until {
    /// The condition as the panel states it ("until checkpoint 2 completes").
    pub fn label(&self) -> String {
        match *self {
            Until::At(t) => format!("until {}", sim_time(t)),
            Until::Event {
                ev,
                checkpoint,
                ref operator,
                nth,
            } => {
                let mut s = String::from("until ");
                if nth > 1 {
                    s.push_str(&format!("the {} ", ordinal(nth)));
                }
                if let Some(id) = checkpoint {
                    s.push_str(&format!("checkpoint {id} "));
                }
                if let Some(op) = operator {
                    s.push_str(&format!("at {op}: "));
                }
                s.push_str(ev.phrase());
                s
            }
        }
    }
}

fn ordinal(n: u32) -> String {
    match n {
        2 => "2nd".into(),
        3 => "3rd".into(),
        n => format!("{n}th"),
    }
}

/// The event a step stopped on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    pub time: Micros,
    /// The subtask's index in `Simulation::tasks`, if the event happened in one.
    pub task: Option<u32>,
    /// "count-per-key -> … (1/2)" or "JobManager".
    pub place: String,
    pub describe: String,
    pub flink: &'static str,
}

/// The vertex of `event`'s subtask chains an operator named `op`.
fn at_operator(sim: &Simulation, event: &TraceEvent, op: &str) -> bool {
    let Some(task) = event.task else {
        return false;
    };
    sim.graph
        .vertices
        .get(task.vertex as usize)
        .is_some_and(|v| {
            v.operators
                .iter()
                .any(|o| sim.scenario.operators.get(*o).is_some_and(|s| s.name == op))
        })
}

fn hit(sim: &Simulation, event: &TraceEvent) -> Hit {
    let (task, place) = match event.task {
        Some(id) => {
            let index = sim.tasks.iter().position(|t| t.id == id).map(|i| i as u32);
            let vertex = &sim.graph.vertices[id.vertex as usize];
            let place = format!(
                "{} ({}/{})",
                vertex.name,
                id.subtask + 1,
                vertex.parallelism
            );
            (index, place)
        }
        None => (None, "JobManager".to_string()),
    };
    Hit {
        time: event.time,
        task,
        place,
        describe: event.kind.describe(),
        flink: event.kind.flink(),
    }
}

/// Runs `sim` event by event until `until` holds, at most `STEP_BOUND` of simulated time past
/// where it starts. One engine event can record several trace events; `cursor` is the sequence
/// number of the last trace event already looked at, so the next step starts right after the
/// event this one stopped on, even inside the same engine event. `after_step` sees the
/// simulation after every engine event (time travel snapshots). `Err` says why the condition
/// never held.
pub fn run_until(
    sim: &mut Simulation,
    until: &Until,
    cursor: &mut u64,
    mut after_step: impl FnMut(&Simulation),
) -> Result<Option<Hit>, String> {
    let deadline = sim.now + STEP_BOUND;
    let (ev, checkpoint, operator, nth) = match *until {
        Until::At(t) => {
            // Event by event, so time travel sees every slice.
            while sim.status.is_live() && sim.next_event_time().is_some_and(|next| next <= t) {
                sim.step();
                after_step(sim);
            }
            sim.run_until(t);
            after_step(sim);
            *cursor = sim.trace.total();
            return Ok(None);
        }
        Until::Event {
            ev,
            checkpoint,
            ref operator,
            nth,
        } => (ev, checkpoint, operator.as_deref(), nth),
    };
    // The newest triggered checkpoint, for kinds that carry no id.
    let mut current = sim
        .trace
        .events()
        .rev()
        .filter(|e| e.seq <= *cursor)
        .find_map(|e| match e.kind {
            TraceKind::CheckpointTriggered { id, .. } => Some(id),
            _ => None,
        })
        .unwrap_or(0);
    let mut seen = 0;
    let mut fresh: Vec<TraceEvent> = Vec::new();
    loop {
        fresh.clear();
        fresh.extend(
            sim.trace
                .events()
                .rev()
                .take_while(|e| e.seq > *cursor)
                .cloned(),
        );
        for event in fresh.iter().rev() {
            *cursor = event.seq;
            if let TraceKind::CheckpointTriggered { id, .. } = event.kind {
                current = id;
            }
            let Some(id) = ev.matches(&event.kind) else {
                continue;
            };
            let id_ok = checkpoint.is_none_or(|want| id.unwrap_or(current) == want);
            let op_ok = operator.is_none_or(|op| at_operator(sim, event, op));
            if id_ok && op_ok {
                seen += 1;
                if seen == nth {
                    return Ok(Some(hit(sim, event)));
                }
            }
        }
        match sim.next_event_time() {
            Some(t) if t <= deadline && sim.status.is_live() => {}
            _ => {
                return Err(format!(
                    "The run never got there: no event matched “{}” within {} of simulated time (job {}).",
                    until.label(),
                    micros(STEP_BOUND),
                    sim.status.flink_name()
                ))
            }
        }
        sim.step();
        after_step(sim);
    }
}
