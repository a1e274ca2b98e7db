//! Each shipped fixture runs, and the effects it exists to show appear where expected.

use super::support::*;
use crate::barrier::{AbortReason, AlignmentType, HandlerEffect as H, HandlerInput};
use crate::coordinator::{CheckpointFailureReason, CheckpointKind, CoordinatorEffect as C};
use crate::replay::{DriverNote, Machine, MachineState, Via};

#[test]
fn aligned_blocks_holds_and_releases_in_order() {
    let r = run(fixture!("aligned.json"));
    assert_eq!(r.machine, Machine::Aligned);
    assert_eq!(r.steps.len(), 18);
    assert_eq!(
        handler_fx(&r.steps[2]),
        vec![H::BlockChannel { channel: 0 }]
    );
    // Buffers on the blocked channel wait upstream, in order.
    let held = &handler_state(&r.steps[5]).held;
    assert_eq!(held.len(), 1);
    assert_eq!(
        held[0].inputs,
        vec![
            HandlerInput::Buffer {
                channel: 0,
                bytes: 4096
            },
            HandlerInput::Buffer {
                channel: 0,
                bytes: 1024
            }
        ]
    );
    assert!(handler_fx(&r.steps[3]).is_empty());
    // The last barrier triggers, resumes, and the held buffers follow in arrival order.
    let last = &r.steps[9];
    assert_eq!(
        names(last),
        [
            "handler:BlockChannel",
            "handler:TriggerCheckpoint",
            "handler:ResumeConsumption",
            "handler:ResumeConsumption",
            "handler:ResumeConsumption",
            "driver:released",
            "handler:Process",
            "driver:released",
            "handler:Process",
        ]
    );
    match &handler_fx(last)[1] {
        H::TriggerCheckpoint {
            barrier,
            start_delay,
            alignment_duration,
            bytes_processed_during_alignment,
        } => {
            assert_eq!(barrier.id, 1);
            assert_eq!((*start_delay, *alignment_duration), (5_000, 5_000));
            assert_eq!(*bytes_processed_during_alignment, 8192);
        }
        other => panic!("expected a trigger, got {other:?}"),
    }
    let processed: Vec<u64> = handler_fx(last)
        .iter()
        .filter_map(|e| match e {
            H::Process { channel: 0, bytes } => Some(*bytes),
            _ => None,
        })
        .collect();
    assert_eq!(processed, vec![4096, 1024]);
    let after = handler_state(last);
    assert!(after.held.is_empty() && after.blocked_channels.is_empty());
    assert_eq!(after.state, "WaitingForFirstBarrier");
    // A cancel marker aborts #2 and frees the held buffer of channel 2.
    let cancel = handler_fx(&r.steps[13]);
    assert!(cancel.contains(&H::AbortCheckpoint {
        id: 2,
        reason: AbortReason::CheckpointDeclinedOnCancellationBarrier
    }));
    assert!(cancel.contains(&H::Process {
        channel: 2,
        bytes: 512
    }));
    assert_eq!(handler_state(&r.steps[14]).open_channels, 2);
}

#[test]
fn unaligned_persists_in_flight_data() {
    let r = run(fixture!("unaligned.json"));
    assert!(handler_fx(&r.steps[2]).contains(&H::StartPersisting { channel: 1, id: 1 }));
    assert_eq!(
        handler_fx(&r.steps[3]),
        vec![
            H::PersistInFlight {
                channel: 1,
                id: 1,
                bytes: 32768
            },
            H::Process {
                channel: 1,
                bytes: 32768
            }
        ]
    );
    // Channel 0 already delivered its barrier: nothing of it is persisted.
    assert_eq!(
        handler_fx(&r.steps[4]),
        vec![H::Process {
            channel: 0,
            bytes: 4096
        }]
    );
    let done = handler_fx(&r.steps[7]);
    assert!(done.contains(&H::StopPersisting { channel: 1, id: 1 }));
    assert!(done.iter().any(|e| matches!(
        e,
        H::InputChannelStateComplete {
            id: 1,
            persisted_bytes: 49152,
            ..
        }
    )));
    let state = handler_state(&r.steps[7]);
    assert_eq!(state.persisted.len(), 1);
    assert_eq!(
        (
            state.persisted[0].checkpoint,
            state.persisted[0].channel,
            state.persisted[0].bytes
        ),
        (1, 1, 49152)
    );
    assert!(handler_fx(&r.steps[12]).contains(&H::StopPersisting { channel: 0, id: 2 }));
}

