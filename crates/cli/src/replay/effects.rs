//! One-line descriptions of inputs, effects and driver notes, named as in Flink.

use barrierlab_engine::barrier::{AlignmentType, CheckpointBarrier, HandlerEffect, HandlerInput};
use barrierlab_engine::coordinator::{
    CheckpointKind, CheckpointProperties, CoordinatorEffect, CoordinatorTimer,
};
use barrierlab_engine::replay::{
    task_name, DeciderEffect, DriverNote, Effect, FailureManagerEffect,
};
use barrierlab_engine::types::{Micros, SubtaskId};

/// Exact and short: `5s`, `120ms`, `1500us`.
pub fn time(us: Micros) -> String {
    if us == 0 {
        "0".into()
    } else if us.is_multiple_of(1_000_000) {
        format!("{}s", us / 1_000_000)
    } else if us.is_multiple_of(1_000) {
        format!("{}ms", us / 1_000)
    } else {
        format!("{us}us")
    }
}

pub fn effect(e: &Effect) -> String {
    match e {
        Effect::Handler(h) => handler(h),
        Effect::Coordinator(c) => coordinator(c),
        Effect::Decider(d) => decider(d),
        Effect::FailureManager(FailureManagerEffect::FailJob { message }) => {
            format!("FailJob: {message}")
        }
        Effect::Driver(d) => driver(d),
    }
}

fn decider(e: &DeciderEffect) -> String {
    match e {
        DeciderEffect::Failed { request, reason } => format!(
            "Failed request {} ({}): {}",
            request.seq,
            request_props(&request.props),
            reason.name()
        ),
        DeciderEffect::RescheduleTrigger { after } => {
            format!("RescheduleTrigger in {}", time(*after))
        }
        DeciderEffect::Execute { request } => {
            format!(
                "Execute request {} ({})",
                request.seq,
                request_props(&request.props)
            )
        }
    }
}

fn handler(e: &HandlerEffect) -> String {
    use HandlerEffect as H;
    match e {
        H::Process { channel, bytes } => format!("Process ch{channel} {bytes} B"),
        H::BlockChannel { channel } => format!("BlockChannel ch{channel}"),
        H::ResumeConsumption { channel } => format!("ResumeConsumption ch{channel}"),
        H::TriggerCheckpoint {
            barrier,
            start_delay,
            alignment_duration,
            bytes_processed_during_alignment,
        } => format!(
            "TriggerCheckpoint {} start-delay {} alignment {} processed {} B",
            barrier_name(barrier),
            time(*start_delay),
            time(*alignment_duration),
            bytes_processed_during_alignment
        ),
        H::AbortCheckpoint { id, reason } => {
            format!("AbortCheckpoint #{id} {}", reason.flink_name())
        }
        H::StartPersisting { channel, id } => format!("StartPersisting ch{channel} for #{id}"),
        H::StopPersisting { channel, id } => format!("StopPersisting ch{channel} for #{id}"),
        H::PersistInFlight { channel, id, bytes } => {
            format!("PersistInFlight ch{channel} {bytes} B into #{id}")
        }
        H::RegisterAlignmentTimer { id, fire_at } => {
            format!("RegisterAlignmentTimer #{id} at {}", time(*fire_at))
        }
        H::SwitchedToUnaligned { id } => format!("SwitchedToUnaligned #{id}"),
        H::InputChannelStateComplete {
            id,
            alignment_duration,
            bytes_processed_during_alignment,
            persisted_bytes,
        } => format!(
            "InputChannelStateComplete #{id} alignment {} processed {} B persisted {} B",
            time(*alignment_duration),
            bytes_processed_during_alignment,
            persisted_bytes
        ),
        H::ConvertToPriorityEvent {
            channel,
            sequence_number,
        } => format!("ConvertToPriorityEvent ch{channel} seq {sequence_number}"),
        H::Error { message } => format!("Error: {message}"),
    }
}

/// `#3 (checkpoint, aligned, timeout 1s)`.
fn barrier_name(b: &CheckpointBarrier) -> String {
    let kind = if b.options.checkpoint_type.is_savepoint() {
        "savepoint"
    } else {
        "checkpoint"
    };
    let alignment = match b.options.alignment {
        AlignmentType::Aligned => "aligned",
        AlignmentType::Unaligned => "unaligned",
        AlignmentType::AtLeastOnce => "at-least-once",
        AlignmentType::ForcedAligned => "forced-aligned",
    };
    let timeout = match b.options.aligned_checkpoint_timeout {
        Some(t) => format!(", timeout {}", time(t)),
        None => String::new(),
    };
    format!("#{} ({kind}, {alignment}{timeout})", b.id)
}

pub fn input(i: &HandlerInput) -> String {
    match i {
        HandlerInput::Buffer { bytes, .. } => format!("buffer {bytes} B"),
        HandlerInput::Barrier { barrier, .. } => format!("barrier {}", barrier_name(barrier)),
        HandlerInput::BarrierAnnouncement {
            barrier,
            sequence_number,
            ..
        } => format!(
            "announcement of barrier {} (seq {sequence_number})",
            barrier_name(barrier)
        ),
        HandlerInput::CancelMarker { id, .. } => format!("cancel marker #{id}"),
        HandlerInput::EndOfPartition { .. } => "end of partition".into(),
        HandlerInput::AlignmentTimeout { id } => format!("alignment timeout #{id}"),
    }
}

