//! The tutorials: seed 000 §0's five questions and its §10 experiment. Narration names Flink 2.3
//! classes and methods as the seed does; each step stops on the engine event it talks about.

use super::content_experiment::EXPERIMENT;
use super::content_questions::{ALIGNMENT, COMPLETION, UNALIGNED};
use super::{on, Ev, Highlight, Setup, Step, Tutorial, Until, ViewHint};

/// Every tutorial, in the seed's order.
pub static TUTORIALS: &[Tutorial] = &[
    WHO_TRIGGERS,
    BARRIERS,
    ALIGNMENT,
    UNALIGNED,
    COMPLETION,
    EXPERIMENT,
];

const DEMO: Setup = Setup::preset("seed-demo");

const WHO_TRIGGERS: Tutorial = Tutorial {
    id: "who-triggers",
    title: "Who triggers a checkpoint, and why only the sources?",
    summary: "The JobManager's timer, the checkpoint plan, and the barrier that does the rest.",
    steps: &[
        Step {
            title: "Before the first checkpoint",
            text: "This is seed 000's job: `datagen -hash-> count-per-key -> checkpoint-aware-map -> discard-sink` with `execution.checkpointing.interval: 5s`. The *job graph* shows two vertices: `Source: datagen` (2 subtasks) and the chain `count-per-key -> checkpoint-aware-map -> discard-sink: Writer` (2 subtasks). The tasks are still deploying, so the *Checkpoints* panel is empty. Flink 2.3's `ExecutionTrackingCheckpointCoordinatorDeActivator` started the checkpoint scheduler when the job switched to RUNNING and stopped it again as soon as the first task was SCHEDULED: a barrier cannot pass a task that is not RUNNING yet. Once *every* task is RUNNING it starts the scheduler again, and from the second start on `startCheckpointScheduler` waits only `execution.checkpointing.min-pause` (0 by default) instead of the random initial delay: checkpoint 1 follows the deployment at once.",
            setup: DEMO,
            until: Until::At(300_000),
            view: ViewHint::panel("job-graph").highlight(Highlight::None),
        },
        Step {
            title: "The timer fires",
            text: "On the *Checkpoint Timer* thread, `ScheduledTrigger.run` called `CheckpointCoordinator.triggerCheckpoint`. The request passed `CheckpointRequestDecider` (interval, min-pause, max-concurrent-checkpoints) and `startTriggeringCheckpoint` began: the newest line of the *event log* is `trigger checkpoint 1`. Its first step computed the `CheckpointPlan`: `tasksToTrigger`, `tasksToWaitFor` and `tasksToCommitTo`. In the *Checkpoints* panel checkpoint 1 is IN_PROGRESS with 0 of 4 subtasks acknowledged: the coordinator waits for all four, but it triggers only two of them.",
            setup: DEMO,
            until: on(Ev::Triggered, Some(1), None),
            view: ViewHint::panel("checkpoints")
                .checkpoint(1)
                .highlight(Highlight::None),
        },
        Step {
            title: "One RPC per source subtask",
            text: "`DefaultCheckpointPlanCalculator` put only the source vertex into `tasksToTrigger`, so `triggerTasks` sent `triggerCheckpoint` to the two `Source: datagen` subtasks and to nobody else. One RPC latency later (compare the times in the *event log*), `Task.triggerCheckpointBarrier` called `StreamTask.triggerCheckpointAsync`, which does not snapshot on the RPC thread: it queues a mail in the task's mailbox (`mail triggerCheckpointAsync queued`). The highlighted subtask in the *job graph* is the source that received it; `count-per-key` received no RPC at all.",
            setup: DEMO,
            until: on(Ev::MailQueued, Some(1), Some("datagen")),
            view: ViewHint::panel("event-log"),
        },
        Step {
            title: "The source injects the barrier",
            text: "The mail ran on the source's task thread: `StreamTask.performCheckpoint` → `SubtaskCheckpointCoordinatorImpl.checkpointState`. Step (1) `prepareSnapshotPreBarrier`, step (2) broadcast `CheckpointBarrier(1)` to every output channel, then step (5) the synchronous snapshot. The barrier now sits in the source's output queues behind every record emitted before it and ahead of every record emitted after it. That position is the source's share of the consistent cut.",
            setup: DEMO,
            until: on(Ev::BarrierEmitted, Some(1), Some("datagen")),
            view: ViewHint::panel("job-graph"),
        },
        Step {
            title: "Downstream is triggered by the barrier",
            text: "`count-per-key` starts its checkpoint because a barrier reached it: `CheckpointedInputGate.pollNext` handed it to `SingleCheckpointBarrierHandler.processBarrier` (*event log*: `barrier 1 on channel …`). *Why only sources?* A downstream snapshot must contain exactly the records that arrived before the barrier on each input. Only the barrier, travelling in order with the data, marks that point. An RPC from the JobManager would land anywhere in the stream, and the snapshots would not form a consistent cut. The *inspector* shows the highlighted subtask's input channels.",
            setup: DEMO,
            until: on(Ev::BarrierReceived, Some(1), Some("count-per-key")),
            view: ViewHint::panel("inspector-panel"),
        },
        Step {
            title: "Four acks, two triggers",
            text: "All four subtasks acknowledged (`CheckpointCoordinator.receiveAcknowledgeMessage`): two sources and two `count-per-key` chains. `completePendingCheckpoint` finished checkpoint 1. The *Checkpoints* panel's History shows it COMPLETED, 4/4 acknowledged; its details list each vertex's sync and async durations. The JobManager triggered two tasks and heard back from four.",
            setup: DEMO,
            until: on(Ev::Completed, Some(1), None),
            view: ViewHint::panel("checkpoints")
                .checkpoint(1)
                .highlight(Highlight::None),
        },
    ],
};

