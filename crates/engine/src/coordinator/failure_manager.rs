//! `CheckpointFailureManager` and `CheckpointFailureReason` (flink-defaults.md §5).
//!
//! Counts consecutive *counted* failures, at most once per checkpoint id, and tells the caller when
//! the job must fail. Only five reasons count; the rest (scheduling, subsumption, the
//! `CHECKPOINT_DECLINED_*` subtypes, task failures) are ignored for compatibility with Flink.

use crate::coordinator::properties::CheckpointProperties;
use crate::types::CheckpointId;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// Flink's `CheckpointFailureReason`, in Flink's declaration order (the first six are pre-flight).
#[allow(non_camel_case_types, clippy::upper_case_acronyms)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum CheckpointFailureReason {
    PERIODIC_SCHEDULER_SHUTDOWN,
    TOO_MANY_CHECKPOINT_REQUESTS,
    MINIMUM_TIME_BETWEEN_CHECKPOINTS,
    NOT_ALL_REQUIRED_TASKS_RUNNING,
    IO_EXCEPTION,
    BLOCKING_OUTPUT_EXIST,
    CHECKPOINT_ASYNC_EXCEPTION,
    CHANNEL_STATE_SHARED_STREAM_EXCEPTION,
    CHECKPOINT_EXPIRED,
    CHECKPOINT_SUBSUMED,
    CHECKPOINT_DECLINED,
    CHECKPOINT_DECLINED_TASK_NOT_READY,
    CHECKPOINT_DECLINED_TASK_CLOSING,
    CHECKPOINT_DECLINED_SUBSUMED,
    CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER,
    CHECKPOINT_DECLINED_INPUT_END_OF_STREAM,
    CHECKPOINT_COORDINATOR_SHUTDOWN,
    CHECKPOINT_COORDINATOR_SUSPEND,
    JOB_FAILOVER_REGION,
    TASK_FAILURE,
    TASK_CHECKPOINT_FAILURE,
    UNKNOWN_TASK_CHECKPOINT_NOTIFICATION_FAILURE,
    FINALIZE_CHECKPOINT_FAILURE,
    TRIGGER_CHECKPOINT_FAILURE,
}

/// Prefix of the job failure message (`EXCEEDED_CHECKPOINT_TOLERABLE_FAILURE_MESSAGE`).
pub const EXCEEDED_CHECKPOINT_TOLERABLE_FAILURE_MESSAGE: &str =
    "Exceeded checkpoint tolerable failure threshold.";

impl CheckpointFailureReason {
    /// Flink's message text for the reason (shown as `failure_message` in the REST history).
    pub fn message(self) -> &'static str {
        use CheckpointFailureReason::*;
        match self {
            PERIODIC_SCHEDULER_SHUTDOWN => "Periodic checkpoint scheduler is shut down.",
            TOO_MANY_CHECKPOINT_REQUESTS => {
                "The maximum number of queued checkpoint requests exceeded"
            }
            MINIMUM_TIME_BETWEEN_CHECKPOINTS => {
                "The minimum time between checkpoints is still pending. Checkpoint will be triggered after the minimum time."
            }
            NOT_ALL_REQUIRED_TASKS_RUNNING => "Not all required tasks are currently running.",
            IO_EXCEPTION => {
                "An Exception occurred while triggering the checkpoint. IO-problem detected."
            }
            BLOCKING_OUTPUT_EXIST => "Blocking output edge exists in running tasks.",
            CHECKPOINT_ASYNC_EXCEPTION => "Asynchronous task checkpoint failed.",
            CHANNEL_STATE_SHARED_STREAM_EXCEPTION => {
                "The checkpoint was aborted due to exception of other subtasks sharing the ChannelState file."
            }
            CHECKPOINT_EXPIRED => "Checkpoint expired before completing.",
            CHECKPOINT_SUBSUMED => "Checkpoint has been subsumed.",
            CHECKPOINT_DECLINED => "Checkpoint was declined.",
            CHECKPOINT_DECLINED_TASK_NOT_READY => "Checkpoint was declined (tasks not ready)",
            CHECKPOINT_DECLINED_TASK_CLOSING => "Checkpoint was declined (task is closing)",
            CHECKPOINT_DECLINED_SUBSUMED => {
                "Checkpoint was canceled because a barrier from newer checkpoint was received."
            }
            CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER => {
                "Task received cancellation from one of its inputs"
            }
            CHECKPOINT_DECLINED_INPUT_END_OF_STREAM => {
                "Checkpoint was declined because one input stream is finished"
            }
            CHECKPOINT_COORDINATOR_SHUTDOWN => "CheckpointCoordinator shutdown.",
            CHECKPOINT_COORDINATOR_SUSPEND => "Checkpoint Coordinator is suspending.",
            JOB_FAILOVER_REGION => "FailoverRegion is restarting.",
            TASK_FAILURE => "Task has failed.",
            TASK_CHECKPOINT_FAILURE => "Task local checkpoint failure.",
            UNKNOWN_TASK_CHECKPOINT_NOTIFICATION_FAILURE => {
                "Unknown task for the checkpoint to notify."
            }
            FINALIZE_CHECKPOINT_FAILURE => "Failure to finalize checkpoint.",
            TRIGGER_CHECKPOINT_FAILURE => "Trigger checkpoint failure.",
        }
    }

    /// `isPreFlight`: failures that happen before the checkpoint reaches any task.
    pub fn is_pre_flight(self) -> bool {
        use CheckpointFailureReason::*;
        matches!(
            self,
            PERIODIC_SCHEDULER_SHUTDOWN
                | TOO_MANY_CHECKPOINT_REQUESTS
                | MINIMUM_TIME_BETWEEN_CHECKPOINTS
                | NOT_ALL_REQUIRED_TASKS_RUNNING
                | IO_EXCEPTION
                | BLOCKING_OUTPUT_EXIST
        )
    }

    /// `isCountedAgainstFailureThreshold`: only these five count.
    pub fn is_counted(self) -> bool {
        use CheckpointFailureReason::*;
        matches!(
            self,
            IO_EXCEPTION
                | CHECKPOINT_ASYNC_EXCEPTION
                | CHECKPOINT_DECLINED
                | CHECKPOINT_EXPIRED
                | FINALIZE_CHECKPOINT_FAILURE
        )
    }

    /// The enum constant's name, e.g. `"CHECKPOINT_EXPIRED"`.
    pub fn name(self) -> String {
        format!("{self:?}")
    }
}