#[test]
fn aligned_with_timeout_switches_when_the_timer_falls_due() {
    let r = run(fixture!("aligned-with-timeout.json"));
    assert!(
        handler_fx(&r.steps[1]).contains(&H::RegisterAlignmentTimer {
            id: 1,
            fire_at: 110_000
        })
    );
    let advance = &r.steps[4];
    assert_eq!(advance.time, 170_000);
    assert_eq!(
        notes(advance),
        vec![(
            Via::Timer,
            DriverNote::AlignmentTimerFired {
                id: 1,
                fire_at: 110_000
            }
        )]
    );
    // Everything the timer caused happened at its due time, not at the end of the advance.
    assert!(advance
        .effects
        .iter()
        .all(|e| e.at == 110_000 && e.via == Via::Timer));
    let fx = handler_fx(advance);
    assert!(fx.contains(&H::SwitchedToUnaligned { id: 1 }));
    assert!(fx.iter().any(|e| matches!(
        e,
        H::TriggerCheckpoint { barrier, .. } if barrier.options.alignment == AlignmentType::Unaligned
    )));
    assert!(handler_state(advance).alignment_timer.is_none());
    // The buffer held on channel 0 stays held until the checkpoint completes.
    assert_eq!(handler_state(advance).held.len(), 1);
    assert!(handler_fx(&r.steps[5]).contains(&H::PersistInFlight {
        channel: 1,
        id: 1,
        bytes: 65536
    }));
    let done = &r.steps[7];
    assert!(handler_fx(done).contains(&H::Process {
        channel: 0,
        bytes: 4096
    }));
    assert!(handler_state(done).held.is_empty());
    // #2 aligns in time: no switch.
    assert!(!handler_fx(&r.steps[11]).contains(&H::SwitchedToUnaligned { id: 2 }));
}

#[test]
fn at_least_once_never_blocks() {
    let r = run(fixture!("at-least-once.json"));
    for step in &r.steps {
        assert!(handler_fx(step)
            .iter()
            .all(|e| !matches!(e, H::BlockChannel { .. })));
        assert!(notes(step).is_empty(), "nothing is ever held");
    }
    assert_eq!(handler_state(&r.steps[3]).pending_checkpoints, vec![1, 2]);
    let triggered: Vec<u64> = r
        .steps
        .iter()
        .flat_map(handler_fx)
        .filter_map(|e| match e {
            H::TriggerCheckpoint { barrier, .. } => Some(barrier.id),
            _ => None,
        })
        .collect();
    assert_eq!(triggered, vec![1, 2, 4]);
    assert!(handler_fx(&r.steps[8]).contains(&H::AbortCheckpoint {
        id: 3,
        reason: AbortReason::CheckpointDeclinedOnCancellationBarrier
    }));
}

#[test]
fn coordinator_queues_forces_savepoints_and_expires() {
    let r = run(fixture!("coordinator.json"));
    assert_eq!(r.machine, Machine::Coordinator);
    // random 0 puts the first trigger at min-pause.
    assert!(coordinator_fx_start(&r)
        .iter()
        .any(|e| matches!(e, C::ScheduleTimer { at: 2_000_000, .. })));
    assert!(coordinator_fx(&r.steps[0])
        .iter()
        .any(|e| matches!(e, C::TriggerTasks { id: 1, props, .. } if props.periodic)));
    // max-concurrent 1: the user checkpoint waits.
    assert!(matches!(
        coordinator_fx(&r.steps[1])[..],
        [C::RequestQueued { .. }]
    ));
    assert_eq!(coordinator_state(&r.steps[1]).queued.len(), 1);
    assert_eq!(coordinator_state(&r.steps[4]).pending[0].acknowledged, 3);
    // The last ack completes #1, and the queued request runs at once.
    let fx = coordinator_fx(&r.steps[6]);
    assert!(fx
        .iter()
        .any(|e| matches!(e, C::CheckpointCompleted { checkpoint } if checkpoint.id == 1)));
    assert!(fx
        .iter()
        .any(|e| matches!(e, C::TriggerTasks { id: 2, .. })));
    assert_eq!(coordinator_state(&r.steps[6]).latest_completed, Some(1));
    // A savepoint is forced past max-concurrent.
    assert!(coordinator_fx(&r.steps[8])
        .iter()
        .any(|e| matches!(e, C::TriggerTasks { id: 3, props, .. } if props.kind == CheckpointKind::Savepoint)));
    assert_eq!(coordinator_state(&r.steps[8]).pending.len(), 2);
    assert!(matches!(
        coordinator_fx(&r.steps[9])[..],
        [C::AckIgnored { id: 1, .. }]
    ));
    assert!(
        coordinator_fx(&r.steps[10]).contains(&C::CheckpointAborted {
            id: 2,
            reason: CheckpointFailureReason::CHECKPOINT_DECLINED
        })
    );
    assert_eq!(coordinator_state(&r.steps[10]).failure_counter, 1);
    // The driver fires the expiry timer at its due time during the long advance.
    let expiry = &r.steps[16];
    assert!(expiry.effects.iter().any(|e| e.at == 27_000_000
        && e.effect
            == crate::replay::Effect::Coordinator(C::CheckpointAborted {
                id: 4,
                reason: CheckpointFailureReason::CHECKPOINT_EXPIRED
            })));
    assert!(coordinator_fx(&r.steps[18])
        .iter()
        .any(|e| matches!(e, C::TriggerTasks { props, .. } if props.kind == CheckpointKind::SyncSavepoint)));
    assert!(!coordinator_state(&r.steps[18]).periodic_scheduling);
    assert!(
        coordinator_fx(&r.steps[19]).is_empty(),
        "expiring a gone checkpoint does nothing"
    );
    assert!(
        coordinator_fx(&r.steps[20]).contains(&C::CheckpointAborted {
            id: 7,
            reason: CheckpointFailureReason::CHECKPOINT_EXPIRED
        })
    );
}