const BARRIERS: Tutorial = Tutorial {
    id: "barriers-no-lock",
    title: "How do barriers enter the stream, and why is no lock needed?",
    summary: "The mailbox, the six steps of checkpointState, and the sync/async split.",
    steps: &[
        Step {
            title: "A mail, not a lock",
            text: "The trigger RPC reached `Source: datagen (1/2)`. `StreamTask.triggerCheckpointAsync` put a mail in the task's mailbox (*event log*: `mail triggerCheckpointAsync queued`). In the mailbox model the task thread alternates between processing input and running mails, and a mail never runs in the middle of a record. Aligned checkpoints queue with the default `MailOptions`; unaligned ones use `MailOptions.urgent()` to jump ahead.",
            setup: DEMO,
            until: on(Ev::MailQueued, Some(1), Some("datagen")),
            view: ViewHint::panel("event-log"),
        },
        Step {
            title: "One mail: barrier, then snapshot",
            text: "The mail ran: `performCheckpoint` → `SubtaskCheckpointCoordinatorImpl.checkpointState`, whose steps (0) to (5) are one atomic action as far as records, watermarks, timers and callbacks are concerned. Step (2) `operatorChain.broadcastEvent(checkpointBarrier, …)` put the barrier into each output subpartition, after the records already emitted and before the next; it goes out *before* the snapshot so that downstream can start aligning meanwhile. Step (5) `takeSnapshotSync` runs on the same task thread: `StreamOperatorStateHandler.snapshotState` takes timers, calls `CheckpointedFunction.snapshotState`, then snapshots operator and keyed state (for the HashMap backend a copy-on-write snapshot of the `StateTable`). No record is half-processed, because the thread that processes records is the one running this mail. *That is why no lock is needed*; before the mailbox model Flink took a `checkpointLock` here. In the *event log*, barrier broadcast and sync start share a timestamp.",
            setup: DEMO,
            until: on(Ev::SyncStart, Some(1), Some("datagen")),
            view: ViewHint::panel("event-log"),
        },
        Step {
            title: "The barrier is in the stream",
            text: "Barrier 1 reached `count-per-key` as an ordinary network buffer, in order with the records (*event log*: `barrier 1 on channel …`). On each channel, records in front of the barrier are in this subtask's snapshot and records behind it are not. The source's asynchronous phase is still running: the source and its downstream checkpoint at the same time.",
            setup: DEMO,
            until: on(Ev::BarrierReceived, Some(1), Some("count-per-key")),
            view: ViewHint::panel("inspector-panel"),
        },
        Step {
            title: "The asynchronous part",
            text: "`finishAndReportAsync` handed the snapshot's `RunnableFuture`s to an `AsyncCheckpointRunnable` on the AsyncOperations pool, and the source's task thread went straight back to records. The *event log* shows `async part of 1 done`: the state was written to checkpoint storage while the task kept working. These are the Web UI's Sync Duration and Async Duration, shown in the checkpoint's details.",
            setup: DEMO,
            until: on(Ev::AsyncEnd, Some(1), Some("datagen")),
            view: ViewHint::panel("event-log"),
        },
        Step {
            title: "The ack carries handles",
            text: "`AsyncCheckpointRunnable.reportCompletedSnapshotStates` → `TaskStateManagerImpl.reportTaskStateSnapshots` → `acknowledgeCheckpoint`: the RPC carries state handles (which file, which offset), not the state, so it is small. The *Checkpoints* History shows checkpoint 1 IN_PROGRESS with this first acknowledgement: 1/4.",
            setup: DEMO,
            until: on(Ev::Acknowledged, Some(1), Some("datagen")),
            view: ViewHint::panel("checkpoints").checkpoint(1),
        },
    ],
};
