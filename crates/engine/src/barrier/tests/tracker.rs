//! At-least-once `CheckpointBarrierTracker`, after CheckpointBarrierTrackerTest.

use super::support::*;
use crate::barrier::{AbortReason, BarrierHandler, CheckpointBarrierTracker, HandlerInput};

#[test]
fn single_channel_triggers_on_each_barrier() {
    let mut t = CheckpointBarrierTracker::new(1);
    let b = at_least_once(1, 0);
    assert_eq!(t.handle(5, bar(0, b)), vec![trigger(b, 5, 0, 0)]);
    assert_eq!(t.handle(6, buf(0, 3)), vec![process(0, 3)]);
    assert_eq!(t.state_name(), "CheckpointBarrierTracker");
}

#[test]
fn never_blocks_and_triggers_on_last_barrier() {
    let mut t = CheckpointBarrierTracker::new(3);
    let b = at_least_once(1, 0);
    assert_eq!(t.handle(10, bar(0, b)), vec![]);
    // Data after the barrier on a fast channel still flows (this is why it is at-least-once).
    assert_eq!(t.handle(11, buf(0, 100)), vec![process(0, 100)]);
    assert_eq!(t.handle(12, bar(2, b)), vec![]);
    assert_eq!(t.aligned_channels(), vec![0, 2]);
    assert!(t.blocked_channels().is_empty());
    assert_eq!(t.handle(30, bar(1, b)), vec![trigger(b, 10, 20, 100)]);
    assert!(t.pending_checkpoint_ids().is_empty());
}

#[test]
fn interleaved_ids_are_tracked_side_by_side() {
    let mut t = CheckpointBarrierTracker::new(2);
    let b1 = at_least_once(1, 0);
    let b2 = at_least_once(2, 5);
    assert_eq!(t.handle(10, bar(0, b1)), vec![]);
    assert_eq!(t.handle(11, bar(0, b2)), vec![]);
    assert_eq!(t.pending_checkpoint_ids(), vec![1, 2]);
    // The older one completes first; only the newest alignment is measured, so zeros.
    assert_eq!(t.handle(20, bar(1, b1)), vec![trigger(b1, 0, 0, 0)]);
    assert_eq!(t.handle(25, bar(1, b2)), vec![trigger(b2, 6, 14, 0)]);
    assert!(t.pending_checkpoint_ids().is_empty());
}

#[test]
fn newer_completing_first_drops_older_pending_silently() {
    // Flink polls the older counts off the queue: no abort, no cancel marker, no decline.
    let mut t = CheckpointBarrierTracker::new(2);
    let b1 = at_least_once(1, 0);
    let b2 = at_least_once(2, 0);
    t.handle(1, bar(0, b1));
    t.handle(2, bar(0, b2));
    assert_eq!(t.handle(3, bar(1, b2)), vec![trigger(b2, 2, 1, 0)]);
    // A straggler of the subsumed checkpoint starts nothing.
    assert_eq!(t.handle(4, bar(1, b1)), vec![]);
    assert!(t.pending_checkpoint_ids().is_empty());
}

#[test]
fn cancel_marker_aborts_once_and_swallows_the_rest() {
    let mut t = CheckpointBarrierTracker::new(3);
    let b = at_least_once(4, 0);
    t.handle(1, bar(0, b));
    assert_eq!(
        t.handle(2, cancel(1, 4)),
        vec![abort(
            4,
            AbortReason::CheckpointDeclinedOnCancellationBarrier
        )]
    );
    // As Flink's processCancellationBarrier: the aborted count stays until every channel has
    // reported, so its last barrier is swallowed rather than taken for a new checkpoint.
    assert_eq!(t.pending_checkpoint_ids(), vec![4]);
    assert_eq!(t.handle(3, bar(2, b)), vec![]);
    assert!(t.pending_checkpoint_ids().is_empty());
}

#[test]
fn cancel_marker_for_newer_id_aborts_older_ones_too() {
    let mut t = CheckpointBarrierTracker::new(2);
    t.handle(1, bar(0, at_least_once(1, 0)));
    assert_eq!(
        t.handle(2, cancel(1, 2)),
        vec![
            abort(1, AbortReason::CheckpointDeclinedOnCancellationBarrier),
            abort(2, AbortReason::CheckpointDeclinedOnCancellationBarrier)
        ]
    );
    assert_eq!(t.pending_checkpoint_ids(), vec![2]);
    assert_eq!(t.handle(3, cancel(0, 2)), vec![]);
    assert!(t.pending_checkpoint_ids().is_empty());
}

