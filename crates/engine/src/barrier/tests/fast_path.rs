//! The buffer fast path (`handle_buffer_into`) and where alignment metrics end: a task that
//! takes the fast path must see what `handle_into` would have told it, minus `Process`.

use super::support::*;
use crate::barrier::{AbortReason, AnyBarrierHandler, BarrierHandler, HandlerEffect, HandlerInput};

/// Feeds `inputs` to two handlers of one mode: one through `handle_into` only, one with every
/// buffer through the fast path. Their other effects and their states must agree throughout.
fn same_as_slow_path(exactly_once: bool, unaligned_on: bool, inputs: &[(u64, HandlerInput)]) {
    let mut slow = AnyBarrierHandler::for_mode(exactly_once, unaligned_on, 3);
    let mut fast = slow.clone();
    for (i, (now, input)) in inputs.iter().enumerate() {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        slow.handle_into(*now, *input, &mut a);
        match *input {
            HandlerInput::Buffer { channel, bytes } => {
                fast.handle_buffer_into(*now, channel, bytes, &mut b)
            }
            other => fast.handle_into(*now, other, &mut b),
        }
        a.retain(|e| !matches!(e, HandlerEffect::Process { .. }));
        b.retain(|e| !matches!(e, HandlerEffect::Process { .. }));
        assert_eq!(a, b, "step {i}: {input:?}");
        assert_eq!(slow.state_name(), fast.state_name(), "step {i}");
        assert_eq!(slow.blocked_channels(), fast.blocked_channels(), "step {i}");
        assert_eq!(slow.persister(), fast.persister(), "step {i}");
        assert_eq!(
            slow.is_during_alignment(),
            fast.is_during_alignment(),
            "step {i}"
        );
    }
}

#[test]
fn fast_path_agrees_with_the_handler_in_every_mode() {
    let modes = [
        (false, false, at_least_once(1, 0), at_least_once(2, 0)),
        (true, false, aligned(1, 0), aligned(2, 0)),
        (true, true, unaligned(1, 0), timeoutable(2, 0, 5)),
    ];
    for (exactly_once, unaligned_on, b1, b2) in modes {
        let inputs = [
            (1, buf(0, 10)),
            (2, bar(1, b1)),
            // Blocked (aligned) or recorded (unaligned) channel 0, then an open one.
            (3, buf(0, 20)),
            (4, buf(1, 30)),
            (5, buf(2, 40)),
            (6, bar(0, b1)),
            (7, buf(2, 50)),
            (8, bar(2, b1)),
            (9, buf(2, 60)),
            (10, eop(2)),
            // A finished channel and the first one the gate does not have.
            (11, buf(2, 70)),
            (12, buf(3, 80)),
            (13, bar(0, b2)),
            (14, buf(1, 90)),
            (30, buf(1, 100)),
            (31, cancel(1, 2)),
            (32, buf(0, 110)),
        ];
        same_as_slow_path(exactly_once, unaligned_on, &inputs);
    }
}

#[test]
fn the_last_barrier_ends_the_alignment_metrics() {
    let mut h = AnyBarrierHandler::for_mode(true, false, 2);
    let b = aligned(1, 0);
    h.handle(10, bar(0, b));
    assert!(h.is_during_alignment());
    h.handle(30, bar(1, b));
    assert!(!h.is_during_alignment(), "aligned: the alignment is over");
}

#[test]
fn aborting_the_current_checkpoint_resets_its_alignment_metrics() {
    let mut h = AnyBarrierHandler::for_mode(true, false, 2);
    h.handle(10, bar(0, aligned(1, 0)));
    assert_eq!(
        h.handle(20, cancel(1, 1)),
        vec![
            resume(0),
            abort(1, AbortReason::CheckpointDeclinedOnCancellationBarrier)
        ]
    );
    assert!(!h.is_during_alignment());
}

#[test]
fn a_task_frees_the_channel_state_accounting_of_finished_checkpoints() {
    let mut h = AnyBarrierHandler::for_mode(true, true, 2);
    for id in [1, 2] {
        h.handle(10 * id, bar(0, unaligned(id, 0)));
        h.handle(10 * id + 1, buf(1, 5));
        h.handle(10 * id + 2, bar(1, unaligned(id, 0)));
    }
    assert_eq!(h.persister().checkpoint_ids(), vec![1, 2]);
    h.discard_persisted_up_to(1);
    assert_eq!(h.persister().checkpoint_ids(), vec![2]);
}
