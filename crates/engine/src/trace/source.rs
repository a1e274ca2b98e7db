//! Where in Flink's source each trace kind happens: one line of Apache Flink's `release-2.3.0` tag
//! per kind, the line the event log links to.
//!
//! Pure data. A declaration's line is the method's signature (its first line, after any annotation);
//! an entry with a `call` links to that call inside the method instead (a numbered step of
//! `SubtaskCheckpointCoordinatorImpl.checkpointState`, say). `tests/flink/source_lines.py` re-derives
//! every line from a Flink checkout (`FLINK_SRC=… python3 tests/flink/source_lines.py [--write]`, for
//! a Flink upgrade) and checks them against the compiled release (`--jar`: each class's
//! LineNumberTable in `flink-dist-2.3.0.jar`, run by CI).

/// The git ref of Apache Flink the lines belong to.
pub const FLINK_REF: &str = "release-2.3.0";

/// One place in Flink's source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlinkSource {
    /// The `TraceKind` variant it stands for, as written in `event.rs`.
    pub kind: &'static str,
    /// What the event log shows: class and method, sometimes a step (`TraceKind::flink`).
    pub label: &'static str,
    /// The top-level class; its file is `{class}.java`.
    pub class: &'static str,
    pub method: &'static str,
    /// The method called on `line`, when the line is a call inside `method` rather than its
    /// declaration.
    pub call: Option<&'static str>,
    /// Path in the Flink repository.
    pub path: &'static str,
    /// 1-based line in `path` at `FLINK_REF`.
    pub line: u32,
    /// `https://github.com/apache/flink/blob/{FLINK_REF}/{path}#L{line}` (built at compile time:
    /// the event log renders hundreds of lines per frame and allocates none of it).
    pub url: &'static str,
    /// The link's tooltip: file, line and ref.
    pub title: &'static str,
}

/// One entry: `src!(kind, label, class, method, [call,] directory, line)`.
macro_rules! src {
    ($kind:literal, $label:literal, $class:literal, $method:literal, $dir:literal, $line:literal) => {
        FlinkSource {
            kind: $kind,
            label: $label,
            class: $class,
            method: $method,
            call: None,
            path: concat!($dir, "/", $class, ".java"),
            line: $line,
            url: concat!(
                "https://github.com/apache/flink/blob/release-2.3.0/",
                $dir,
                "/",
                $class,
                ".java#L",
                $line
            ),
            title: concat!(
                $class,
                ".java line ",
                $line,
                ": ",
                $method,
                " in Flink release-2.3.0 on GitHub (opens in a new tab)"
            ),
        }
    };
    ($kind:literal, $label:literal, $class:literal, $method:literal, call $call:literal, $dir:literal, $line:literal) => {
        FlinkSource {
            kind: $kind,
            label: $label,
            class: $class,
            method: $method,
            call: Some($call),
            path: concat!($dir, "/", $class, ".java"),
            line: $line,
            url: concat!(
                "https://github.com/apache/flink/blob/release-2.3.0/",
                $dir,
                "/",
                $class,
                ".java#L",
                $line
            ),
            title: concat!(
                $class,
                ".java line ",
                $line,
                ": ",
                $method,
                " calls ",
                $call,
                " in Flink release-2.3.0 on GitHub (opens in a new tab)"
            ),
        }
    };
}

