//! Barrier announcements (`processBarrierAnnouncement`), after AlternatingCheckpointsTest: the
//! announcement starts the checkpoint and its timer; on the switch to unaligned every announced
//! barrier is made to overtake its channel's data (`convertToPriorityEvent`).

use super::support::*;
use crate::barrier::{
    AbortReason, CheckpointBarrierTracker, HandlerInput, SingleCheckpointBarrierHandler,
};

const TIMEOUT: u64 = 1_000;

/// A handler whose `handle` returns the effects without the `ConvertToPriorityEvent`s, which
/// `take_conversions` returns instead, each with the number of other effects before it: the
/// tests state the two apart.
struct Split {
    inner: SingleCheckpointBarrierHandler,
    conversions: Vec<(usize, E)>,
}

impl Split {
    fn new(inner: SingleCheckpointBarrierHandler) -> Self {
        Split {
            inner,
            conversions: Vec::new(),
        }
    }

    fn handle(&mut self, now: u64, input: HandlerInput) -> Vec<E> {
        let mut rest = Vec::new();
        self.conversions.clear();
        for e in self.inner.handle(now, input) {
            match e {
                E::ConvertToPriorityEvent { .. } => self.conversions.push((rest.len(), e)),
                other => rest.push(other),
            }
        }
        rest
    }

    fn take_conversions(&mut self) -> Vec<(usize, E)> {
        std::mem::take(&mut self.conversions)
    }
}

impl std::ops::Deref for Split {
    type Target = SingleCheckpointBarrierHandler;
    fn deref(&self) -> &Self::Target {
        &self.inner
    }
}

#[test]
fn announcement_starts_the_checkpoint_and_its_timer_before_any_barrier() {
    let mut h = Split::new(SingleCheckpointBarrierHandler::alternating(2));
    let b = timeoutable(1, 0, TIMEOUT);
    assert_eq!(
        h.handle(100, ann(0, b, 2)),
        vec![E::RegisterAlignmentTimer {
            id: 1,
            fire_at: 1_000
        }]
    );
    assert!(h.take_conversions().is_empty());
    assert_eq!(h.state_name(), "AlternatingWaitingForFirstBarrier");
    assert_eq!(h.current_checkpoint_id(), Some(1));
    assert_eq!(h.pending_checkpoint_ids(), vec![1]);
    assert_eq!(h.announced_channels(), vec![(0, 2)]);
    // Nothing is aligned, blocked or measured until a barrier (or end of partition) comes.
    assert!(h.blocked_channels().is_empty() && h.aligned_channels().is_empty());
    assert!(!h.is_during_alignment());
    // The barrier itself only adds its channel: no second timer.
    assert_eq!(h.handle(200, bar(0, b)), vec![block(0)]);
    assert_eq!(h.announced_channels(), vec![]);
}

#[test]
fn timeout_before_any_barrier_prioritizes_every_announced_barrier() {
    let mut h = Split::new(SingleCheckpointBarrierHandler::alternating(3));
    let b = timeoutable(1, 0, TIMEOUT);
    h.handle(100, ann(1, b, 5));
    assert_eq!(h.handle(200, ann(0, b, 2)), vec![]);
    assert_eq!(
        h.handle(1_000, HandlerInput::AlignmentTimeout { id: 1 }),
        vec![E::SwitchedToUnaligned { id: 1 }]
    );
    // In channel order, after the switch.
    assert_eq!(h.take_conversions(), vec![(1, prio(0, 2)), (1, prio(1, 5))]);
    assert_eq!(h.state_name(), "AlternatingWaitingForFirstBarrierUnaligned");
    assert_eq!(h.announced_channels(), vec![]);
    // Already unaligned: a later announcement is converted at once.
    assert_eq!(h.handle(1_100, ann(2, b, 7)), vec![]);
    assert_eq!(h.take_conversions(), vec![(0, prio(2, 7))]);
    // The overtaking (aligned) barrier still blocks its channel and triggers unaligned.
    assert_eq!(
        h.handle(1_200, bar(0, b)),
        vec![
            block(0),
            start(1, 1),
            start(2, 1),
            trigger(b.as_unaligned(), 1_200, 0, 0)
        ]
    );
}

