//! The input gate a barrier handler sits behind, for replay scripts with `"gate": true`: per
//! channel a queue of what arrived (`RemoteInputChannel.receivedBuffers`), priority events at its
//! head, the gate's queue of channels with data (`SingleInputGate.inputChannelsWithData`), and per
//! channel the `ChannelStatePersister` that writes in-flight buffers as channel state. Items wait
//! here until a `poll` step hands the next one to the handler, as `CheckpointedInputGate.pollNext`
//! does; Flink's checkpointing tests state what each poll returned and what was written.
//!
//! One liberty, shared with the driver without a gate: a channel blocked by an aligned barrier is
//! not polled (its upstream would not have sent what follows the barrier).

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde::Serialize;

use crate::barrier::{AlignmentType, HandlerEffect, HandlerInput};
use crate::types::{ChannelIndex, CheckpointId};

/// One queued item and its place in the channel (`SequenceBuffer.sequenceNumber`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Queued {
    pub sequence_number: u32,
    pub priority: bool,
    pub input: HandlerInput,
}

#[derive(Debug, Clone, Default)]
struct Channel {
    queue: VecDeque<Queued>,
    next_sequence_number: u32,
    /// Newest barrier that arrived, with its sequence number (`lastBarrierId`/`…SequenceNumber`).
    last_barrier: Option<(CheckpointId, u32)>,
    /// `ChannelStatePersister`: the checkpoint whose channel state this channel is writing.
    persisting: Option<CheckpointId>,
}

/// Channel state written by the gate: buffers and bytes per checkpoint and channel.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Written {
    pub buffers: u32,
    pub bytes: u64,
}

#[derive(Debug, Clone)]
pub struct InputGate {
    channels: Vec<Channel>,
    /// Channels with a priority event at their head, first notified first.
    priority: VecDeque<ChannelIndex>,
    /// Channels with data, first notified first.
    available: VecDeque<ChannelIndex>,
    /// Checkpoints whose input side started (`checkpointStarted` ran on every channel).
    started: BTreeSet<CheckpointId>,
    written: BTreeMap<(CheckpointId, ChannelIndex), Written>,
}

/// Buffers of `channel` the gate wrote as channel state of `id`: one that arrived while its
/// channel was persisting, or at `checkpointStarted` those queued ahead of its barrier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GateEvent {
    pub channel: ChannelIndex,
    pub id: CheckpointId,
    pub buffers: u32,
    pub bytes: u64,
}

impl InputGate {
    pub fn new(channels: u32) -> Self {
        InputGate {
            channels: vec![Channel::default(); channels as usize],
            priority: VecDeque::new(),
            available: VecDeque::new(),
            started: BTreeSet::new(),
            written: BTreeMap::new(),
        }
    }

    /// `RemoteInputChannel.onBuffer`. An unaligned barrier is a priority event and goes ahead of
    /// the data; an aligned barrier with a timeout stays in line but is announced by a priority
    /// `EventAnnouncement`. Returns the channel-state writes it caused.
    pub fn enqueue(&mut self, channel: ChannelIndex, input: HandlerInput) -> Vec<GateEvent> {
        let mut events = Vec::new();
        let c = &mut self.channels[channel as usize];
        let sequence_number = c.next_sequence_number;
        c.next_sequence_number += 1;
        let was_empty = c.queue.is_empty();
        let mut priority_added = false;
        match input {
            HandlerInput::Barrier { barrier, .. } => {
                if c.last_barrier.is_none_or(|(id, _)| barrier.id > id) {
                    c.last_barrier = Some((barrier.id, sequence_number));
                }
                // `ChannelStatePersister.checkForBarrier`: the channel's part is complete.
                if c.persisting.is_some_and(|id| barrier.id >= id) {
                    c.persisting = None;
                }
                let unaligned = barrier.options.alignment == AlignmentType::Unaligned;
                let item = Queued {
                    sequence_number,
                    priority: unaligned,
                    input,
                };
                if unaligned {
                    push_priority(&mut c.queue, item);
                    priority_added = true;
                } else {
                    c.queue.push_back(item);
                    if barrier.options.aligned_checkpoint_timeout.is_some() {
                        let announcement = HandlerInput::BarrierAnnouncement {
                            channel,
                            barrier,
                            sequence_number,
                        };
                        push_priority(
                            &mut c.queue,
                            Queued {
                                sequence_number,
                                priority: true,
                                input: announcement,
                            },
                        );
                        priority_added = true;
                    }
                }
            }
            HandlerInput::BarrierAnnouncement { .. } => {
                push_priority(
                    &mut c.queue,
                    Queued {
                        sequence_number,
                        priority: true,
                        input,
                    },
                );
                priority_added = true;
            }
            HandlerInput::Buffer { bytes, .. } => {
                if let Some(id) = c.persisting {
                    events.push(GateEvent {
                        channel,
                        id,
                        buffers: 1,
                        bytes,
                    });
                }
                c.queue.push_back(Queued {
                    sequence_number,
                    priority: false,
                    input,
                });
            }
            _ => c.queue.push_back(Queued {
                sequence_number,
                priority: false,
                input,
            }),
        }
        if priority_added {
            self.notify_priority(channel);
        } else if was_empty {
            self.available.push_back(channel);
        }
        self.record(&events);
        events
    }

