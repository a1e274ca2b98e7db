//! Aligned exactly-once (`WaitingForFirstBarrier`/`CollectingBarriers`), after AlignedCheckpointsTest.

use super::support::*;
use crate::barrier::{AbortReason, SingleCheckpointBarrierHandler};

#[test]
fn single_channel_triggers_at_once_without_blocking_for_long() {
    let mut h = SingleCheckpointBarrierHandler::aligned(1);
    assert_eq!(h.handle(10, buf(0, 100)), vec![process(0, 100)]);
    let b = aligned(1, 4);
    // One channel: block, trigger with duration 0, resume.
    assert_eq!(
        h.handle(12, bar(0, b)),
        vec![block(0), trigger(b, 8, 0, 0), resume(0)]
    );
    assert_eq!(h.state_name(), "WaitingForFirstBarrier");
    assert!(h.pending_checkpoint_ids().is_empty());
    assert_eq!(h.handle(13, buf(0, 7)), vec![process(0, 7)]);
}

#[test]
fn blocks_each_channel_and_resumes_all_when_aligned() {
    let mut h = SingleCheckpointBarrierHandler::aligned(3);
    let b = aligned(5, 100);
    assert_eq!(h.handle(150, bar(1, b)), vec![block(1)]);
    assert_eq!(h.state_name(), "CollectingBarriers");
    assert_eq!(h.blocked_channels(), vec![1]);
    assert_eq!(h.handle(160, buf(0, 10)), vec![process(0, 10)]);
    assert_eq!(h.handle(170, bar(0, b)), vec![block(0)]);
    assert_eq!(h.aligned_channels(), vec![0, 1]);
    assert_eq!(h.handle(175, buf(2, 20)), vec![process(2, 20)]);
    assert_eq!(
        h.handle(200, bar(2, b)),
        vec![
            block(2),
            trigger(b, 50, 50, 30),
            resume(0),
            resume(1),
            resume(2)
        ]
    );
    assert_eq!(h.state_name(), "WaitingForFirstBarrier");
    assert!(h.blocked_channels().is_empty());
    assert_eq!(h.current_checkpoint_id(), Some(5));
}

#[test]
fn processed_bytes_count_only_between_first_and_last_barrier() {
    let mut h = SingleCheckpointBarrierHandler::aligned(2);
    h.handle(0, buf(0, 1_000));
    h.handle(1, buf(1, 1_000));
    let b = aligned(1, 0);
    h.handle(10, bar(0, b));
    h.handle(11, buf(1, 300));
    h.handle(12, buf(1, 200));
    let fx = h.handle(40, bar(1, b));
    assert_eq!(fx[1], trigger(b, 10, 30, 500));
    // After the alignment, bytes no longer count toward the next checkpoint.
    h.handle(41, buf(0, 999));
    let b2 = aligned(2, 50);
    h.handle(60, bar(1, b2));
    let fx = h.handle(70, bar(0, b2));
    assert_eq!(fx[1], trigger(b2, 10, 10, 0));
}

#[test]
fn data_on_a_blocked_channel_is_an_error_not_a_panic() {
    let mut h = SingleCheckpointBarrierHandler::aligned(2);
    h.handle(0, bar(0, aligned(1, 0)));
    assert!(is_error(&h.handle(1, buf(0, 5))));
    assert!(is_error(&h.handle(1, buf(7, 5))));
    assert!(is_error(&h.handle(1, bar(0, aligned(1, 0)))));
    // Nothing changed.
    assert_eq!(h.blocked_channels(), vec![0]);
    assert_eq!(h.state_name(), "CollectingBarriers");
}

#[test]
fn newer_barrier_aborts_the_older_checkpoint_as_subsumed() {
    let mut h = SingleCheckpointBarrierHandler::aligned(3);
    let b1 = aligned(1, 0);
    let b2 = aligned(2, 20);
    h.handle(10, bar(0, b1));
    h.handle(11, bar(1, b1));
    assert_eq!(
        h.handle(30, bar(2, b2)),
        vec![
            resume(0),
            resume(1),
            abort(1, AbortReason::CheckpointDeclinedSubsumed),
            block(2)
        ]
    );
    assert_eq!(h.current_checkpoint_id(), Some(2));
    assert_eq!(h.pending_checkpoint_ids(), vec![2]);
    // A late barrier of the aborted checkpoint is ignored but its channel resumed.
    assert_eq!(h.handle(31, bar(0, b1)), vec![resume(0)]);
    h.handle(32, bar(0, b2));
    let fx = h.handle(40, bar(1, b2));
    assert_eq!(fx[1], trigger(b2, 10, 10, 0));
}

#[test]
fn cancel_marker_aborts_current_and_resumes() {
    let mut h = SingleCheckpointBarrierHandler::aligned(2);
    let b = aligned(3, 0);
    h.handle(5, bar(0, b));
    assert_eq!(
        h.handle(6, cancel(1, 3)),
        vec![
            resume(0),
            abort(3, AbortReason::CheckpointDeclinedOnCancellationBarrier)
        ]
    );
    assert_eq!(h.state_name(), "WaitingForFirstBarrier");
    // The cancelled id's remaining barrier is obsolete; a repeated marker does nothing.
    assert_eq!(h.handle(7, bar(1, b)), vec![resume(1)]);
    assert_eq!(h.handle(8, cancel(0, 3)), vec![]);
}

