//! `CheckpointOptions.forConfig` and the persister's replay accounting.

use super::support::*;
use crate::barrier::metrics::{AlignmentMetrics, CheckpointMetricsSnapshot};
use crate::barrier::{
    AbortReason, AlignmentType, AnyBarrierHandler, BarrierHandler, ChannelStatePersister,
    CheckpointOptions, CheckpointType, SingleCheckpointBarrierHandler,
};

#[test]
fn for_config_mirrors_flink() {
    let cp = CheckpointType::Checkpoint;
    let o = CheckpointOptions::for_config(cp, false, true, 0);
    assert_eq!(o.alignment, AlignmentType::AtLeastOnce);
    assert!(!o.is_exactly_once());
    let o = CheckpointOptions::for_config(cp, true, false, 5);
    assert_eq!(o.alignment, AlignmentType::Aligned);
    assert!(o.is_exactly_once());
    assert!(!o.is_timeoutable());
    let o = CheckpointOptions::for_config(cp, true, true, 0);
    assert!(o.is_unaligned());
    let o = CheckpointOptions::for_config(cp, true, true, u64::MAX);
    assert!(o.is_unaligned());
    let o = CheckpointOptions::for_config(cp, true, true, 30);
    assert!(o.is_timeoutable() && !o.is_unaligned());
    assert_eq!(o.aligned_checkpoint_timeout, Some(30));
    let u = o.as_unaligned();
    assert!(u.is_unaligned() && !u.is_timeoutable());
    assert_eq!(u.aligned_checkpoint_timeout, None);
    let sp = CheckpointOptions::for_config(CheckpointType::Savepoint, true, true, 0);
    assert_eq!(sp.alignment, AlignmentType::Aligned);
    let forced = CheckpointOptions {
        alignment: AlignmentType::ForcedAligned,
        ..o
    };
    assert!(!forced.is_timeoutable() && forced.as_unaligned() == forced);
}

#[test]
fn for_mode_picks_flinks_handler() {
    assert_eq!(
        AnyBarrierHandler::for_mode(false, false, 2).state_name(),
        "CheckpointBarrierTracker"
    );
    assert_eq!(
        AnyBarrierHandler::for_mode(true, false, 2).state_name(),
        "WaitingForFirstBarrier"
    );
    assert_eq!(
        AnyBarrierHandler::for_mode(true, true, 2).state_name(),
        "AlternatingWaitingForFirstBarrier"
    );
}

#[test]
fn persister_replays_an_effect_log_to_the_same_numbers() {
    let mut h = SingleCheckpointBarrierHandler::unaligned(3);
    let b = unaligned(1, 0);
    let mut log = Vec::new();
    for (now, input) in [
        (1, bar(0, b)),
        (2, buf(1, 11)),
        (3, buf(2, 22)),
        (4, bar(1, b)),
        (5, buf(2, 33)),
        (6, bar(2, b)),
    ] {
        log.extend(h.handle(now, input));
    }
    let mut replay = ChannelStatePersister::new();
    log.iter().for_each(|e| replay.observe(e));
    assert_eq!(&replay, h.persister());
    assert_eq!(replay.persisted_by_channel(1), vec![(1, 11), (2, 55)]);
    assert_eq!(replay.checkpoint_ids(), vec![1]);
    replay.discard_up_to(1);
    assert_eq!(replay.persisted_bytes_total(1), 0);
}

#[test]
fn handlers_round_trip_through_serde() {
    let b = timeoutable(3, 7, 1_000);
    let effects = vec![
        trigger(b, 1, 2, 3),
        abort(3, crate::barrier::AbortReason::CheckpointDeclinedSubsumed),
    ];
    let json = serde_json::to_string(&effects).unwrap_or_default();
    assert!(json.contains("CHECKPOINT_DECLINED_SUBSUMED"));
    let back: Vec<crate::barrier::HandlerEffect> = serde_json::from_str(&json).unwrap_or_default();
    assert_eq!(back, effects);
}

#[test]
fn a_handler_mid_alignment_survives_serde_and_clone() {
    let mut h = AnyBarrierHandler::for_mode(true, true, 2);
    h.handle(10, bar(0, timeoutable(1, 0, 1_000)));
    let json = serde_json::to_string(&h).unwrap_or_default();
    let back: Option<AnyBarrierHandler> = serde_json::from_str(&json).ok();
    let Some(mut back) = back else {
        panic!("handler did not deserialize: {json}");
    };
    let mut copy = h.clone();
    let b = timeoutable(1, 0, 1_000);
    let expected = h.handle(20, bar(1, b));
    assert_eq!(back.handle(20, bar(1, b)), expected);
    assert_eq!(copy.handle(20, bar(1, b)), expected);
}

