//! Drives one barrier handler through a script: the clock, the alignment timer, and the upstream
//! that stops sending on a blocked channel.

use std::collections::{BTreeMap, VecDeque};

use serde_json::Value;

use super::barrier_script::{BarrierScript, BarrierStep, BARRIER_STEP_KINDS, MAX_CHANNELS};
use super::gate::{GateEvent, InputGate};
use super::report::{
    AlignmentTimer, AnnouncedBarrier, DriverNote, Effect, Emitted, GateQueue, GateSnapshot,
    HandlerSnapshot, HeldEvents, Machine, MachineState, PersistedBytes, PersistingChannel,
    ReplayReport, ReplayStart, ReplayStep, Via, WrittenState,
};
use super::{parse_script, parse_step, step_error, MAX_TIMERS_PER_ADVANCE};
use crate::barrier::{
    AnyBarrierHandler, BarrierHandler, CheckpointBarrierTracker, HandlerInput,
    SingleCheckpointBarrierHandler,
};
use crate::types::{ChannelIndex, Micros};

pub(super) fn run(machine: Machine, value: Value) -> Result<ReplayReport, String> {
    let script: BarrierScript = parse_script(value)?;
    if script.channels == 0 || script.channels > MAX_CHANNELS {
        return Err(format!(
            "script: \"channels\" must be between 1 and {MAX_CHANNELS}, got {}",
            script.channels
        ));
    }
    if script.gate && !script.upstream_stops {
        return Err(
            "script: \"upstream_stops\": false needs no \"gate\" (the gate's channels are the upstream)"
                .into(),
        );
    }
    let mut driver = BarrierDriver::new(
        machine,
        script.channels,
        script.checkpoints_after_tasks_finish,
        script.upstream_stops,
    );
    if script.gate {
        driver.gate = Some(InputGate::new(script.channels));
    }
    let start = ReplayStart {
        time: 0,
        effects: Vec::new(),
        state: driver.snapshot(),
    };
    let mut steps = Vec::with_capacity(script.steps.len());
    for (index, raw) in script.steps.into_iter().enumerate() {
        // Assertions about the step before; `expect::check` reads them from the report.
        if super::is_expect(&raw) {
            continue;
        }
        let step: BarrierStep = parse_step(index, &raw, BARRIER_STEP_KINDS)?;
        driver
            .step(step)
            .map_err(|message| step_error(index, &raw, message))?;
        steps.push(ReplayStep {
            step: index,
            time: driver.now,
            input: raw,
            effects: std::mem::take(&mut driver.out),
            state: driver.snapshot(),
        });
    }
    Ok(ReplayReport::new(
        script.version,
        script.machine,
        start,
        steps,
    ))
}

struct BarrierDriver {
    machine: Machine,
    handler: AnyBarrierHandler,
    channels: u32,
    now: Micros,
    /// Per channel, the events its upstream keeps while the channel is blocked, oldest first.
    held: BTreeMap<ChannelIndex, VecDeque<HandlerInput>>,
    /// What the current step emitted so far.
    out: Vec<Emitted>,
    /// The input gate of a `gate` script: events queue there until polled.
    gate: Option<InputGate>,
    /// The upstream holds a blocked channel's events (`upstream_stops`).
    upstream_stops: bool,
}

impl BarrierDriver {
    fn new(machine: Machine, channels: u32, after_finish: bool, upstream_stops: bool) -> Self {
        let handler = match machine {
            Machine::AtLeastOnce => AnyBarrierHandler::Tracker(
                CheckpointBarrierTracker::new(channels)
                    .with_checkpoints_after_tasks_finish(after_finish),
            ),
            Machine::Unaligned => AnyBarrierHandler::Single(
                SingleCheckpointBarrierHandler::unaligned(channels)
                    .with_checkpoints_after_tasks_finish(after_finish)
                    .with_data_on_blocked_channels(!upstream_stops),
            ),
            Machine::AlignedWithTimeout => AnyBarrierHandler::Single(
                SingleCheckpointBarrierHandler::alternating(channels)
                    .with_checkpoints_after_tasks_finish(after_finish)
                    .with_data_on_blocked_channels(!upstream_stops),
            ),
            // The JobManager-side machines never reach here (see `replay`); aligned is the safe
            // reading.
            Machine::Aligned
            | Machine::Coordinator
            | Machine::RequestDecider
            | Machine::FailureManager => AnyBarrierHandler::Single(
                SingleCheckpointBarrierHandler::aligned(channels)
                    .with_checkpoints_after_tasks_finish(after_finish)
                    .with_data_on_blocked_channels(!upstream_stops),
            ),
        };
        BarrierDriver {
            machine,
            handler,
            channels,
            now: 0,
            held: BTreeMap::new(),
            out: Vec::new(),
            gate: None,
            upstream_stops,
        }
    }

