//! Aligned with timeout (`AlternatingWaitingForFirstBarrier` → `AlternatingCollectingBarriers`
//! → `AlternatingCollectingBarriersUnaligned`), after AlternatingCheckpointsTest.

use super::support::*;
use crate::barrier::{
    AnyBarrierHandler, BarrierHandler, CheckpointBarrier, CheckpointOptions, CheckpointType,
    HandlerInput, SingleCheckpointBarrierHandler,
};

const TIMEOUT: u64 = 1_000;

#[test]
fn registers_timer_and_completes_aligned_when_in_time() {
    let mut h = SingleCheckpointBarrierHandler::alternating(2);
    assert_eq!(h.state_name(), "AlternatingWaitingForFirstBarrier");
    let b = timeoutable(1, 0, TIMEOUT);
    assert_eq!(
        h.handle(100, bar(0, b)),
        vec![
            E::RegisterAlignmentTimer {
                id: 1,
                fire_at: 1_000
            },
            block(0)
        ]
    );
    assert_eq!(h.state_name(), "AlternatingCollectingBarriers");
    assert_eq!(
        h.handle(400, bar(1, b)),
        vec![block(1), trigger(b, 100, 300, 0), resume(0), resume(1)]
    );
    // The stale timer fires later and changes nothing.
    assert_eq!(
        h.handle(1_000, HandlerInput::AlignmentTimeout { id: 1 }),
        vec![]
    );
    assert_eq!(h.state_name(), "AlternatingWaitingForFirstBarrier");
}

#[test]
fn timer_switches_to_unaligned_and_then_persists() {
    let mut h = SingleCheckpointBarrierHandler::alternating(3);
    let b = timeoutable(1, 0, TIMEOUT);
    h.handle(100, bar(0, b));
    h.handle(200, buf(1, 10));
    // Fired early (a simulator bug): refused.
    assert!(is_error(
        &h.handle(999, HandlerInput::AlignmentTimeout { id: 1 })
    ));
    let ub = b.as_unaligned();
    assert_eq!(
        h.handle(1_000, HandlerInput::AlignmentTimeout { id: 1 }),
        vec![
            E::SwitchedToUnaligned { id: 1 },
            start(1, 1),
            start(2, 1),
            trigger(ub, 100, 900, 10)
        ]
    );
    assert_eq!(h.state_name(), "AlternatingCollectingBarriersUnaligned");
    // Channel 0 stays blocked: its upstream sent the aligned barrier and waits for resumption.
    assert_eq!(h.blocked_channels(), vec![0]);
    assert_eq!(
        h.handle(1_100, buf(2, 40)),
        vec![persist(2, 1, 40), process(2, 40)]
    );
    // A late aligned barrier blocks its channel; a promoted (unaligned) one does not.
    assert_eq!(h.handle(1_200, bar(1, b)), vec![stop(1, 1), block(1)]);
    assert_eq!(
        h.handle(1_300, bar(2, ub)),
        vec![stop(2, 1), resume(0), resume(1), complete(1, 1_200, 50, 40)]
    );
    assert_eq!(h.state_name(), "AlternatingWaitingForFirstBarrier");
}

#[test]
fn barrier_switches_exactly_when_the_timeout_has_passed_not_before() {
    let mut h = SingleCheckpointBarrierHandler::alternating(3);
    let b = timeoutable(1, 0, TIMEOUT);
    h.handle(10, bar(0, b));
    // now - timestamp == timeout: not yet timed out (Flink compares strictly).
    assert_eq!(h.handle(1_000, bar(1, b)), vec![block(1)]);
    assert_eq!(h.state_name(), "AlternatingCollectingBarriers");

    let mut h = SingleCheckpointBarrierHandler::alternating(3);
    h.handle(10, bar(0, b));
    let ub = b.as_unaligned();
    assert_eq!(
        h.handle(1_001, bar(1, b)),
        vec![
            block(1),
            E::SwitchedToUnaligned { id: 1 },
            start(2, 1),
            trigger(ub, 10, 991, 0)
        ]
    );
    assert_eq!(h.state_name(), "AlternatingCollectingBarriersUnaligned");
}

#[test]
fn first_barrier_already_past_the_timeout_switches_at_once() {
    let mut h = SingleCheckpointBarrierHandler::alternating(2);
    let b = timeoutable(4, 0, TIMEOUT);
    let ub = b.as_unaligned();
    assert_eq!(
        h.handle(1_500, bar(0, b)),
        vec![
            block(0),
            E::SwitchedToUnaligned { id: 4 },
            start(1, 4),
            trigger(ub, 1_500, 0, 0)
        ]
    );
    assert_eq!(h.alignment_timer(), None);
    assert_eq!(
        h.handle(1_600, buf(1, 9)),
        vec![persist(1, 4, 9), process(1, 9)]
    );
}

