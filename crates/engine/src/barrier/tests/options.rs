//! `CheckpointOptions.forConfig` and the persister's replay accounting.

use super::support::*;
use crate::barrier::{
    AlignmentType, AnyBarrierHandler, BarrierHandler, ChannelStatePersister, CheckpointOptions,
    CheckpointType, SingleCheckpointBarrierHandler,
};

#[test]
fn for_config_mirrors_flink() {
    let cp = CheckpointType::Checkpoint;
    let o = CheckpointOptions::for_config(cp, false, true, 0);
    assert_eq!(o.alignment, AlignmentType::AtLeastOnce);
    assert!(!o.is_exactly_once());
    let o = CheckpointOptions::for_config(cp, true, false, 5);
    assert_eq!(o.alignment, AlignmentType::Aligned);
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
