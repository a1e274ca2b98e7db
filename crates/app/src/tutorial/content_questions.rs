//! Seed 000 §0, questions 3–5: alignment, unaligned checkpoints, completion and two-phase commit.

use super::{on, Ev, Highlight, Setup, Step, Tutorial, Until, ViewHint};

const BACKPRESSURE: Setup = Setup::preset("seed-backpressure");
const UNALIGNED_SETUP: Setup = Setup::preset("seed-unaligned");
const TWO_PC: Setup = Setup::preset("seed-2pc");

pub const ALIGNMENT: Tutorial = Tutorial {
    id: "alignment",
    title: "What does alignment block?",
    summary: "Barriers from two channels, one blocked channel, and data that stays upstream.",
    steps: &[
        Step {
            title: "A backpressured job",
            text: "`seed-backpressure`: `count-per-key` costs 5 ms a record (the seed's `Thread.sleep(5)`), about 200 records/s per subtask against ~1000 arriving. The sources are backpressured and the network buffers between them and `count-per-key` are full. Checkpoint 1 came right after the tasks started, while those buffers were still filling, so it was short (seed 000 measured 359 ms for it). Checkpoint 2 has just been triggered.",
            setup: BACKPRESSURE,
            until: on(Ev::Triggered, Some(2), None),
            view: ViewHint::panel("timeline").highlight(Highlight::None),
        },
        Step {
            title: "The first barrier arrives; its channel is blocked",
            text: "At the highlighted `count-per-key` subtask, barrier 2 arrived on one input channel (*event log*: `barrier 2 on channel …`), close to a second after the sources emitted it: it queued behind the buffers already in flight (the 9-key subtask, more backpressured, waits more than two seconds). `SingleCheckpointBarrierHandler.processBarrier` saw a new checkpoint id (`checkNewCheckpoint` records how many channels to wait for), the handler moved from `WaitingForFirstBarrier` to `CollectingBarriers`, and `AbstractAlignedBarrierHandlerState` called `blockChannel`: the task stops reading that channel. *What is blocked is the sender, not a buffer downstream.* An aligned barrier travels as an `ALIGNED_CHECKPOINT_BARRIER` buffer, which is blocking upstream: the upstream `PipelinedSubpartition` marked itself blocked when it handed the barrier over, and the records after the barrier stay in its own output buffers. The other channel is not blocked; the records in front of its barrier are still processed. The *inspector* lists the subtask's input channels.",
            setup: BACKPRESSURE,
            // The 7-key subtask gets its first barrier of checkpoint 2 first (the 9-key one
            // later, behind more data); its second barrier follows some ms later.
            until: on(Ev::ChannelBlocked, Some(2), Some("count-per-key")),
            view: ViewHint::panel("inspector-panel"),
        },
        Step {
            title: "The last barrier unblocks",
            text: "Barrier 2 arrived on the other channel as well; compare the two barrier times in the *event log*. `allBarriersReceived()` held, so `triggerGlobalCheckpoint` → `CheckpointBarrierHandler.notifyCheckpoint` → `StreamTask.triggerCheckpointOnBarrier` → `performCheckpoint` ran the same `checkpointState` as the source: forward the barrier, snapshot. Then `ChannelState.unblockAllChannels` → `resumeConsumption`, and the upstream subpartitions send again (`channel … resumed`). The time from the first barrier to the last is this subtask's Alignment Duration.",
            setup: BACKPRESSURE,
            until: on(Ev::ChannelResumed, Some(2), Some("count-per-key")),
            view: ViewHint::panel("event-log"),
        },
        Step {
            title: "Where the time went",
            text: "Checkpoint 2 completed after about 2.4 s, but the alignment itself took a fraction of that. Most of the time the barrier was *queued behind in-flight data* before it reached `count-per-key` (the start delay in the details). The size did not change (5.5 KB): aligned checkpoints store no in-flight data. Seed 000 measured about 3.9 s under the same backpressure. *Why was this checkpoint slow?* counts the buffers that were ahead of the barrier.",
            setup: BACKPRESSURE,
            until: on(Ev::Completed, Some(2), None),
            view: ViewHint::panel("checkpoints")
                .checkpoint(2)
                .highlight(Highlight::None),
        },
    ],
};