/// The UI reads every handler through `dyn BarrierHandler`: each kind must report its own
/// state there, mid-alignment, not a default.
#[test]
fn any_handler_reads_through_to_its_handler() {
    let cases = [
        (
            false,
            false,
            at_least_once(1, 0),
            "CheckpointBarrierTracker",
            vec![],
        ),
        (true, false, aligned(1, 0), "CollectingBarriers", vec![1]),
        (
            true,
            true,
            unaligned(1, 0),
            "AlternatingCollectingBarriersUnaligned",
            vec![],
        ),
    ];
    for (exactly_once, unaligned_on, barrier, state, blocked) in cases {
        let mut h = AnyBarrierHandler::for_mode(exactly_once, unaligned_on, 3);
        assert!(!h.is_during_alignment(), "{state}");
        // Channel 1, not 0: a default channel index must not pass for the real one.
        h.handle(5, bar(1, barrier));
        let view: &dyn BarrierHandler = &h;
        assert_eq!(view.state_name(), state);
        assert_eq!(view.current_checkpoint_id(), Some(1), "{state}");
        assert_eq!(view.pending_checkpoint_ids(), vec![1], "{state}");
        assert_eq!(view.aligned_channels(), vec![1], "{state}");
        assert_eq!(view.blocked_channels(), blocked, "{state}");
        assert_eq!(view.num_open_channels(), 3, "{state}");
        assert!(view.is_during_alignment(), "{state}");
        let persisting = view.persister().persisting_channels();
        assert_eq!(
            persisting,
            if unaligned_on { vec![0, 2] } else { vec![] },
            "{state}"
        );
    }
}

/// Traces and the UI name an abort as Flink's `CheckpointFailureReason` does, which is also its
/// serialized form.
#[test]
fn abort_reasons_carry_flinks_names() {
    for r in [
        AbortReason::CheckpointDeclinedSubsumed,
        AbortReason::CheckpointDeclinedOnCancellationBarrier,
        AbortReason::CheckpointDeclinedInputEndOfStream,
    ] {
        assert!(r.flink_name().starts_with("CHECKPOINT_DECLINED_"));
        assert_eq!(serde_json::to_value(r).unwrap(), r.flink_name());
    }
}

/// `markAlignmentEnd` freezes the figures; `resetAlignment` forgets the checkpoint.
#[test]
fn alignment_metrics_freeze_at_the_end_and_reset_on_abort() {
    let mut m = AlignmentMetrics::default();
    m.mark_start(3, 4, 10);
    m.add_processed_bytes(100);
    assert!(m.is_during_alignment());
    assert_eq!(m.snapshot(3, 25).alignment_duration, 15);
    m.mark_end(30);
    m.add_processed_bytes(7);
    assert!(!m.is_during_alignment());
    let done = m.snapshot(3, 50);
    assert_eq!((done.start_delay, done.alignment_duration), (6, 20));
    assert_eq!(done.bytes_processed_during_alignment, 100);
    assert_eq!(m.snapshot(2, 50), CheckpointMetricsSnapshot::default());
    m.mark_start(4, 40, 41);
    m.reset();
    assert!(!m.is_during_alignment());
    assert_eq!(m.snapshot(4, 60), CheckpointMetricsSnapshot::default());
}

/// A channel stops recording only for the checkpoint it records for; discarding keeps newer
/// checkpoints' bytes.
#[test]
fn persister_stops_only_for_its_checkpoint_and_discards_only_older_ones() {
    use crate::barrier::HandlerEffect::{PersistInFlight, StartPersisting, StopPersisting};
    let mut p = ChannelStatePersister::new();
    p.observe(&StartPersisting { channel: 0, id: 2 });
    p.observe(&StopPersisting { channel: 0, id: 1 });
    assert_eq!(p.persisting_for(0), Some(2));
    p.observe(&StopPersisting { channel: 0, id: 2 });
    assert_eq!(p.persisting_for(0), None);
    for id in [1, 2, 3] {
        p.observe(&PersistInFlight {
            channel: 1,
            id,
            bytes: 10 * id,
        });
    }
    p.discard_up_to(1);
    assert_eq!(p.checkpoint_ids(), vec![2, 3]);
    assert_eq!(p.persisted_bytes(3, 1), 30);
    p.discard_up_to(crate::types::CheckpointId::MAX);
    assert!(p.checkpoint_ids().is_empty());
}

/// Only a timeoutable (aligned) barrier times out: a forced-aligned one keeps its timeout
/// field but never switches to unaligned.
#[test]
fn only_timeoutable_barriers_time_out() {
    let t = timeoutable(1, 0, 30);
    assert!(!t.is_timed_out(30) && t.is_timed_out(31));
    let forced = crate::barrier::CheckpointBarrier {
        options: CheckpointOptions {
            alignment: AlignmentType::ForcedAligned,
            ..t.options
        },
        ..t
    };
    assert_eq!(forced.options.aligned_checkpoint_timeout, Some(30));
    assert!(!forced.is_timed_out(1_000));
}