    fn step(&mut self, step: BarrierStep) -> Result<(), String> {
        match step {
            BarrierStep::Buffer(b) => self.deliver(HandlerInput::Buffer {
                channel: b.channel,
                bytes: b.bytes.0,
            }),
            BarrierStep::Barrier(spec) => {
                let input = spec.to_input(self.machine, self.now)?;
                self.deliver(input);
            }
            // The barrier is still upstream while its channel is blocked, so is its announcement.
            BarrierStep::Announcement(spec) => {
                let input = spec.to_input(self.machine, self.now)?;
                self.deliver(input);
            }
            BarrierStep::Cancel(c) => self.deliver(HandlerInput::CancelMarker {
                channel: c.channel,
                id: c.id,
            }),
            BarrierStep::EndOfPartition(c) => {
                self.deliver(HandlerInput::EndOfPartition { channel: c.channel })
            }
            BarrierStep::Advance(d) => self.advance(d.0)?,
            BarrierStep::AdvanceClock(d) => {
                self.now = self
                    .now
                    .checked_add(d.0)
                    .ok_or("the clock would overflow (u64 microseconds)")?;
            }
            BarrierStep::RunTimers(_) => self.advance(0)?,
            BarrierStep::Close(_) => self.handler.close(),
            BarrierStep::Poll(p) => {
                self.needs_gate("poll")?;
                for _ in 0..p.times {
                    if !self.poll() {
                        break; // nothing to hand out: more polls would say so again
                    }
                }
            }
            BarrierStep::Drain(_) => {
                self.needs_gate("drain")?;
                while self.poll() {}
            }
            BarrierStep::Timeout(t) => {
                self.feed(HandlerInput::AlignmentTimeout { id: t.id }, Via::Input);
                self.release_resumed();
            }
        }
        Ok(())
    }

    fn needs_gate(&self, step: &str) -> Result<(), String> {
        match self.gate {
            Some(_) => Ok(()),
            None => Err(format!(
                "\"{step}\" needs an input gate: add \"gate\": true"
            )),
        }
    }

    /// With a gate: the next item to the handler (`pollNext`); false when none is available.
    fn poll(&mut self) -> bool {
        let blocked = self.handler.blocked_channels();
        let Some((channel, input)) = self.gate.as_mut().and_then(|g| g.poll(&blocked)) else {
            self.note(Via::Input, DriverNote::NothingAvailable);
            return false;
        };
        self.note(Via::Input, DriverNote::Polled { channel, input });
        self.feed(input, Via::Input);
        true
    }

    /// Hands a channel event to the handler, unless its channel is blocked: then the upstream
    /// keeps it (Flink's subpartition stops sending after an aligned barrier). Nothing overtakes
    /// an event already held on the same channel. With a gate, it queues there instead.
    fn deliver(&mut self, input: HandlerInput) {
        // A channel the gate does not have goes straight to the handler, which refuses it.
        let gated = channel_of(&input).filter(|c| *c < self.channels);
        if let (Some(gate), Some(channel)) = (self.gate.as_mut(), gated) {
            let events = gate.enqueue(channel, input);
            self.gate_notes(events);
            return;
        }
        if let Some(channel) = channel_of(&input) {
            let queue_waiting = self.held.get(&channel).is_some_and(|q| !q.is_empty());
            let blocked = queue_waiting || self.handler.blocked_channels().contains(&channel);
            if self.upstream_stops && blocked {
                let queue = self.held.entry(channel).or_default();
                queue.push_back(input);
                let waiting = queue.len();
                self.note(
                    Via::Input,
                    DriverNote::Held {
                        channel,
                        input,
                        waiting,
                    },
                );
                return;
            }
        }
        self.feed(input, Via::Input);
        self.release_resumed();
    }

    /// Delivers held events of channels that are no longer blocked, lowest channel first and in
    /// arrival order, until every channel with held events is blocked again (a held barrier can
    /// block its channel anew) or nothing is held. Ends: each round consumes one held event.
    fn release_resumed(&mut self) {
        loop {
            let blocked = self.handler.blocked_channels();
            let next = self
                .held
                .iter()
                .find(|(channel, queue)| !queue.is_empty() && !blocked.contains(channel))
                .map(|(channel, _)| *channel);
            let Some(channel) = next else { break };
            let Some(input) = self.held.get_mut(&channel).and_then(VecDeque::pop_front) else {
                break;
            };
            self.note(Via::Released, DriverNote::Released { channel, input });
            self.feed(input, Via::Released);
        }
        self.held.retain(|_, queue| !queue.is_empty());
    }

