//! One trace event and the Flink class/method each kind stands for.

use serde::Serialize;

use super::source::{self, FlinkSource};
use super::Fnv;
use crate::types::{CheckpointId, Micros, SubtaskId};

/// Every mail's name (`Mail::name` in task/mailbox.rs), as the trace records it.
pub const MAIL_NAMES: [&str; 6] = [
    "triggerCheckpointAsync",
    "notifyCheckpointComplete",
    "notifyCheckpointAborted",
    "onProcessingTime",
    "alignedCheckpointTimeout",
    "Buffer size recalculation",
];

/// A mail's name (`Mail::name`). Read back from a snapshot it must be one of [`MAIL_NAMES`],
/// which keeps it `'static` without leaking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct MailName(pub &'static str);

impl<'de> serde::Deserialize<'de> for MailName {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<MailName, D::Error> {
        let name = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        MAIL_NAMES
            .into_iter()
            .find(|n| *n == name)
            .map(MailName)
            .ok_or_else(|| serde::de::Error::custom(format!("no mail is named {name:?}")))
    }
}

impl std::ops::Deref for MailName {
    type Target = str;
    fn deref(&self) -> &str {
        self.0
    }
}

impl std::fmt::Display for MailName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl PartialEq<&str> for MailName {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct TraceEvent {
    /// 1-based position in the whole run.
    pub seq: u64,
    pub time: Micros,
    /// The subtask it happened in; `None` for the JobManager.
    pub task: Option<SubtaskId>,
    #[serde(with = "super::compact::kind_form")]
    pub kind: TraceKind,
}

super::compact::with_compact_form! {
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum TraceKind {
    CheckpointTriggered {
        id: CheckpointId,
        savepoint: bool,
        unaligned: bool,
    },
    TriggerRejected {
        reason: String,
    },
    MailQueued {
        mail: MailName,
        urgent: bool,
    },
    MailRun {
        mail: MailName,
    },
    SourceBatch {
        records: u32,
    },
    RecordBatch {
        channel: u32,
        records: u32,
    },
    BarrierEmitted {
        id: CheckpointId,
        unaligned: bool,
    },
    BarrierOvertaking {
        id: CheckpointId,
        bytes: u64,
    },
    BarrierPromoted {
        id: CheckpointId,
        bytes: u64,
    },
    BarrierReceived {
        id: CheckpointId,
        channel: u32,
    },
    ChannelBlocked {
        channel: u32,
    },
    ChannelResumed {
        channel: u32,
    },
    AlignmentTimedOut {
        id: CheckpointId,
    },
    InFlightPersisted {
        id: CheckpointId,
        channel: u32,
        bytes: u64,
    },
    SyncStart {
        id: CheckpointId,
    },
    SyncEnd {
        id: CheckpointId,
        state_bytes: u64,
        sync: Micros,
    },
    AsyncEnd {
        id: CheckpointId,
        async_duration: Micros,
    },
    Acknowledged {
        id: CheckpointId,
    },
    Declined {
        id: CheckpointId,
        reason: String,
    },
    CheckpointCompleted {
        id: CheckpointId,
        duration: Micros,
        size: u64,
    },
    CheckpointAborted {
        id: CheckpointId,
        reason: String,
    },
    CancelMarkerEmitted {
        id: CheckpointId,
    },
    NotifyComplete {
        id: CheckpointId,
    },
    NotifyAborted {
        id: CheckpointId,
    },
    PreCommit {
        id: CheckpointId,
        records: u64,
    },
    Commit {
        id: CheckpointId,
        records: u64,
    },
    TimersFired {
        count: u32,
    },
    EndOfPartition {
        channel: u32,
    },
    EndOfData,
    TaskFinished,
    RestartScheduled {
        delay: Micros,
    },
    Restored {
        id: CheckpointId,
    },
    JobFailed {
        reason: String,
    },
    /// `SingleInputGate.triggerDebloating`: the gate's throughput and buffers in use gave a new
    /// buffer size, announced upstream when it changed by more than the threshold.
    BufferSizeRecalculated {
        /// The gate's position among the task's input gates.
        gate: u32,
        /// Bytes per second the gate handed over while its task was not idle.
        throughput: u64,
        buffers_in_use: u32,
        size: u32,
        announced: bool,
    },
    /// `SharedStateRegistryImpl.unregisterUnusedState`: shared files (incremental RocksDB SSTs)
    /// no retained checkpoint lists any more are deleted from `shared/`.
    SharedStateDiscarded {
        files: u32,
        bytes: u64,
        /// The lowest checkpoint still retained.
        lowest_retained: CheckpointId,
    },
    /// Input the model could not place (never expected; kept visible rather than dropped).
    Warning {
        message: String,
    },
}
}

impl TraceKind {
    /// Whether the event owns text (a `String` field): freeing it needs a look at the event.
    #[inline]
    pub fn owns_text(&self) -> bool {
        use TraceKind::*;
        matches!(
            self,
            TriggerRejected { .. }
                | Declined { .. }
                | CheckpointAborted { .. }
                | JobFailed { .. }
                | Warning { .. }
        )
    }