/// `CheckpointFailureManager`: the consecutive-failure counter.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct CheckpointFailureManager {
    tolerable: u32,
    continuous_failure_counter: u32,
    /// `countedCheckpointIds`: a checkpoint is counted once even if several tasks decline it.
    counted_ids: BTreeSet<CheckpointId>,
    last_succeeded: Option<CheckpointId>,
}

impl CheckpointFailureManager {
    pub fn new(tolerable_failed_checkpoints: u32) -> Self {
        Self {
            tolerable: tolerable_failed_checkpoints,
            continuous_failure_counter: 0,
            counted_ids: BTreeSet::new(),
            last_succeeded: None,
        }
    }

    pub fn continuous_failure_counter(&self) -> u32 {
        self.continuous_failure_counter
    }

    pub fn tolerable_failed_checkpoints(&self) -> u32 {
        self.tolerable
    }

    /// `countedCheckpointIds`: failed checkpoints already counted since the last reset.
    pub fn counted_checkpoint_ids(&self) -> impl Iterator<Item = CheckpointId> + '_ {
        self.counted_ids.iter().copied()
    }

    pub fn last_succeeded_checkpoint_id(&self) -> Option<CheckpointId> {
        self.last_succeeded
    }

    /// `handleCheckpointException`. `id` is `None` when the failure happened before an id was
    /// assigned (`UNKNOWN_CHECKPOINT_ID`); `from_task` says a task attempt reported it (decline).
    /// Returns the job failure message when the job must fail.
    pub fn handle_checkpoint_exception(
        &mut self,
        props: &CheckpointProperties,
        reason: CheckpointFailureReason,
        id: Option<CheckpointId>,
        from_task: bool,
    ) -> Option<String> {
        if reason.is_pre_flight() || !from_task {
            self.handle_job_level_checkpoint_exception(props, reason, id)
        } else {
            self.handle_task_level_checkpoint_exception(props, reason, id)
        }
    }

    /// Job-level failures of savepoints are not counted at all (Flink skips them).
    fn handle_job_level_checkpoint_exception(
        &mut self,
        props: &CheckpointProperties,
        reason: CheckpointFailureReason,
        id: Option<CheckpointId>,
    ) -> Option<String> {
        if props.is_savepoint() {
            return None;
        }
        self.check_failure_against_counter(reason, id)
    }

    /// A task-side failure of stop-with-savepoint fails the job at once, whatever the reason.
    fn handle_task_level_checkpoint_exception(
        &mut self,
        props: &CheckpointProperties,
        reason: CheckpointFailureReason,
        id: Option<CheckpointId>,
    ) -> Option<String> {
        if props.is_savepoint() && props.is_synchronous() {
            return Some(reason.message().to_string());
        }
        self.check_failure_against_counter(reason, id)
    }

    fn check_failure_against_counter(
        &mut self,
        reason: CheckpointFailureReason,
        id: Option<CheckpointId>,
    ) -> Option<String> {
        // A failure of a checkpoint older than the last success says nothing about the job now.
        let newer = match (id, self.last_succeeded) {
            (None, _) | (_, None) => true,
            (Some(id), Some(last)) => id > last,
        };
        if !newer {
            return None;
        }
        self.check_failure_counter(reason, id);
        if self.continuous_failure_counter > self.tolerable {
            self.clear_count();
            return Some(format!(
                "{EXCEEDED_CHECKPOINT_TOLERABLE_FAILURE_MESSAGE} The latest checkpoint failed due to {}, view the Checkpoint History tab or the Job Manager log to find out why continuous checkpoints failed.",
                reason.message()
            ));
        }
        None
    }

    /// `checkFailureCounter`: counts a counted reason once per id; `u32::MAX` disables counting.
    fn check_failure_counter(&mut self, reason: CheckpointFailureReason, id: Option<CheckpointId>) {
        if self.tolerable == u32::MAX || !reason.is_counted() {
            return;
        }
        let first_time = match id {
            None => true,
            Some(id) => self.counted_ids.insert(id),
        };
        if first_time {
            self.continuous_failure_counter = self.continuous_failure_counter.saturating_add(1);
        }
    }

    /// `handleCheckpointSuccess`: only a newer success resets the counter.
    pub fn handle_checkpoint_success(&mut self, id: CheckpointId) {
        if self.last_succeeded.is_none_or(|last| id > last) {
            self.last_succeeded = Some(id);
            self.clear_count();
        }
    }

    fn clear_count(&mut self) {
        self.continuous_failure_counter = 0;
        self.counted_ids.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::CheckpointFailureReason::*;
    use super::*;

    #[test]
    fn pre_flight_reasons_are_the_first_six_and_names_are_flinks() {
        // Flink's `isPreFlight`: the six constants declared first.
        let pre_flight = [
            PERIODIC_SCHEDULER_SHUTDOWN,
            TOO_MANY_CHECKPOINT_REQUESTS,
            MINIMUM_TIME_BETWEEN_CHECKPOINTS,
            NOT_ALL_REQUIRED_TASKS_RUNNING,
            IO_EXCEPTION,
            BLOCKING_OUTPUT_EXIST,
        ];
        for r in pre_flight {
            assert!(r.is_pre_flight(), "{r:?}");
        }
        for r in [CHECKPOINT_EXPIRED, CHECKPOINT_DECLINED, TASK_FAILURE] {
            assert!(!r.is_pre_flight(), "{r:?}");
        }
        assert_eq!(CHECKPOINT_EXPIRED.name(), "CHECKPOINT_EXPIRED");
    }

    #[test]
    fn the_manager_reports_its_threshold_and_last_success() {
        let mut m = CheckpointFailureManager::new(3);
        assert_eq!(m.tolerable_failed_checkpoints(), 3);
        assert_eq!(m.last_succeeded_checkpoint_id(), None);
        m.handle_checkpoint_success(7);
        m.handle_checkpoint_success(9);
        assert_eq!(m.last_succeeded_checkpoint_id(), Some(9));
        // Only a strictly newer success resets the count (`checkpointId > lastSucceeded...`).
        let cp = CheckpointProperties::periodic_checkpoint();
        assert_eq!(
            m.handle_checkpoint_exception(&cp, CHECKPOINT_EXPIRED, Some(10), false),
            None
        );
        m.handle_checkpoint_success(5);
        m.handle_checkpoint_success(9);
        assert_eq!(
            m.last_succeeded_checkpoint_id(),
            Some(9),
            "an older success changes nothing"
        );
        assert_eq!(m.continuous_failure_counter(), 1);
    }

    #[test]
    fn only_stop_with_savepoint_fails_the_job_at_once_from_a_task() {
        // A reason that does not count: only the synchronous savepoint fails the job.
        let mut m = CheckpointFailureManager::new(0);
        let sp = CheckpointProperties::savepoint();
        let reason = CHECKPOINT_DECLINED_TASK_NOT_READY;
        assert_eq!(
            m.handle_checkpoint_exception(&sp, reason, Some(1), true),
            None
        );
        let sync = CheckpointProperties::sync_savepoint();
        assert_eq!(
            m.handle_checkpoint_exception(&sync, reason, Some(2), true),
            Some(reason.message().to_string())
        );
        // A pre-flight reason is handled at job level even when a task reports it: a savepoint's
        // is not counted at all.
        assert_eq!(
            m.handle_checkpoint_exception(&sync, IO_EXCEPTION, Some(3), true),
            None
        );
    }

    #[test]
    fn a_failure_of_the_last_successful_id_or_older_is_not_counted() {
        // `checkpointId > lastSucceededCheckpointId`, strictly.
        let mut m = CheckpointFailureManager::new(0);
        let cp = CheckpointProperties::periodic_checkpoint();
        m.handle_checkpoint_success(5);
        assert_eq!(
            m.handle_checkpoint_exception(&cp, CHECKPOINT_EXPIRED, Some(5), false),
            None
        );
        assert_eq!(m.continuous_failure_counter(), 0);
        assert!(m
            .handle_checkpoint_exception(&cp, CHECKPOINT_EXPIRED, Some(6), false)
            .is_some_and(|msg| msg.starts_with(EXCEEDED_CHECKPOINT_TOLERABLE_FAILURE_MESSAGE)));
    }
}