    /// `pollNext`: priority events first, then the channels in the order their data arrived;
    /// a blocked channel is passed over. A channel with more data queues again at the end.
    pub fn poll(&mut self, blocked: &[ChannelIndex]) -> Option<(ChannelIndex, HandlerInput)> {
        let channel = match self.priority.pop_front() {
            Some(c) => c,
            None => {
                let at = self.available.iter().position(|c| {
                    !blocked.contains(c) && !self.channels[*c as usize].queue.is_empty()
                })?;
                self.available.remove(at)?
            }
        };
        let c = &mut self.channels[channel as usize];
        let item = c.queue.pop_front()?;
        self.available.retain(|ch| *ch != channel);
        match c.queue.front() {
            Some(next) if next.priority => self.priority.push_back(channel),
            Some(_) => self.available.push_back(channel),
            None => {}
        }
        Some((channel, item.input))
    }

    /// What the handler's effects ask of the inputs: conversions to priority events, and the
    /// start and end of an unaligned checkpoint's input side.
    pub fn apply(&mut self, effects: &[HandlerEffect]) -> Vec<GateEvent> {
        let mut events = Vec::new();
        for effect in effects {
            match *effect {
                HandlerEffect::ConvertToPriorityEvent {
                    channel,
                    sequence_number,
                } => self.convert_to_priority_event(channel, sequence_number),
                // `checkpointStarted` runs with the unaligned trigger; a switch before any
                // barrier (`AlternatingWaitingForFirstBarrier` timing out) waits for one.
                HandlerEffect::TriggerCheckpoint { barrier, .. }
                    if barrier.options.alignment == AlignmentType::Unaligned =>
                {
                    self.checkpoint_started(barrier.id, &mut events)
                }
                HandlerEffect::AbortCheckpoint { id, .. } => {
                    for c in &mut self.channels {
                        if c.persisting.is_some_and(|p| p <= id) {
                            c.persisting = None;
                        }
                    }
                }
                _ => {}
            }
        }
        self.record(&events);
        events
    }

    /// `RemoteInputChannel.convertToPriorityEvent`: the announced barrier moves ahead of the
    /// data queued before it.
    fn convert_to_priority_event(&mut self, channel: ChannelIndex, sequence_number: u32) {
        let Some(c) = self.channels.get_mut(channel as usize) else {
            return;
        };
        let Some(at) = c.queue.iter().position(|q| {
            q.sequence_number == sequence_number && matches!(q.input, HandlerInput::Barrier { .. })
        }) else {
            return; // already polled
        };
        if let Some(mut item) = c.queue.remove(at) {
            item.priority = true;
            push_priority(&mut c.queue, item);
            self.notify_priority(channel);
        }
    }

    /// `checkpointStarted` on every channel (`ChannelStatePersister.startPersisting` with
    /// `getInflightBuffers`): the buffers queued ahead of the channel's barrier of `id`, or all
    /// of them if it has not arrived, are channel state; until it arrives, so is what follows.
    fn checkpoint_started(&mut self, id: CheckpointId, events: &mut Vec<GateEvent>) {
        if !self.started.insert(id) {
            return;
        }
        for (index, c) in self.channels.iter_mut().enumerate() {
            let channel = index as ChannelIndex;
            let barrier_at = match c.last_barrier {
                Some((b, seq)) if b == id => Some(seq),
                Some((b, _)) if b > id => continue,
                _ => None,
            };
            let (mut buffers, mut bytes) = (0, 0);
            for q in &c.queue {
                if let HandlerInput::Buffer { bytes: b, .. } = q.input {
                    if barrier_at.is_none_or(|seq| q.sequence_number < seq) {
                        buffers += 1;
                        bytes += b;
                    }
                }
            }
            if buffers > 0 {
                events.push(GateEvent {
                    channel,
                    id,
                    buffers,
                    bytes,
                });
            }
            if barrier_at.is_none() {
                c.persisting = Some(id);
            }
        }
    }

    fn notify_priority(&mut self, channel: ChannelIndex) {
        self.available.retain(|c| *c != channel);
        if !self.priority.contains(&channel) {
            self.priority.push_back(channel);
        }
    }

    fn record(&mut self, events: &[GateEvent]) {
        for e in events {
            let w = self.written.entry((e.id, e.channel)).or_default();
            w.buffers += e.buffers;
            w.bytes += e.bytes;
        }
    }

    /// Each channel's queue, head first, with its priority items first.
    pub fn queues(&self) -> Vec<(ChannelIndex, Vec<Queued>)> {
        self.channels
            .iter()
            .enumerate()
            .filter(|(_, c)| !c.queue.is_empty())
            .map(|(i, c)| (i as ChannelIndex, c.queue.iter().copied().collect()))
            .collect()
    }

    /// Channel state written so far, by checkpoint and channel.
    pub fn written(&self) -> impl Iterator<Item = (CheckpointId, ChannelIndex, Written)> + '_ {
        self.written.iter().map(|((id, ch), w)| (*id, *ch, *w))
    }

    /// Channels writing channel state, with the checkpoint.
    pub fn persisting(&self) -> Vec<(ChannelIndex, CheckpointId)> {
        self.channels
            .iter()
            .enumerate()
            .filter_map(|(i, c)| c.persisting.map(|id| (i as ChannelIndex, id)))
            .collect()
    }
}

/// Behind the priority items already queued, ahead of the rest (`addPriorityElement`).
fn push_priority(queue: &mut VecDeque<Queued>, item: Queued) {
    let at = queue.iter().take_while(|q| q.priority).count();
    queue.insert(at, item);
}