#[test]
fn end_of_partition_completes_a_checkpoint_waiting_only_for_that_channel() {
    let mut t = CheckpointBarrierTracker::new(3);
    let b = at_least_once(1, 0);
    t.handle(1, bar(0, b));
    t.handle(2, bar(1, b));
    assert_eq!(t.handle(5, eop(2)), vec![trigger(b, 1, 4, 0)]);
    assert_eq!(t.num_open_channels(), 2);
    assert!(is_error(&t.handle(6, buf(2, 1))));
}

#[test]
fn end_of_partition_aborts_all_when_checkpoints_after_finish_disabled() {
    let mut t = CheckpointBarrierTracker::new(3).with_checkpoints_after_tasks_finish(false);
    t.handle(1, bar(0, at_least_once(1, 0)));
    t.handle(2, bar(0, at_least_once(2, 0)));
    assert_eq!(
        t.handle(3, eop(2)),
        vec![
            abort(1, AbortReason::CheckpointDeclinedInputEndOfStream),
            abort(2, AbortReason::CheckpointDeclinedInputEndOfStream)
        ]
    );
}

#[test]
fn stray_timer_and_bad_channel() {
    let mut t = CheckpointBarrierTracker::new(2);
    assert_eq!(
        t.handle(1, HandlerInput::AlignmentTimeout { id: 1 }),
        vec![]
    );
    assert!(is_error(&t.handle(1, bar(5, at_least_once(1, 0)))));
}

#[test]
fn end_of_partition_completing_a_newer_checkpoint_drops_older_ones_silently() {
    let mut t = CheckpointBarrierTracker::new(3);
    let b1 = at_least_once(1, 0);
    let b2 = at_least_once(2, 0);
    t.handle(1, bar(0, b1));
    t.handle(2, bar(0, b2));
    t.handle(3, bar(1, b2));
    // Channel 2 ends: checkpoint 2 has everything it waits for; 1 leaves with it, unannounced.
    assert_eq!(
        t.handle(4, HandlerInput::EndOfPartition { channel: 2 }),
        vec![trigger(b2, 2, 2, 0)]
    );
    assert!(t.pending_checkpoint_ids().is_empty());
}

#[test]
fn the_newest_id_and_the_pending_counts_are_visible() {
    // What the inspector shows: the newest id seen and each partially-seen checkpoint's count.
    let mut t = CheckpointBarrierTracker::new(3);
    assert_eq!(t.current_checkpoint_id(), None);
    t.handle(1, bar(0, at_least_once(3, 0)));
    t.handle(2, bar(2, at_least_once(4, 0)));
    t.handle(3, bar(1, at_least_once(4, 0)));
    assert_eq!(t.current_checkpoint_id(), Some(4));
    let counts: Vec<(u64, usize, u32)> = t
        .pending_checkpoints()
        .iter()
        .map(|c| (c.id, c.aligned_channels.len(), c.target_channel_count))
        .collect();
    assert_eq!(counts, [(3, 1, 3), (4, 2, 3)]);
    assert!(
        t.persister().persisting_channels().is_empty() && t.persister().checkpoint_ids().is_empty()
    );
}

#[test]
fn a_repeated_barrier_of_a_completed_checkpoint_starts_nothing() {
    // `barrierId > latestPendingCheckpointID`, strictly: the completed id is not new again.
    let mut t = CheckpointBarrierTracker::new(2);
    let b = at_least_once(5, 0);
    t.handle(1, bar(0, b));
    assert_eq!(t.handle(2, bar(1, b)), vec![trigger(b, 1, 1, 0)]);
    assert_eq!(t.handle(3, bar(0, b)), vec![]);
    assert!(t.pending_checkpoint_ids().is_empty());
    assert_eq!(t.handle(4, bar(1, b)), vec![], "no second trigger");
}

#[test]
fn at_most_fifty_partially_seen_checkpoints_are_remembered() {
    // MAX_CHECKPOINTS_TO_TRACK: the 51st drops the oldest.
    let mut t = CheckpointBarrierTracker::new(2);
    for id in 1..=51 {
        t.handle(id, bar(0, at_least_once(id, 0)));
    }
    let ids = t.pending_checkpoint_ids();
    assert_eq!(ids.len(), 50);
    assert_eq!((ids[0], ids[49]), (2, 51));
}