#[test]
fn cancel_marker_for_an_unseen_newer_checkpoint_aborts_it_upfront() {
    let mut h = SingleCheckpointBarrierHandler::aligned(2);
    assert_eq!(
        h.handle(1, cancel(0, 4)),
        vec![abort(
            4,
            AbortReason::CheckpointDeclinedOnCancellationBarrier
        )]
    );
    assert_eq!(h.handle(2, bar(1, aligned(4, 0))), vec![resume(1)]);
    // Older ids are ignored too.
    assert_eq!(h.handle(3, cancel(1, 2)), vec![]);
}

#[test]
fn end_of_partition_during_alignment_counts_as_aligned() {
    let mut h = SingleCheckpointBarrierHandler::aligned(3);
    let b = aligned(1, 0);
    h.handle(10, bar(0, b));
    h.handle(12, bar(1, b));
    assert_eq!(
        h.handle(20, eop(2)),
        vec![trigger(b, 10, 10, 0), resume(0), resume(1)]
    );
    assert_eq!(h.num_open_channels(), 2);
    // The next checkpoint only waits for the two open channels.
    let b2 = aligned(2, 30);
    h.handle(30, bar(0, b2));
    let fx = h.handle(31, bar(1, b2));
    assert_eq!(fx[1], trigger(b2, 0, 1, 0));
}

#[test]
fn end_of_partition_before_checkpoint_lowers_target() {
    let mut h = SingleCheckpointBarrierHandler::aligned(2);
    assert_eq!(h.handle(1, eop(0)), vec![]);
    let b = aligned(1, 0);
    assert_eq!(
        h.handle(5, bar(1, b)),
        vec![block(1), trigger(b, 5, 0, 0), resume(1)]
    );
    assert!(is_error(&h.handle(6, buf(0, 1))));
    assert!(is_error(&h.handle(6, eop(0))));
}

#[test]
fn end_of_partition_on_all_remaining_channels_completes_the_checkpoint() {
    // Flink 2.x default (checkpoints after tasks finish): finished channels count as aligned.
    let mut h = SingleCheckpointBarrierHandler::aligned(3);
    let b = aligned(1, 0);
    h.handle(10, bar(0, b));
    assert_eq!(h.handle(11, eop(1)), vec![]);
    assert_eq!(h.handle(12, eop(2)), vec![trigger(b, 10, 2, 0), resume(0)]);
    assert_eq!(h.num_open_channels(), 1);
}

#[test]
fn end_of_partition_aborts_when_checkpoints_after_finish_disabled() {
    let mut h =
        SingleCheckpointBarrierHandler::aligned(2).with_checkpoints_after_tasks_finish(false);
    h.handle(10, bar(0, aligned(1, 0)));
    assert_eq!(
        h.handle(11, eop(1)),
        vec![
            resume(0),
            abort(1, AbortReason::CheckpointDeclinedInputEndOfStream)
        ]
    );
    assert!(h.pending_checkpoint_ids().is_empty());
}

#[test]
fn unaligned_barrier_at_aligned_handler_is_rejected() {
    let mut h = SingleCheckpointBarrierHandler::aligned(2);
    assert!(is_error(&h.handle(0, bar(0, unaligned(1, 0)))));
    assert_eq!(h.current_checkpoint_id(), None);
}

#[test]
fn start_delay_is_never_negative() {
    let mut h = SingleCheckpointBarrierHandler::aligned(1);
    // Clock skew: the barrier claims to be from the future.
    let b = aligned(1, 500);
    assert_eq!(h.handle(100, bar(0, b))[1], trigger(b, 0, 0, 0));
}

/// A buffer on a blocked channel is an `Error` (the upstream stops after an aligned barrier),
/// unless the handler is told its upstream goes on, as Flink's `TestInputChannel` does: then it
/// is processed and counted during the alignment.
#[test]
fn data_on_a_blocked_channel_is_refused_unless_the_upstream_goes_on() {
    let b = aligned(1, 0);
    let mut h = SingleCheckpointBarrierHandler::aligned(2);
    h.handle(10, bar(0, b));
    let fx = h.handle(11, buf(0, 300));
    assert!(matches!(fx[..], [E::Error { .. }]), "{fx:?}");

    let mut h = SingleCheckpointBarrierHandler::aligned(2).with_data_on_blocked_channels(true);
    h.handle(10, bar(0, b));
    assert_eq!(h.handle(11, buf(0, 300)), vec![process(0, 300)]);
    assert_eq!(h.blocked_channels(), vec![0], "still blocked");
    let fx = h.handle(40, bar(1, b));
    assert_eq!(fx[1], trigger(b, 10, 30, 300));
}