    /// The variant's name as written here (`CheckpointTriggered`): the key of its Flink source
    /// line in `trace::SOURCES`.
    pub fn name(&self) -> &'static str {
        use TraceKind::*;
        match self {
            CheckpointTriggered { .. } => "CheckpointTriggered",
            TriggerRejected { .. } => "TriggerRejected",
            MailQueued { .. } => "MailQueued",
            MailRun { .. } => "MailRun",
            SourceBatch { .. } => "SourceBatch",
            RecordBatch { .. } => "RecordBatch",
            BarrierEmitted { .. } => "BarrierEmitted",
            BarrierOvertaking { .. } => "BarrierOvertaking",
            BarrierPromoted { .. } => "BarrierPromoted",
            BarrierReceived { .. } => "BarrierReceived",
            ChannelBlocked { .. } => "ChannelBlocked",
            ChannelResumed { .. } => "ChannelResumed",
            AlignmentTimedOut { .. } => "AlignmentTimedOut",
            InFlightPersisted { .. } => "InFlightPersisted",
            SyncStart { .. } => "SyncStart",
            SyncEnd { .. } => "SyncEnd",
            AsyncEnd { .. } => "AsyncEnd",
            Acknowledged { .. } => "Acknowledged",
            Declined { .. } => "Declined",
            CheckpointCompleted { .. } => "CheckpointCompleted",
            CheckpointAborted { .. } => "CheckpointAborted",
            CancelMarkerEmitted { .. } => "CancelMarkerEmitted",
            NotifyComplete { .. } => "NotifyComplete",
            NotifyAborted { .. } => "NotifyAborted",
            PreCommit { .. } => "PreCommit",
            Commit { .. } => "Commit",
            TimersFired { .. } => "TimersFired",
            EndOfPartition { .. } => "EndOfPartition",
            EndOfData => "EndOfData",
            TaskFinished => "TaskFinished",
            RestartScheduled { .. } => "RestartScheduled",
            Restored { .. } => "Restored",
            JobFailed { .. } => "JobFailed",
            BufferSizeRecalculated { .. } => "BufferSizeRecalculated",
            SharedStateDiscarded { .. } => "SharedStateDiscarded",
            Warning { .. } => "Warning",
        }
    }