fn driver(d: &DriverNote) -> String {
    match d {
        DriverNote::Held {
            channel,
            input: i,
            waiting,
        } => format!(
            "held: ch{channel} is blocked upstream, {} waits there ({waiting} waiting)",
            input(i)
        ),
        DriverNote::Released { channel, input: i } => {
            format!("ch{channel} resumed: held {} delivered", input(i))
        }
        DriverNote::AlignmentTimerFired { id, fire_at } => {
            format!("alignment timer of #{id} fires (due {})", time(*fire_at))
        }
        DriverNote::CoordinatorTimerFired { timer: t } => format!("{} fires", timer(t)),
        DriverNote::Polled { channel, input: i } => format!("polled ch{channel}: {}", input(i)),
        DriverNote::NothingAvailable => "polled: nothing available".into(),
        DriverNote::ChannelStateWritten {
            channel,
            id,
            buffers,
            bytes,
        } => {
            format!("ch{channel}: {buffers} buffer(s), {bytes} B written as channel state of #{id}")
        }
    }
}

pub fn timer(t: &CoordinatorTimer) -> String {
    match t {
        CoordinatorTimer::Periodic => "periodic trigger".into(),
        CoordinatorTimer::Expiry(id) => format!("expiry of #{id}"),
    }
}

/// `checkpoint`, `periodic checkpoint`, `savepoint`, `stop-with-savepoint`.
/// As [`props`], saying "forced" where it differs from what the kind implies.
pub fn request_props(p: &CheckpointProperties) -> String {
    match (p.kind, p.forced) {
        (CheckpointKind::Checkpoint, true) => format!("forced {}", props(p)),
        (CheckpointKind::Savepoint | CheckpointKind::SyncSavepoint, false) => {
            format!("non-forced {}", props(p))
        }
        _ => props(p),
    }
}

pub fn props(p: &CheckpointProperties) -> String {
    match p.kind {
        CheckpointKind::Checkpoint if p.periodic => "periodic checkpoint".into(),
        CheckpointKind::Checkpoint => "checkpoint".into(),
        CheckpointKind::Savepoint => "savepoint".into(),
        CheckpointKind::SyncSavepoint => "stop-with-savepoint".into(),
    }
}

pub fn tasks(ts: &[SubtaskId]) -> String {
    ts.iter()
        .map(|t| task_name(*t))
        .collect::<Vec<_>>()
        .join(" ")
}

fn coordinator(e: &CoordinatorEffect) -> String {
    use CoordinatorEffect as C;
    match e {
        C::ScheduleTimer { at, timer: t } => {
            format!("ScheduleTimer {} at {}", timer(t), time(*at))
        }
        C::CancelTimer { timer: t } => format!("CancelTimer {}", timer(t)),
        C::TriggerTasks {
            id,
            props: p,
            unaligned,
            tasks: ts,
            ..
        } => format!(
            "TriggerTasks #{id} {} {} -> {}",
            props(p),
            if *unaligned { "unaligned" } else { "aligned" },
            tasks(ts)
        ),
        C::CheckpointCompleted { checkpoint } => format!(
            "CheckpointCompleted #{} {} state {} B at {}",
            checkpoint.id,
            props(&checkpoint.props),
            checkpoint.state_size(),
            checkpoint.external_pointer
        ),
        C::NotifyCheckpointComplete { id, tasks: ts } => {
            format!("NotifyCheckpointComplete #{id} -> {}", tasks(ts))
        }
        C::NotifyCheckpointAborted { id, tasks: ts } => {
            format!("NotifyCheckpointAborted #{id} -> {}", tasks(ts))
        }
        C::CheckpointAborted { id, reason } => format!("CheckpointAborted #{id} {reason:?}"),
        C::RequestQueued { props: p } => format!("RequestQueued {}", props(p)),
        C::RequestRejected { props: p, reason } => {
            format!("RequestRejected {} {reason:?}", props(p))
        }
        C::AckIgnored {
            id,
            subtask,
            result,
        } => format!("AckIgnored #{id} from {}: {result:?}", task_name(*subtask)),
        C::FailJob { reason } => format!("FailJob: {reason}"),
        C::Subsumed { id } => format!("Subsumed #{id}"),
        C::TriggeringCheckpoint { id } => format!("TriggeringCheckpoint #{id} (asynchronous)"),
        C::CheckpointOperatorCoordinators { id, coordinators } => {
            format!(
                "CheckpointOperatorCoordinators #{id} -> {}",
                coordinators.join(" ")
            )
        }
        C::NotifyOperatorCoordinatorsComplete { id, coordinators } => format!(
            "NotifyOperatorCoordinatorsComplete #{id} -> {}",
            coordinators.join(" ")
        ),
        C::NotifyOperatorCoordinatorsAborted { id, coordinators } => format!(
            "NotifyOperatorCoordinatorsAborted #{id} -> {}",
            coordinators.join(" ")
        ),
        C::WrongJob { id, subtask, job } => format!(
            "WrongJob #{id} from {}: job '{job}' is not this coordinator's",
            task_name(*subtask)
        ),
    }
}