pub const UNALIGNED: Tutorial = Tutorial {
    id: "unaligned",
    title: "Why is an unaligned checkpoint fast, and what does it cost?",
    summary: "Priority barriers overtake in-flight data, which becomes part of the checkpoint.",
    steps: &[
        Step {
            title: "Same backpressure, unaligned",
            text: "The same backpressured job with `execution.checkpointing.unaligned.enabled: true`. Checkpoint 1 came right after the tasks started, before the buffers had filled, so it stored little in-flight data (seed 000 measured 91 KB for it). `CheckpointOptions.forConfig` marked checkpoint 2 unaligned (*event log*: `trigger checkpoint 2 (unaligned)`); the options travel with the barrier to every task. The handler is `SingleCheckpointBarrierHandler.alternating()`.",
            setup: UNALIGNED_SETUP,
            until: on(Ev::Triggered, Some(2), None),
            view: ViewHint::panel("event-log").highlight(Highlight::None),
        },
        Step {
            title: "An urgent mail",
            text: "For an unaligned checkpoint `StreamTask.triggerCheckpointAsync` queues the trigger with `MailOptions.urgent()`: it goes to the front of the mailbox (*event log*: `queued (urgent)`). The point of unaligned checkpoints is to be fast, so the mail does not wait behind other mails.",
            setup: UNALIGNED_SETUP,
            until: on(Ev::MailQueued, Some(2), Some("datagen")),
            view: ViewHint::panel("event-log"),
        },
        Step {
            title: "The barrier overtakes",
            text: "`broadcastEvent(barrier, isPriorityEvent = true)` sent the barrier as a `PRIORITIZED_EVENT_BUFFER`. `PipelinedSubpartition.processPriorityBuffer` put it at the head of each queue and copied every data buffer it overtook into the checkpoint's channel state (`channelStateWriter.addOutputData`). The *event log* says how many bytes: hundreds of kilobytes, the whole backlog. Those buffers are still delivered, after the barrier, but they are already part of checkpoint 2.",
            setup: UNALIGNED_SETUP,
            until: on(Ev::BarrierOvertaking, Some(2), Some("datagen")),
            view: ViewHint::panel("event-log"),
        },
        Step {
            title: "No waiting",
            text: "The barrier reached `count-per-key` within milliseconds; aligned, it queued for seconds. `AlternatingWaitingForFirstBarrierUnaligned.barrierReceived` snapshots at once, on the *first* barrier, and blocks no channel. Buffers that arrive on the other channels before their barrier are persisted as input channel state (`ChannelStatePersister.maybePersist`).",
            setup: UNALIGNED_SETUP,
            until: on(Ev::BarrierReceived, Some(2), Some("count-per-key")),
            view: ViewHint::panel("inspector-panel"),
        },
        Step {
            title: "Fast, and large",
            text: "Checkpoint 2 completed in a few tens of milliseconds instead of about three seconds, but it is about 600 KB instead of 5.5 KB. The *Persisted* column of the History is the in-flight data: roughly 600 records of 1 KB that sat in the network buffers. Seed 000 measured about 20 ms and 600 KB; the keyed state itself is the same 5.5 KB as before.",
            setup: UNALIGNED_SETUP,
            until: on(Ev::Completed, Some(2), None),
            view: ViewHint::panel("checkpoints")
                .checkpoint(2)
                .highlight(Highlight::None),
        },
        Step {
            title: "The price, every time",
            text: "Checkpoint 3: fast and large again, as the *timeline* shows. The costs: checkpoints grow with the backlog, recovery is slower (channel state is replayed into the channels before processing resumes), it works only with EXACTLY_ONCE, and savepoints are always aligned. `execution.checkpointing.aligned-checkpoint-timeout` starts aligned and switches to unaligned only when alignment takes too long; try it in the hands-on experiment.",
            setup: UNALIGNED_SETUP,
            until: on(Ev::Completed, Some(3), None),
            view: ViewHint::panel("timeline").highlight(Highlight::None),
        },
    ],
};