    /// The line of Flink 2.3.0's source the event stands for (class, method, file, line, link).
    pub fn source(&self) -> &'static FlinkSource {
        source::lookup(self.name()).expect("every TraceKind has an entry in trace::SOURCES")
    }

    /// The Flink 2.3 class and method the event stands for (seed 000's call chain).
    pub fn flink(&self) -> &'static str {
        self.source().label
    }

    /// A short, human description for the event log.
    pub fn describe(&self) -> String {
        use TraceKind::*;
        match self {
            CheckpointTriggered {
                id,
                savepoint,
                unaligned,
            } => format!(
                "trigger {} {id}{}",
                if *savepoint {
                    "savepoint"
                } else {
                    "checkpoint"
                },
                if *unaligned { " (unaligned)" } else { "" }
            ),
            TriggerRejected { reason } => format!("trigger request rejected: {reason}"),
            MailQueued { mail, urgent } => {
                format!(
                    "mail {mail} queued{}",
                    if *urgent { " (urgent)" } else { "" }
                )
            }
            MailRun { mail } => format!("mail {mail} runs"),
            SourceBatch { records } => format!("emitted {records} records"),
            RecordBatch { channel, records } => {
                format!("processed {records} records from channel {channel}")
            }
            BarrierEmitted { id, unaligned } => format!(
                "barrier {id} broadcast{}",
                if *unaligned { " as priority event" } else { "" }
            ),
            BarrierOvertaking { id, bytes } => {
                format!("barrier {id} overtook {bytes} bytes of output data")
            }
            BarrierPromoted { id, bytes } => {
                format!("queued barrier {id} promoted; overtook {bytes} bytes")
            }
            BarrierReceived { id, channel } => format!("barrier {id} on channel {channel}"),
            ChannelBlocked { channel } => format!("channel {channel} blocked"),
            ChannelResumed { channel } => format!("channel {channel} resumed"),
            AlignmentTimedOut { id } => format!("alignment of {id} timed out: switch to unaligned"),
            InFlightPersisted { id, channel, bytes } => {
                format!("{bytes} in-flight bytes of channel {channel} persisted for {id}")
            }
            SyncStart { id } => format!("sync snapshot {id} starts"),
            SyncEnd {
                id,
                state_bytes,
                sync,
            } => {
                format!("sync snapshot {id} done: {state_bytes} bytes in {sync}us")
            }
            AsyncEnd { id, async_duration } => {
                format!("async part of {id} done in {async_duration}us")
            }
            Acknowledged { id } => format!("acknowledged {id}"),
            Declined { id, reason } => format!("declined {id}: {reason}"),
            CheckpointCompleted { id, duration, size } => {
                format!("completed {id} in {duration}us, {size} bytes")
            }
            CheckpointAborted { id, reason } => format!("aborted {id}: {reason}"),
            CancelMarkerEmitted { id } => format!("cancel marker for {id} broadcast"),
            NotifyComplete { id } => format!("notifyCheckpointComplete({id})"),
            NotifyAborted { id } => format!("notifyCheckpointAborted({id})"),
            PreCommit { id, records } => {
                format!("pre-committed transaction of {records} records for {id}")
            }
            Commit { id, records } => format!("committed {records} records up to {id}"),
            TimersFired { count } => format!("{count} processing-time timers fired"),
            EndOfPartition { channel } => format!("end of partition on channel {channel}"),
            EndOfData => {
                "input ended: EndOfData sent, waiting for the final checkpoint".to_string()
            }
            TaskFinished => "task finished".to_string(),
            RestartScheduled { delay } => format!("job restarts in {delay}us"),
            Restored { id } => format!("job restored from checkpoint {id}"),
            JobFailed { reason } => format!("job failed: {reason}"),
            BufferSizeRecalculated {
                gate,
                throughput,
                buffers_in_use,
                size,
                announced,
            } => format!(
                "input gate {gate}: {throughput} bytes/s over {buffers_in_use} buffers in use: buffer size {size} bytes{}",
                if *announced { ", announced upstream" } else { " (within the threshold, not announced)" }
            ),
            SharedStateDiscarded {
                files,
                bytes,
                lowest_retained,
            } => format!(
                "{files} shared files ({bytes} bytes) deleted: no checkpoint from {lowest_retained} on refers to them"
            ),
            Warning { message } => format!("warning: {message}"),
        }
    }

    #[inline(always)]
    pub(super) fn hash_into(&self, h: &mut Fnv) {
        use TraceKind::*;
        let (tag, a, b, c): (u64, u64, u64, u64) = match self {
            CheckpointTriggered {
                id,
                savepoint,
                unaligned,
            } => (1, *id, *savepoint as u64, *unaligned as u64),
            TriggerRejected { reason } => {
                h.bytes(reason.as_bytes());
                (2, 0, 0, 0)
            }
            MailQueued { mail, urgent } => {
                h.bytes(mail.as_bytes());
                (3, *urgent as u64, 0, 0)
            }
            MailRun { mail } => {
                h.bytes(mail.as_bytes());
                (4, 0, 0, 0)
            }
            SourceBatch { records } => (5, u64::from(*records), 0, 0),
            RecordBatch { channel, records } => (6, u64::from(*channel), u64::from(*records), 0),
            BarrierEmitted { id, unaligned } => (7, *id, *unaligned as u64, 0),
            BarrierOvertaking { id, bytes } => (8, *id, *bytes, 0),
            BarrierPromoted { id, bytes } => (9, *id, *bytes, 0),
            BarrierReceived { id, channel } => (10, *id, u64::from(*channel), 0),
            ChannelBlocked { channel } => (11, u64::from(*channel), 0, 0),
            ChannelResumed { channel } => (12, u64::from(*channel), 0, 0),
            AlignmentTimedOut { id } => (13, *id, 0, 0),
            InFlightPersisted { id, channel, bytes } => (14, *id, u64::from(*channel), *bytes),
            SyncStart { id } => (15, *id, 0, 0),
            SyncEnd {
                id,
                state_bytes,
                sync,
            } => (16, *id, *state_bytes, *sync),
            AsyncEnd { id, async_duration } => (17, *id, *async_duration, 0),
            Acknowledged { id } => (18, *id, 0, 0),
            Declined { id, reason } => {
                h.bytes(reason.as_bytes());
                (19, *id, 0, 0)
            }
            CheckpointCompleted { id, duration, size } => (20, *id, *duration, *size),
            CheckpointAborted { id, reason } => {
                h.bytes(reason.as_bytes());
                (21, *id, 0, 0)
            }
            CancelMarkerEmitted { id } => (22, *id, 0, 0),
            NotifyComplete { id } => (23, *id, 0, 0),
            NotifyAborted { id } => (24, *id, 0, 0),
            PreCommit { id, records } => (25, *id, *records, 0),
            Commit { id, records } => (26, *id, *records, 0),
            TimersFired { count } => (27, u64::from(*count), 0, 0),
            EndOfPartition { channel } => (28, u64::from(*channel), 0, 0),
            TaskFinished => (29, 0, 0, 0),
            EndOfData => (32, 0, 0, 0),
            RestartScheduled { delay } => (33, *delay, 0, 0),
            Restored { id } => (34, *id, 0, 0),
            JobFailed { reason } => {
                h.bytes(reason.as_bytes());
                (30, 0, 0, 0)
            }
            Warning { message } => {
                h.bytes(message.as_bytes());
                (31, 0, 0, 0)
            }
            BufferSizeRecalculated {
                gate,
                throughput,
                buffers_in_use,
                size,
                announced,
            } => (
                35,
                *throughput,
                u64::from(*gate) << 32 | u64::from(*buffers_in_use),
                u64::from(*size) << 1 | u64::from(*announced),
            ),
            SharedStateDiscarded {
                files,
                bytes,
                lowest_retained,
            } => (36, u64::from(*files), *bytes, *lowest_retained),
        };
        h.u64(tag);
        h.u64(a);
        h.u64(b);
        h.u64(c);
    }
}