    /// Moves the clock by `delta`; the alignment timer fires at its own due time on the way.
    fn advance(&mut self, delta: Micros) -> Result<(), String> {
        let target = self
            .now
            .checked_add(delta)
            .ok_or("the clock would overflow (u64 microseconds)")?;
        for _ in 0..MAX_TIMERS_PER_ADVANCE {
            let Some((id, fire_at)) = self.armed_timer().filter(|(_, at)| *at <= target) else {
                break;
            };
            self.now = self.now.max(fire_at);
            self.note(Via::Timer, DriverNote::AlignmentTimerFired { id, fire_at });
            self.feed(HandlerInput::AlignmentTimeout { id }, Via::Timer);
            self.release_resumed();
            if self.armed_timer() == Some((id, fire_at)) {
                break; // the handler kept the timer; firing it again would change nothing
            }
        }
        self.now = target;
        Ok(())
    }

    /// Only the alternating handler arms a timer; its own record is the one that counts, so a
    /// timer of a checkpoint that completed or was aborted is simply gone (Flink cancels it).
    fn armed_timer(&self) -> Option<(u64, Micros)> {
        match &self.handler {
            AnyBarrierHandler::Single(s) => s.alignment_timer(),
            AnyBarrierHandler::Tracker(_) => None,
        }
    }

    fn feed(&mut self, input: HandlerInput, via: Via) {
        let at = self.now;
        let effects = self.handler.handle(at, input);
        let events = match self.gate.as_mut() {
            Some(gate) => gate.apply(&effects),
            None => Vec::new(),
        };
        for effect in effects {
            self.out.push(Emitted {
                at,
                via,
                effect: Effect::Handler(effect),
            });
        }
        self.gate_notes(events);
    }

    fn gate_notes(&mut self, events: Vec<GateEvent>) {
        for e in events {
            let note = DriverNote::ChannelStateWritten {
                channel: e.channel,
                id: e.id,
                buffers: e.buffers,
                bytes: e.bytes,
            };
            self.note(Via::Input, note);
        }
    }

    fn note(&mut self, via: Via, note: DriverNote) {
        self.out.push(Emitted {
            at: self.now,
            via,
            effect: Effect::Driver(note),
        });
    }

    fn snapshot(&self) -> MachineState {
        let h = &self.handler;
        let persister = h.persister();
        let persisted = persister
            .checkpoint_ids()
            .into_iter()
            .flat_map(|checkpoint| {
                persister.persisted_by_channel(checkpoint).into_iter().map(
                    move |(channel, bytes)| PersistedBytes {
                        checkpoint,
                        channel,
                        bytes,
                    },
                )
            })
            .collect();
        MachineState::Handler(HandlerSnapshot {
            state: h.state_name().to_string(),
            current_checkpoint: h.current_checkpoint_id(),
            pending_checkpoints: h.pending_checkpoint_ids(),
            blocked_channels: h.blocked_channels(),
            aligned_channels: h.aligned_channels(),
            channels: self.channels,
            open_channels: h.num_open_channels(),
            during_alignment: h.is_during_alignment(),
            announced: h
                .announced_channels()
                .into_iter()
                .map(|(channel, sequence_number)| AnnouncedBarrier {
                    channel,
                    sequence_number,
                })
                .collect(),
            persisting_channels: persister.persisting_channels(),
            persisted,
            alignment_timer: self
                .armed_timer()
                .map(|(id, fire_at)| AlignmentTimer { id, fire_at }),
            gate: self.gate.as_ref().map(|g| GateSnapshot {
                queues: g
                    .queues()
                    .into_iter()
                    .map(|(channel, items)| GateQueue { channel, items })
                    .collect(),
                persisting: g
                    .persisting()
                    .into_iter()
                    .map(|(channel, checkpoint)| PersistingChannel {
                        channel,
                        checkpoint,
                    })
                    .collect(),
                written: g
                    .written()
                    .map(|(checkpoint, channel, w)| WrittenState {
                        checkpoint,
                        channel,
                        buffers: w.buffers,
                        bytes: w.bytes,
                    })
                    .collect(),
            }),
            held: self
                .held
                .iter()
                .map(|(channel, queue)| HeldEvents {
                    channel: *channel,
                    inputs: queue.iter().copied().collect(),
                })
                .collect(),
        })
    }
}

fn channel_of(input: &HandlerInput) -> Option<ChannelIndex> {
    match *input {
        HandlerInput::Buffer { channel, .. }
        | HandlerInput::Barrier { channel, .. }
        | HandlerInput::BarrierAnnouncement { channel, .. }
        | HandlerInput::CancelMarker { channel, .. }
        | HandlerInput::EndOfPartition { channel } => Some(channel),
        HandlerInput::AlignmentTimeout { .. } => None,
    }
}
