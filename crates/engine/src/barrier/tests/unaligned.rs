//! Strictly unaligned handling (`AlternatingWaitingForFirstBarrierUnaligned` and
//! `AlternatingCollectingBarriersUnaligned`), after UnalignedCheckpointsTest.

use super::support::*;
use crate::barrier::{AbortReason, SingleCheckpointBarrierHandler};

#[test]
fn first_barrier_triggers_and_late_channels_persist_only_pre_barrier_data() {
    let mut h = SingleCheckpointBarrierHandler::unaligned(3);
    assert_eq!(h.state_name(), "AlternatingWaitingForFirstBarrierUnaligned");
    h.handle(1, buf(0, 10));
    let b = unaligned(7, 0);
    assert_eq!(
        h.handle(5, bar(1, b)),
        vec![start(0, 7), start(2, 7), trigger(b, 5, 0, 0)]
    );
    assert_eq!(h.state_name(), "AlternatingCollectingBarriersUnaligned");
    // The barrier's own channel does not record; the others do until their barrier.
    assert_eq!(h.handle(6, buf(1, 50)), vec![process(1, 50)]);
    assert_eq!(
        h.handle(7, buf(0, 30)),
        vec![persist(0, 7, 30), process(0, 30)]
    );
    assert_eq!(
        h.handle(8, buf(2, 40)),
        vec![persist(2, 7, 40), process(2, 40)]
    );
    assert_eq!(h.handle(9, bar(0, b)), vec![stop(0, 7)]);
    // After its barrier, channel 0 data is post-checkpoint data.
    assert_eq!(h.handle(10, buf(0, 99)), vec![process(0, 99)]);
    assert_eq!(
        h.handle(11, buf(2, 5)),
        vec![persist(2, 7, 5), process(2, 5)]
    );
    assert_eq!(
        h.handle(15, bar(2, b)),
        vec![stop(2, 7), complete(7, 10, 50 + 30 + 40 + 99 + 5, 75)]
    );
    assert_eq!(
        h.persister().persisted_by_channel(7),
        vec![(0, 30), (2, 45)]
    );
    assert_eq!(h.persister().persisted_bytes_total(7), 75);
    assert!(h.persister().persisting_channels().is_empty());
    assert_eq!(h.state_name(), "AlternatingWaitingForFirstBarrierUnaligned");
    assert!(h.blocked_channels().is_empty());
}

#[test]
fn single_channel_unaligned_completes_immediately() {
    let mut h = SingleCheckpointBarrierHandler::unaligned(1);
    let b = unaligned(1, 0);
    assert_eq!(
        h.handle(3, bar(0, b)),
        vec![trigger(b, 3, 0, 0), complete(1, 0, 0, 0)]
    );
    assert_eq!(h.state_name(), "AlternatingWaitingForFirstBarrierUnaligned");
}

#[test]
fn newer_unaligned_barrier_stops_persisting_and_subsumes() {
    let mut h = SingleCheckpointBarrierHandler::unaligned(2);
    let b1 = unaligned(1, 0);
    let b2 = unaligned(2, 10);
    h.handle(1, bar(0, b1));
    h.handle(2, buf(1, 8));
    assert_eq!(
        h.handle(12, bar(0, b2)),
        vec![
            stop(1, 1),
            abort(1, AbortReason::CheckpointDeclinedSubsumed),
            start(1, 2),
            trigger(b2, 2, 0, 0)
        ]
    );
    assert_eq!(h.persister().persisted_bytes(1, 1), 8);
    // The old barrier on channel 1 is obsolete; being unaligned nothing needs resuming.
    assert_eq!(h.handle(13, bar(1, b1)), vec![]);
    assert_eq!(
        h.handle(14, buf(1, 4)),
        vec![persist(1, 2, 4), process(1, 4)]
    );
}

#[test]
fn cancel_marker_stops_persisting() {
    let mut h = SingleCheckpointBarrierHandler::unaligned(2);
    h.handle(1, bar(1, unaligned(3, 0)));
    assert_eq!(
        h.handle(2, cancel(0, 3)),
        vec![
            stop(0, 3),
            abort(3, AbortReason::CheckpointDeclinedOnCancellationBarrier)
        ]
    );
    assert_eq!(h.handle(3, buf(0, 4)), vec![process(0, 4)]);
}

#[test]
fn end_of_partition_on_a_persisting_channel_finishes_the_input_side() {
    let mut h = SingleCheckpointBarrierHandler::unaligned(2);
    let b = unaligned(1, 0);
    h.handle(1, bar(0, b));
    h.handle(2, buf(1, 6));
    assert_eq!(h.handle(4, eop(1)), vec![stop(1, 1), complete(1, 3, 6, 6)]);
    assert_eq!(h.num_open_channels(), 1);
}