// `concat!` needs literals, so the directories are spelled out per entry (the script checks them).
// Lines: Flink release-2.3.0; `tests/flink/source_lines.py` says how each was derived and checks it.
#[rustfmt::skip]
pub static SOURCES: &[FlinkSource] = &[
    src!("CheckpointTriggered", "CheckpointCoordinator.startTriggeringCheckpoint", "CheckpointCoordinator", "startTriggeringCheckpoint", "flink-runtime/src/main/java/org/apache/flink/runtime/checkpoint", 624),
    src!("TriggerRejected", "CheckpointRequestDecider.chooseRequestToExecute", "CheckpointRequestDecider", "chooseRequestToExecute", "flink-runtime/src/main/java/org/apache/flink/runtime/checkpoint", 111),
    src!("MailQueued", "MailboxExecutorImpl.execute", "MailboxExecutorImpl", "execute", "flink-runtime/src/main/java/org/apache/flink/streaming/runtime/tasks/mailbox", 70),
    src!("MailRun", "MailboxProcessor.processMail", "MailboxProcessor", "processMail", "flink-runtime/src/main/java/org/apache/flink/streaming/runtime/tasks/mailbox", 355),
    src!("SourceBatch", "SourceOperator.emitNext", "SourceOperator", "emitNext", "flink-runtime/src/main/java/org/apache/flink/streaming/api/operators", 516),
    src!("RecordBatch", "AbstractStreamTaskNetworkInput.emitNext", "AbstractStreamTaskNetworkInput", "emitNext", "flink-runtime/src/main/java/org/apache/flink/streaming/runtime/io", 152),
    src!("BarrierEmitted", "SubtaskCheckpointCoordinatorImpl.checkpointState, step 2", "SubtaskCheckpointCoordinatorImpl", "checkpointState", call "broadcastEvent", "flink-runtime/src/main/java/org/apache/flink/streaming/runtime/tasks", 344),
    src!("BarrierOvertaking", "PipelinedSubpartition.processPriorityBuffer", "PipelinedSubpartition", "processPriorityBuffer", "flink-runtime/src/main/java/org/apache/flink/runtime/io/network/partition", 218),
    src!("BarrierPromoted", "PipelinedSubpartition.alignedBarrierTimeout", "PipelinedSubpartition", "alignedBarrierTimeout", "flink-runtime/src/main/java/org/apache/flink/runtime/io/network/partition", 329),
    src!("BarrierReceived", "SingleCheckpointBarrierHandler.processBarrier", "SingleCheckpointBarrierHandler", "processBarrier", "flink-runtime/src/main/java/org/apache/flink/streaming/runtime/io/checkpointing", 214),
    src!("ChannelBlocked", "AbstractAlignedBarrierHandlerState.barrierReceived (blockChannel)", "AbstractAlignedBarrierHandlerState", "barrierReceived", call "blockChannel", "flink-runtime/src/main/java/org/apache/flink/streaming/runtime/io/checkpointing", 62),
    src!("ChannelResumed", "ChannelState.unblockAllChannels", "ChannelState", "unblockAllChannels", "flink-runtime/src/main/java/org/apache/flink/streaming/runtime/io/checkpointing", 74),
    src!("AlignmentTimedOut", "AlternatingCollectingBarriers.alignedCheckpointTimeout", "AlternatingCollectingBarriers", "alignedCheckpointTimeout", "flink-runtime/src/main/java/org/apache/flink/streaming/runtime/io/checkpointing", 41),
    src!("InFlightPersisted", "ChannelStatePersister.maybePersist", "ChannelStatePersister", "maybePersist", "flink-runtime/src/main/java/org/apache/flink/runtime/io/network/partition/consumer", 110),
    src!("SyncStart", "SubtaskCheckpointCoordinatorImpl.checkpointState, step 5", "SubtaskCheckpointCoordinatorImpl", "checkpointState", call "takeSnapshotSync", "flink-runtime/src/main/java/org/apache/flink/streaming/runtime/tasks", 362),
    src!("SyncEnd", "SubtaskCheckpointCoordinatorImpl.takeSnapshotSync", "SubtaskCheckpointCoordinatorImpl", "takeSnapshotSync", "flink-runtime/src/main/java/org/apache/flink/streaming/runtime/tasks", 724),
    src!("AsyncEnd", "AsyncCheckpointRunnable.run", "AsyncCheckpointRunnable", "run", "flink-runtime/src/main/java/org/apache/flink/streaming/runtime/tasks", 109),
    src!("Acknowledged", "CheckpointCoordinator.receiveAcknowledgeMessage", "CheckpointCoordinator", "receiveAcknowledgeMessage", "flink-runtime/src/main/java/org/apache/flink/runtime/checkpoint", 1204),
    src!("Declined", "CheckpointCoordinator.receiveDeclineMessage", "CheckpointCoordinator", "receiveDeclineMessage", "flink-runtime/src/main/java/org/apache/flink/runtime/checkpoint", 1123),
    src!("CheckpointCompleted", "CheckpointCoordinator.completePendingCheckpoint", "CheckpointCoordinator", "completePendingCheckpoint", "flink-runtime/src/main/java/org/apache/flink/runtime/checkpoint", 1359),
    src!("CheckpointAborted", "CheckpointCoordinator.abortPendingCheckpoint", "CheckpointCoordinator", "abortPendingCheckpoint", "flink-runtime/src/main/java/org/apache/flink/runtime/checkpoint", 2259),
    src!("CancelMarkerEmitted", "SubtaskCheckpointCoordinatorImpl.checkpointState, step 0", "SubtaskCheckpointCoordinatorImpl", "checkpointState", call "broadcastEvent", "flink-runtime/src/main/java/org/apache/flink/streaming/runtime/tasks", 307),
    src!("NotifyComplete", "StreamTask.notifyCheckpointCompleteAsync", "StreamTask", "notifyCheckpointCompleteAsync", "flink-runtime/src/main/java/org/apache/flink/streaming/runtime/tasks", 1560),
    src!("NotifyAborted", "StreamTask.notifyCheckpointAbortAsync", "StreamTask", "notifyCheckpointAbortAsync", "flink-runtime/src/main/java/org/apache/flink/streaming/runtime/tasks", 1567),
    src!("PreCommit", "SinkWriterOperator.prepareSnapshotPreBarrier", "SinkWriterOperator", "prepareSnapshotPreBarrier", "flink-runtime/src/main/java/org/apache/flink/streaming/runtime/operators/sink", 188),
    src!("Commit", "CommitterOperator.notifyCheckpointComplete", "CommitterOperator", "notifyCheckpointComplete", "flink-runtime/src/main/java/org/apache/flink/streaming/runtime/operators/sink", 159),
    src!("TimersFired", "InternalTimerServiceImpl.onProcessingTime", "InternalTimerServiceImpl", "onProcessingTime", "flink-runtime/src/main/java/org/apache/flink/streaming/api/operators", 291),
    src!("EndOfPartition", "SingleCheckpointBarrierHandler.processEndOfPartition", "SingleCheckpointBarrierHandler", "processEndOfPartition", "flink-runtime/src/main/java/org/apache/flink/streaming/runtime/io/checkpointing", 405),
    src!("EndOfData", "StreamTask.endData", "StreamTask", "endData", "flink-runtime/src/main/java/org/apache/flink/streaming/runtime/tasks", 707),
    src!("TaskFinished", "StreamTask.afterInvoke", "StreamTask", "afterInvoke", "flink-runtime/src/main/java/org/apache/flink/streaming/runtime/tasks", 1025),
    src!("RestartScheduled", "ExponentialDelayRestartBackoffTimeStrategy.notifyFailure", "ExponentialDelayRestartBackoffTimeStrategy", "notifyFailure", "flink-runtime/src/main/java/org/apache/flink/runtime/executiongraph/failover", 112),
    src!("Restored", "CheckpointCoordinator.restoreLatestCheckpointedStateToAll", "CheckpointCoordinator", "restoreLatestCheckpointedStateToAll", "flink-runtime/src/main/java/org/apache/flink/runtime/checkpoint", 1699),
    src!("JobFailed", "CheckpointFailureManager.checkFailureCounter", "CheckpointFailureManager", "checkFailureCounter", "flink-runtime/src/main/java/org/apache/flink/runtime/checkpoint", 217),
    src!("BufferSizeRecalculated", "SingleInputGate.triggerDebloating", "SingleInputGate", "triggerDebloating", "flink-runtime/src/main/java/org/apache/flink/runtime/io/network/partition/consumer", 514),
    src!("SharedStateDiscarded", "SharedStateRegistryImpl.unregisterUnusedState", "SharedStateRegistryImpl", "unregisterUnusedState", "flink-runtime/src/main/java/org/apache/flink/runtime/state", 159),
    src!("Warning", "StreamTask.handleAsyncException", "StreamTask", "handleAsyncException", "flink-runtime/src/main/java/org/apache/flink/streaming/runtime/tasks", 1739),
];