#[test]
fn timeout_while_collecting_prioritizes_only_the_barriers_still_missing() {
    let mut h = Split::new(SingleCheckpointBarrierHandler::alternating(3));
    let b = timeoutable(1, 0, TIMEOUT);
    h.handle(100, ann(0, b, 1));
    h.handle(100, ann(1, b, 3));
    // Channel 0's barrier arrived: its announcement is done with.
    assert_eq!(h.handle(200, bar(0, b)), vec![block(0)]);
    assert_eq!(h.state_name(), "AlternatingCollectingBarriers");
    assert_eq!(h.announced_channels(), vec![(1, 3)]);
    assert_eq!(
        h.handle(1_000, HandlerInput::AlignmentTimeout { id: 1 }),
        vec![
            E::SwitchedToUnaligned { id: 1 },
            start(1, 1),
            start(2, 1),
            trigger(b.as_unaligned(), 200, 800, 0)
        ]
    );
    // Before the inputs start recording, as in `AlternatingCollectingBarriers.alignmentTimeout`.
    assert_eq!(h.take_conversions(), vec![(1, prio(1, 3))]);
}

#[test]
fn announcement_past_its_timeout_switches_right_after() {
    let mut h = Split::new(SingleCheckpointBarrierHandler::alternating(2));
    let b = timeoutable(1, 0, TIMEOUT);
    // The timer is due already: no registration, it runs right after the announcement.
    assert_eq!(
        h.handle(1_500, ann(0, b, 2)),
        vec![E::SwitchedToUnaligned { id: 1 }]
    );
    assert_eq!(h.take_conversions(), vec![(1, prio(0, 2))]);
    assert_eq!(h.state_name(), "AlternatingWaitingForFirstBarrierUnaligned");
    assert_eq!(h.alignment_timer(), None);
}

#[test]
fn unaligned_barrier_after_an_announcement_switches_the_announced_checkpoint() {
    // testSwitchToUnalignedByUpstream: checkpoint 1 started aligned by the announcement on ch0;
    // ch1's upstream already timed out and sends the barrier unaligned.
    let mut h = Split::new(SingleCheckpointBarrierHandler::alternating(2));
    let b = timeoutable(1, 0, TIMEOUT);
    h.handle(100, ann(0, b, 0));
    let ub = b.as_unaligned();
    assert_eq!(
        h.handle(200, bar(1, ub)),
        vec![
            E::SwitchedToUnaligned { id: 1 },
            start(0, 1),
            trigger(ub, 200, 0, 0)
        ]
    );
    assert_eq!(h.take_conversions(), vec![(1, prio(0, 0))]);
    assert_eq!(h.state_name(), "AlternatingCollectingBarriersUnaligned");
}

#[test]
fn obsolete_announcements_change_nothing() {
    let mut h = Split::new(SingleCheckpointBarrierHandler::alternating(2));
    let b1 = timeoutable(1, 0, TIMEOUT);
    h.handle(100, bar(0, b1));
    h.handle(200, bar(1, b1));
    assert_eq!(h.pending_checkpoint_ids(), Vec::<u64>::new());
    // Completed, older: neither remembered nor converted, no timer.
    for (now, input) in [
        (300, ann(0, b1, 4)),
        (300, ann(1, timeoutable(0, 0, TIMEOUT), 4)),
    ] {
        assert_eq!(h.handle(now, input), vec![]);
        assert!(h.take_conversions().is_empty());
        assert_eq!(h.announced_channels(), vec![]);
        assert_eq!(h.alignment_timer(), None);
    }
    assert_eq!(h.current_checkpoint_id(), Some(1));
}

#[test]
fn newer_announcement_subsumes_and_the_aborted_checkpoint_forgets_its_announcements() {
    let mut h = Split::new(SingleCheckpointBarrierHandler::alternating(3));
    h.handle(100, ann(1, timeoutable(1, 0, TIMEOUT), 4));
    // A cancel marker does not abort a checkpoint no barrier has reached (Flink: aligned is empty).
    assert_eq!(h.handle(150, cancel(0, 1)), vec![]);
    let b2 = timeoutable(2, 300, TIMEOUT);
    assert_eq!(
        h.handle(300, ann(0, b2, 0)),
        vec![
            abort(1, AbortReason::CheckpointDeclinedSubsumed),
            E::RegisterAlignmentTimer {
                id: 2,
                fire_at: 1_300
            }
        ]
    );
    assert_eq!(h.announced_channels(), vec![(0, 0)]);
    h.handle(1_300, HandlerInput::AlignmentTimeout { id: 2 });
    assert_eq!(h.take_conversions(), vec![(1, prio(0, 0))]);
}