fn coordinator_fx_start(r: &crate::replay::ReplayReport) -> Vec<C> {
    r.start
        .effects
        .iter()
        .filter_map(|e| match &e.effect {
            crate::replay::Effect::Coordinator(c) => Some(c.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn every_fixture_is_deterministic_and_serializes() {
    for script in [
        fixture!("aligned.json"),
        fixture!("unaligned.json"),
        fixture!("aligned-with-timeout.json"),
        fixture!("at-least-once.json"),
        fixture!("coordinator.json"),
    ] {
        let a = run(script);
        assert_eq!(a, run(script));
        let json = serde_json::to_string(&a).expect("reports serialize");
        assert!(json.contains("\"via\""));
        assert!(matches!(
            (&a.start.state, a.machine),
            (MachineState::Coordinator(_), Machine::Coordinator) | (MachineState::Handler(_), _)
        ));
    }
}

#[test]
fn a_barrier_behind_held_buffers_keeps_its_place() {
    // ch0 sends barrier 1, then (held) barrier 2 and a buffer. When #1 completes, barrier 2 is
    // released and blocks ch0 again, so the buffer behind it stays held.
    let r = run(r#"{"version":1,"machine":"aligned","channels":2,"steps":[
        {"barrier":{"channel":0,"id":1}},
        {"barrier":{"channel":0,"id":2}},
        {"buffer":{"channel":0,"bytes":10}},
        {"barrier":{"channel":1,"id":1}}
    ]}"#);
    let last = &r.steps[3];
    assert_eq!(
        names(last),
        [
            "handler:BlockChannel",
            "handler:TriggerCheckpoint",
            "handler:ResumeConsumption",
            "handler:ResumeConsumption",
            "driver:released",
            "handler:BlockChannel",
        ]
    );
    let state = handler_state(last);
    assert_eq!(state.blocked_channels, vec![0]);
    assert_eq!(
        state.held[0].inputs,
        vec![HandlerInput::Buffer {
            channel: 0,
            bytes: 10
        }]
    );
    assert_eq!(state.current_checkpoint, Some(2));
}

#[test]
fn integer_durations_are_microseconds_and_explicit_timeouts_fire_now() {
    let r = run(
        r#"{"version":1,"machine":"aligned-with-timeout","channels":2,"steps":[
        {"advance":1500},
        {"barrier":{"channel":0,"id":1,"timeout":"1s"}},
        {"timeout":{"id":1}}
    ]}"#,
    );
    assert_eq!(r.steps[0].time, 1500);
    // Fired before its time: the handler itself refuses (an Error effect, not a script error).
    assert!(matches!(handler_fx(&r.steps[2])[..], [H::Error { .. }]));
    assert_eq!(
        handler_state(&r.steps[2])
            .alignment_timer
            .map(|t| t.fire_at),
        Some(1_001_500)
    );
}