const TWO_PC_LOST: Setup = Setup {
    preset: "seed-2pc",
    set: &[],
    faults: &[r#"{"lose-notification": {"task": "two-phase-commit-sink#0", "checkpoint": 2}}"#],
};

pub const COMPLETION: Tutorial = Tutorial {
    id: "completion-2pc",
    title: "When is a checkpoint complete, and why does two-phase commit need notifyCheckpointComplete?",
    summary: "Pre-commit, the last ack, _metadata, and the commit that waits for the JobManager.",
    steps: &[
        Step {
            title: "Pre-commit before the barrier",
            text: "`seed-2pc` ends in a two-phase-commit sink. In step (1) of `checkpointState`, `SinkWriterOperator.prepareSnapshotPreBarrier` flushed the writer and emitted checkpoint 1's committables (in the legacy API: `TwoPhaseCommitSinkFunction.preCommit`). The records are in a transaction that is prepared but not visible (*event log*: `pre-committed transaction of … records`). The *exactly-once verdict* counts nothing committed yet.",
            setup: TWO_PC,
            until: on(Ev::PreCommit, Some(1), Some("two-phase-commit-sink")),
            view: ViewHint::panel("verdict-panel"),
        },
        Step {
            title: "Pending: three of four",
            text: "Three of the four subtasks have acknowledged. The checkpoint is still *pending*: `PendingCheckpoint.acknowledgeTask` removes each subtask from `notYetAcknowledgedTasks`, and only when that set is empty does `completePendingCheckpoint` run. The *Checkpoints* panel shows checkpoint 1 IN_PROGRESS with 3/4 acknowledged.",
            setup: TWO_PC,
            until: Until::Event {
                ev: Ev::Acknowledged,
                checkpoint: Some(1),
                operator: None,
                nth: 3,
            },
            view: ViewHint::panel("checkpoints").checkpoint(1),
        },
        Step {
            title: "Complete: the metadata is written",
            text: "The last ack arrived. `completePendingCheckpoint` → `PendingCheckpoint.finalizeCheckpoint` wrote `_metadata`, the checkpoint went into the `CompletedCheckpointStore` and older ones were subsumed. *This* is the moment checkpoint 1 exists: a failure from now on restores it. The History shows it COMPLETED; the sinks have committed nothing, because nobody has told them.",
            setup: TWO_PC,
            until: on(Ev::Completed, Some(1), None),
            view: ViewHint::panel("checkpoints")
                .checkpoint(1)
                .highlight(Highlight::None),
        },
        Step {
            title: "notifyCheckpointComplete commits",
            text: "`sendAcknowledgeMessages` notified every task in `tasksToCommitTo`. The RPC became a mail (`StreamTask.notifyCheckpointCompleteAsync`), and `CommitterOperator.notifyCheckpointComplete` committed the transaction (*event log*: `committed … records up to 1`). Committing earlier, at pre-commit or at the ack, would publish records of a checkpoint that can still fail: after a restore of an older checkpoint the sources replay them and they are written twice. Only the JobManager knows when *every* snapshot is durable. The *verdict* now counts committed records.",
            setup: TWO_PC,
            until: on(Ev::Commit, Some(1), Some("two-phase-commit-sink")),
            view: ViewHint::panel("verdict-panel"),
        },
        Step {
            title: "A lost notification",
            text: "The same job with one fault (see the *Faults* panel): `notifyCheckpointComplete(2)` never reaches `two-phase-commit-sink (1/2)`. Checkpoint 2 completed anyway, and that subtask's transaction for 2 stayed pre-committed. When checkpoint 3's notification arrived, the committer committed everything up to 3, checkpoint 2's records included (*event log*). Flink does not promise the notification: committables are part of the checkpointed state and are committed again after a restore, so a commit must be idempotent. The *verdict* finds no duplicates and nothing missing.",
            setup: TWO_PC_LOST,
            until: Until::Event {
                ev: Ev::Commit,
                checkpoint: Some(3),
                operator: Some("two-phase-commit-sink"),
                nth: 2,
            },
            view: ViewHint::panel("verdict-panel").highlight(Highlight::Task("two-phase-commit-sink", 1)),
        },
    ],
};