#[test]
fn completing_forgets_the_announcements() {
    let mut h = Split::new(SingleCheckpointBarrierHandler::alternating(2));
    let b = timeoutable(1, 0, TIMEOUT);
    h.handle(100, bar(0, b));
    h.handle(100, ann(0, b, 9)); // a stale announcement behind its own barrier (Flink keeps it)
    assert_eq!(h.announced_channels(), vec![(0, 9)]);
    h.handle(200, bar(1, b));
    assert_eq!(h.announced_channels(), vec![]);
}

#[test]
fn end_of_partition_after_an_announcement_starts_the_alignment() {
    // testStartNewCheckpointViaAnnouncement (FLINK-24068): the announcement started checkpoint 1,
    // so the end of partition is its first aligned channel and starts the alignment metrics.
    let mut h = Split::new(SingleCheckpointBarrierHandler::alternating(3));
    let b = timeoutable(1, 0, 10 * TIMEOUT);
    h.handle(100, ann(0, b, 0));
    assert_eq!(h.handle(150, eop(1)), vec![]);
    assert!(h.is_during_alignment());
    assert_eq!(h.aligned_channels(), vec![1]);
    // A finished channel's announcement goes with it (`ChannelState.channelFinished`).
    h.handle(160, ann(2, b, 3));
    assert_eq!(h.announced_channels(), vec![(0, 0), (2, 3)]);
    assert_eq!(h.handle(170, eop(2)), vec![]);
    assert_eq!(h.announced_channels(), vec![(0, 0)]);
    // Measured from the first end of partition: start delay 150, alignment 50.
    assert_eq!(
        h.handle(200, bar(0, b)),
        vec![block(0), trigger(b, 150, 50, 0), resume(0)]
    );
}

#[test]
fn unaligned_handler_converts_an_announcement_at_once() {
    let mut h = Split::new(SingleCheckpointBarrierHandler::unaligned(2));
    let b = timeoutable(1, 0, TIMEOUT);
    // Strictly unaligned: no timer to start.
    assert_eq!(h.handle(100, ann(1, b, 4)), vec![]);
    assert_eq!(h.take_conversions(), vec![(0, prio(1, 4))]);
    assert_eq!(h.pending_checkpoint_ids(), vec![1]);
    assert_eq!(h.announced_channels(), vec![]);
    // Requests not taken are gone with the next input: each input has its own.
    h.handle(200, ann(0, b, 1));
    h.handle(300, buf(1, 10));
    assert!(h.take_conversions().is_empty());
}

#[test]
fn aligned_handler_starts_the_checkpoint_but_its_state_ignores_the_announcement() {
    // `processBarrierAnnouncement` runs `checkNewCheckpoint` in every mode; only the
    // `AbstractAlignedBarrierHandlerState`s return themselves unchanged.
    let mut h = Split::new(SingleCheckpointBarrierHandler::aligned(2));
    assert_eq!(h.handle(100, ann(0, aligned(1, 0), 3)), vec![]);
    assert!(h.take_conversions().is_empty());
    assert_eq!(h.state_name(), "WaitingForFirstBarrier");
    assert_eq!(h.pending_checkpoint_ids(), vec![1]);
    assert_eq!(h.announced_channels(), vec![]);
    assert_eq!(
        h.handle(200, ann(1, aligned(2, 0), 0)),
        vec![abort(1, AbortReason::CheckpointDeclinedSubsumed)]
    );
    assert_eq!(h.pending_checkpoint_ids(), vec![2]);
}

#[test]
fn tracker_ignores_announcements() {
    let mut t = CheckpointBarrierTracker::new(2);
    assert_eq!(t.handle(100, ann(0, at_least_once(1, 0), 0)), vec![]);
    assert_eq!(t.pending_checkpoint_ids(), Vec::<u64>::new());
    assert!(is_error(&t.handle(100, ann(2, at_least_once(1, 0), 0))));
}

#[test]
fn announcements_on_impossible_channels_are_refused() {
    let mut h = Split::new(SingleCheckpointBarrierHandler::alternating(2));
    let b = timeoutable(1, 0, TIMEOUT);
    assert!(is_error(&h.handle(100, ann(2, b, 0))));
    h.handle(100, eop(1));
    assert!(is_error(&h.handle(100, ann(1, b, 0))));
    assert_eq!(h.current_checkpoint_id(), None);
}