#[test]
fn first_barrier_exactly_at_the_timeout_switches_like_a_zero_delay_timer() {
    let mut h = SingleCheckpointBarrierHandler::alternating(2);
    let b = timeoutable(1, 0, TIMEOUT);
    let ub = b.as_unaligned();
    assert_eq!(
        h.handle(1_000, bar(0, b)),
        vec![
            block(0),
            E::SwitchedToUnaligned { id: 1 },
            start(1, 1),
            trigger(ub, 1_000, 0, 0)
        ]
    );
}

#[test]
fn unaligned_barrier_from_upstream_switches_an_aligning_checkpoint() {
    let mut h = SingleCheckpointBarrierHandler::alternating(3);
    let b = timeoutable(2, 0, TIMEOUT);
    h.handle(10, bar(0, b));
    let ub = b.as_unaligned();
    // Upstream of channel 2 timed out and promoted its barrier.
    assert_eq!(
        h.handle(20, bar(2, ub)),
        vec![
            E::SwitchedToUnaligned { id: 2 },
            start(1, 2),
            trigger(ub, 10, 10, 0)
        ]
    );
    assert_eq!(h.state_name(), "AlternatingCollectingBarriersUnaligned");
}

#[test]
fn unaligned_from_the_start_under_alternating_handler() {
    let mut h = SingleCheckpointBarrierHandler::alternating(2);
    let b = unaligned(1, 0);
    assert_eq!(
        h.handle(5, bar(0, b)),
        vec![start(1, 1), trigger(b, 5, 0, 0)]
    );
    assert_eq!(
        h.handle(6, bar(1, b)),
        vec![stop(1, 1), complete(1, 1, 0, 0)]
    );
    // It returns to the aligned-first state: the next checkpoint may be a savepoint.
    assert_eq!(h.state_name(), "AlternatingWaitingForFirstBarrier");
}

#[test]
fn savepoint_under_unaligned_config_stays_aligned() {
    let mut h = AnyBarrierHandler::for_mode(true, true, 2);
    let sp = CheckpointBarrier {
        id: 1,
        timestamp: 0,
        options: CheckpointOptions::for_config(CheckpointType::Savepoint, true, true, 0),
    };
    assert!(!sp.options.is_unaligned() && !sp.options.is_timeoutable());
    // No timer, even long after any timeout would have passed.
    assert_eq!(h.handle(50_000, bar(0, sp)), vec![block(0)]);
    assert_eq!(h.state_name(), "AlternatingCollectingBarriers");
    assert_eq!(h.handle(60_000, buf(1, 3)), vec![process(1, 3)]);
    assert_eq!(
        h.handle(90_000, bar(1, sp)),
        vec![
            block(1),
            trigger(sp, 50_000, 40_000, 3),
            resume(0),
            resume(1)
        ]
    );
    assert_eq!(h.persister().persisted_bytes_total(1), 0);
}

#[test]
fn end_of_partition_after_timeout_passed_switches_then_completes() {
    let mut h = SingleCheckpointBarrierHandler::alternating(3);
    let b = timeoutable(1, 0, TIMEOUT);
    h.handle(10, bar(0, b));
    let ub = b.as_unaligned();
    assert_eq!(
        h.handle(2_000, eop(1)),
        vec![
            E::SwitchedToUnaligned { id: 1 },
            start(2, 1),
            trigger(ub, 10, 1_990, 0)
        ]
    );
    assert_eq!(
        h.handle(2_100, bar(2, b)),
        vec![
            stop(2, 1),
            block(2),
            resume(0),
            resume(2),
            complete(1, 2_090, 0, 0)
        ]
    );
}

#[test]
fn timer_of_a_subsumed_checkpoint_is_ignored() {
    let mut h = SingleCheckpointBarrierHandler::alternating(2);
    h.handle(10, bar(0, timeoutable(1, 0, TIMEOUT)));
    let b2 = timeoutable(2, 500, TIMEOUT);
    let fx = h.handle(600, bar(1, b2));
    assert_eq!(
        fx,
        vec![
            resume(0),
            abort(1, crate::barrier::AbortReason::CheckpointDeclinedSubsumed),
            E::RegisterAlignmentTimer {
                id: 2,
                fire_at: 1_500
            },
            block(1)
        ]
    );
    assert_eq!(
        h.handle(1_000, HandlerInput::AlignmentTimeout { id: 1 }),
        vec![]
    );
    assert_eq!(h.state_name(), "AlternatingCollectingBarriers");
}
