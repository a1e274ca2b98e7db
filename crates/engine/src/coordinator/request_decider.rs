//! `CheckpointRequestDecider`: the queue every trigger request passes through
//! (flink-defaults.md §6).
//!
//! Flink keeps requests in a `TreeSet` ordered savepoints → forced → non-periodic → older
//! timestamp → `identityHashCode`. The identity hash is not deterministic, so an insertion sequence
//! number takes its place as the last tie-break.

use crate::coordinator::failure_manager::CheckpointFailureReason;
use crate::coordinator::properties::CheckpointProperties;
use crate::types::Micros;
use serde::Serialize;

/// `CheckpointRequestDecider.DEFAULT_MAX_QUEUED_REQUESTS`.
pub const DEFAULT_MAX_QUEUED_REQUESTS: usize = 1000;

/// `CheckpointTriggerRequest`: one queued request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct CheckpointTriggerRequest {
    pub props: CheckpointProperties,
    /// When the request was made (used for "older first").
    pub timestamp: Micros,
    /// Insertion sequence: the deterministic stand-in for `identityHashCode`.
    pub seq: u64,
}

impl CheckpointTriggerRequest {
    /// Smaller sorts first: savepoints, forced, non-periodic, older, earlier inserted.
    fn order_key(&self) -> (bool, bool, bool, Micros, u64) {
        (
            !self.props.is_savepoint(),
            !self.props.forced,
            self.props.periodic,
            self.timestamp,
            self.seq,
        )
    }
}

/// What the decider decided for one submission or re-examination of the queue.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeciderOutcome {
    /// The request to trigger now, if any.
    pub execute: Option<CheckpointTriggerRequest>,
    /// Requests completed exceptionally (too many queued, min-pause).
    pub failed: Vec<(CheckpointTriggerRequest, CheckpointFailureReason)>,
    /// `rescheduleTrigger`: move the periodic trigger this far into the future.
    pub reschedule_periodic_after: Option<Micros>,
}

/// What the decider is told about the coordinator at each decision (Flink passes
/// `isTriggering` and `lastCompletionMs` as arguments and reads the other two from suppliers).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct DeciderContext {
    /// Pending checkpoints (`pendingCheckpointsSizeSupplier`).
    pub pending: usize,
    /// A trigger is still being initialized (`isTriggering`): nothing else may start.
    pub is_triggering: bool,
    /// Checkpoints whose discarding has not finished (`numberOfCleaningCheckpointsSupplier`).
    pub cleaning: usize,
    /// When the last checkpoint completed, for the min pause.
    pub last_completion: Option<Micros>,
}

/// The decider. The coordinator triggers and cleans up within one step, so it always passes
/// `is_triggering: false` and `cleaning: 0`; the replay machine `request-decider` sets them.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct CheckpointRequestDecider {
    queue: Vec<CheckpointTriggerRequest>,
    max_queued: usize,
    max_concurrent: u32,
    min_pause: Micros,
    next_seq: u64,
}

impl CheckpointRequestDecider {
    pub fn new(max_concurrent: u32, min_pause: Micros) -> Self {
        Self::with_max_queued(max_concurrent, min_pause, DEFAULT_MAX_QUEUED_REQUESTS)
    }

    pub fn with_max_queued(max_concurrent: u32, min_pause: Micros, max_queued: usize) -> Self {
        Self {
            queue: Vec::new(),
            max_queued: max_queued.max(1),
            max_concurrent,
            min_pause,
            next_seq: 0,
        }
    }

    /// Whether the request submitted with sequence number `seq` is still waiting.
    pub fn is_queued(&self, seq: u64) -> bool {
        self.queue.iter().any(|r| r.seq == seq)
    }

    /// The sequence number the next submitted request will get.
    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }

    /// The queue, head first.
    pub fn queued(&self) -> &[CheckpointTriggerRequest] {
        &self.queue
    }

    /// `chooseRequestToExecute(newRequest, …)`: enqueue, trim the queue, then pick.
    pub fn submit(
        &mut self,
        props: CheckpointProperties,
        now: Micros,
        ctx: DeciderContext,
    ) -> DeciderOutcome {
        let request = CheckpointTriggerRequest {
            props,
            timestamp: now,
            seq: self.next_seq,
        };
        self.next_seq += 1;
        // When only user requests fill the queue, Flink keeps them and drops the newcomer.
        if self.queue.len() >= self.max_queued
            && self.queue.last().is_some_and(|last| !last.props.periodic)
        {
            return DeciderOutcome {
                failed: vec![(
                    request,
                    CheckpointFailureReason::TOO_MANY_CHECKPOINT_REQUESTS,
                )],
                ..DeciderOutcome::default()
            };
        }
        let key = request.order_key();
        let at = self.queue.partition_point(|r| r.order_key() < key);
        self.queue.insert(at, request);
        let mut failed = Vec::new();
        if self.queue.len() > self.max_queued {
            if let Some(lowest) = self.queue.pop() {
                failed.push((
                    lowest,
                    CheckpointFailureReason::TOO_MANY_CHECKPOINT_REQUESTS,
                ));
            }
        }
        let mut outcome = self.choose_queued(now, ctx);
        failed.append(&mut outcome.failed);
        outcome.failed = failed;
        outcome
    }

    /// `chooseQueuedRequestToExecute`: re-examine the queue (after a completion or an abort).
    pub fn choose_queued(&mut self, now: Micros, ctx: DeciderContext) -> DeciderOutcome {
        let mut outcome = DeciderOutcome::default();
        let Some(head) = self.queue.first() else {
            return outcome;
        };
        if ctx.is_triggering || ctx.cleaning > self.max_concurrent as usize {
            return outcome;
        }
        if ctx.pending >= self.max_concurrent as usize {
            // Only a forced head may exceed max-concurrent; everything else waits, not dropped.
            if head.props.forced {
                outcome.execute = Some(self.queue.remove(0));
            }
            return outcome;
        }
        if !head.props.forced && head.props.periodic {
            let delay = self.next_trigger_delay(now, ctx.last_completion);
            if delay > 0 {
                let head = self.queue.remove(0);
                outcome.failed.push((
                    head,
                    CheckpointFailureReason::MINIMUM_TIME_BETWEEN_CHECKPOINTS,
                ));
                outcome.reschedule_periodic_after = Some(delay);
                return outcome;
            }
        }
        outcome.execute = Some(self.queue.remove(0));
        outcome
    }

    /// `nextTriggerDelayMillis`: time left until `lastCompletion + minPause`.
    fn next_trigger_delay(&self, now: Micros, last_completion: Option<Micros>) -> Micros {
        match last_completion {
            Some(last) => (last + self.min_pause).saturating_sub(now),
            None => 0,
        }
    }

    /// `abortAll`: empties the queue (suspend/shutdown) and returns what was in it.
    pub fn abort_all(&mut self) -> Vec<CheckpointTriggerRequest> {
        std::mem::take(&mut self.queue)
    }
}