/// The entry for a `TraceKind` variant name (`TraceKind::name`).
pub fn lookup(kind: &str) -> Option<&'static FlinkSource> {
    SOURCES.iter().find(|s| s.kind == kind)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::trace::{MailName, TraceKind};

    /// The variant names of `TraceKind`, read from its definition: a variant added there without
    /// an entry in `SOURCES` fails `every_trace_kind_has_a_flink_source`.
    fn declared_kinds() -> Vec<&'static str> {
        let text = include_str!("event.rs");
        let start = text
            .find("pub enum TraceKind {")
            .expect("TraceKind is defined in event.rs");
        let body = &text[start..];
        let body = &body[..body.find("\n}\n").expect("the enum ends")];
        body.lines()
            .filter_map(|l| l.strip_prefix("    "))
            .filter(|l| l.starts_with(|c: char| c.is_ascii_uppercase()))
            .map(|l| l.split([' ', ',', '{', '(']).next().unwrap_or(l))
            .collect()
    }

    /// One value of every variant.
    fn one_of_each() -> Vec<TraceKind> {
        use TraceKind::*;
        let s = String::new;
        vec![
            CheckpointTriggered {
                id: 1,
                savepoint: false,
                unaligned: false,
            },
            TriggerRejected { reason: s() },
            MailQueued {
                mail: MailName("m"),
                urgent: false,
            },
            MailRun {
                mail: MailName("m"),
            },
            SourceBatch { records: 1 },
            RecordBatch {
                channel: 0,
                records: 1,
            },
            BarrierEmitted {
                id: 1,
                unaligned: false,
            },
            BarrierOvertaking { id: 1, bytes: 1 },
            BarrierPromoted { id: 1, bytes: 1 },
            BarrierReceived { id: 1, channel: 0 },
            ChannelBlocked { channel: 0 },
            ChannelResumed { channel: 0 },
            AlignmentTimedOut { id: 1 },
            InFlightPersisted {
                id: 1,
                channel: 0,
                bytes: 1,
            },
            SyncStart { id: 1 },
            SyncEnd {
                id: 1,
                state_bytes: 1,
                sync: 1,
            },
            AsyncEnd {
                id: 1,
                async_duration: 1,
            },
            Acknowledged { id: 1 },
            Declined { id: 1, reason: s() },
            CheckpointCompleted {
                id: 1,
                duration: 1,
                size: 1,
            },
            CheckpointAborted { id: 1, reason: s() },
            CancelMarkerEmitted { id: 1 },
            NotifyComplete { id: 1 },
            NotifyAborted { id: 1 },
            PreCommit { id: 1, records: 1 },
            Commit { id: 1, records: 1 },
            TimersFired { count: 1 },
            EndOfPartition { channel: 0 },
            EndOfData,
            TaskFinished,
            RestartScheduled { delay: 1 },
            Restored { id: 1 },
            JobFailed { reason: s() },
            BufferSizeRecalculated {
                gate: 0,
                throughput: 1,
                buffers_in_use: 1,
                size: 1,
                announced: true,
            },
            SharedStateDiscarded {
                files: 1,
                bytes: 1,
                lowest_retained: 1,
            },
            Warning { message: s() },
        ]
    }

    #[test]
    fn owns_text_names_every_kind_with_a_string() {
        for kind in one_of_each() {
            // `Debug` quotes a `String` field right after its name (a `MailName` is not one).
            let text = format!("{kind:?}").contains(": \"");
            assert_eq!(kind.owns_text(), text, "{kind:?}");
        }
    }

    #[test]
    fn every_trace_kind_has_a_flink_source() {
        let declared = declared_kinds();
        assert!(declared.len() >= 30, "parsed {declared:?}");
        for kind in &declared {
            assert!(
                lookup(kind).is_some(),
                "TraceKind::{kind} has no entry in trace::SOURCES"
            );
        }
        let declared: BTreeSet<_> = declared.into_iter().collect();
        let mapped: BTreeSet<_> = SOURCES.iter().map(|s| s.kind).collect();
        assert_eq!(mapped.len(), SOURCES.len(), "a kind has two entries");
        assert_eq!(mapped, declared, "entries for kinds that do not exist");
        // `name()` spells every variant as declared, so `source()` finds it.
        let named: BTreeSet<_> = one_of_each().iter().map(TraceKind::name).collect();
        assert_eq!(named, declared);
        for kind in one_of_each() {
            assert_eq!(kind.source().kind, kind.name());
            assert_eq!(kind.flink(), kind.source().label);
        }
    }

    #[test]
    fn flink_sources_are_lines_of_java_files_at_the_release_tag() {
        let prefix = format!("https://github.com/apache/flink/blob/{FLINK_REF}/");
        for s in SOURCES {
            let file = format!("{}.java", s.class);
            assert!(s.path.ends_with(".java"), "{s:?}");
            assert!(
                s.path.starts_with("flink-") && s.path.contains("/src/main/java/org/apache/flink/"),
                "{s:?}"
            );
            assert_eq!(s.path.rsplit('/').next(), Some(file.as_str()), "{s:?}");
            assert!(s.line > 0, "{s:?}");
            let ident =
                |t: &str| !t.is_empty() && t.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            assert!(
                ident(s.class) && ident(s.method) && s.call.is_none_or(ident),
                "{s:?}"
            );
            assert!(
                s.label.starts_with(&format!("{}.{}", s.class, s.method)),
                "{s:?}"
            );
            assert_eq!(s.url, format!("{prefix}{}#L{}", s.path, s.line));
            assert!(
                s.title
                    .starts_with(&format!("{file} line {}: {}", s.line, s.method)),
                "{s:?}"
            );
            assert!(s.title.contains(FLINK_REF), "{s:?}");
        }
    }

    #[test]
    fn a_trigger_links_to_the_checkpoint_coordinator() {
        let kind = TraceKind::CheckpointTriggered {
            id: 3,
            savepoint: false,
            unaligned: true,
        };
        let s = kind.source();
        assert_eq!(
            (s.class, s.method, s.line),
            ("CheckpointCoordinator", "startTriggeringCheckpoint", 624)
        );
        assert_eq!(
            s.url,
            "https://github.com/apache/flink/blob/release-2.3.0/flink-runtime/src/main/java/org/apache/flink/runtime/checkpoint/CheckpointCoordinator.java#L624"
        );
        let barrier = TraceKind::BarrierEmitted {
            id: 3,
            unaligned: false,
        }
        .source();
        assert_eq!((barrier.line, barrier.call), (344, Some("broadcastEvent")));
    }
}
