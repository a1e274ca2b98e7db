//! Consumer side: `SingleInputGate` with `LocalInputChannel`s (same TaskManager: the consumer
//! reads the producer's subpartition directly, no buffers of its own) and `RemoteInputChannel`s
//! (credit-based: 2 exclusive buffers per channel plus up to 8 floating ones per gate, requested
//! by the sender's backlog; flink-defaults §2).

use std::collections::VecDeque;

use super::buffer::NetItem;
use super::{PartitionId, BUFFERS_PER_CHANNEL, FLOATING_BUFFERS_PER_GATE};
use crate::types::Micros;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ChannelKind {
    Local,
    Remote,
}

/// Where a channel reads from and whom it wakes: the fixed part of an [`InputChannel`], kept
/// in its own dense list. Every buffer looks it up several times (notify, availability, take,
/// recycle); 49 k full channels (with their remote queues) span 6 MB, their routes 1 MB.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ChannelRoute {
    pub partition: PartitionId,
    pub subpartition: u32,
    pub task: u32,
    pub index: u32,
    pub local: bool,
}

impl ChannelRoute {
    pub fn of(c: &InputChannel) -> ChannelRoute {
        ChannelRoute {
            partition: c.partition,
            subpartition: c.subpartition,
            task: c.task,
            index: c.index,
            local: c.kind == ChannelKind::Local,
        }
    }
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct InputChannel {
    pub kind: ChannelKind,
    pub partition: PartitionId,
    pub subpartition: u32,
    /// The consuming task, as an index into the simulation's task list.
    pub task: u32,
    /// Channel index within the consuming task (numbered across its gates), as the barrier
    /// handler sees it.
    pub index: u32,
    /// Index into `Network::gates`.
    pub gate: u32,
    /// One-way network latency of this channel.
    pub latency: Micros,
    // Remote channels only.
    /// Items on the wire towards this channel, oldest first: each link delivers in order
    /// (`link_free_at` only grows, latency is fixed), so each `NetArrive` takes the front one.
    pub(super) wire: VecDeque<NetItem>,
    /// `receivedBuffers`: arrived, not yet consumed.
    pub(super) received: VecDeque<NetItem>,
    /// Floating buffers this channel holds on top of its exclusive ones.
    pub(super) floating: u32,
    /// Data buffers occupying this channel's buffers (queued or being read by the task).
    pub(super) held: u32,
    /// Data buffers on the wire towards this channel.
    pub(super) in_transit: u32,
    /// The sender's last reported backlog.
    pub(super) backlog: u32,
    /// When the connection is free to put the next buffer on the wire.
    pub(super) link_free_at: Micros,
    /// Whether this channel is in its gate's `waiting` queue (so that is not searched each time).
    pub(super) waiting_for_floating: bool,
}

impl InputChannel {
    /// `receivedBuffers` of a remote channel: arrived, not yet consumed.
    pub fn received(&self) -> &VecDeque<NetItem> {
        &self.received
    }

    pub fn new(
        kind: ChannelKind,
        partition: PartitionId,
        subpartition: u32,
        task: u32,
        index: u32,
        gate: u32,
        latency: Micros,
    ) -> Self {
        InputChannel {
            kind,
            partition,
            subpartition,
            task,
            index,
            gate,
            latency,
            wire: VecDeque::new(),
            received: VecDeque::new(),
            floating: 0,
            held: 0,
            in_transit: 0,
            backlog: 0,
            link_free_at: 0,
            waiting_for_floating: false,
        }
    }

    /// Buffers this channel can receive into: exclusive plus floating.
    pub fn capacity(&self) -> u32 {
        BUFFERS_PER_CHANNEL + self.floating
    }

    /// Floating buffers to request so that free buffers cover the sender's backlog plus the
    /// initial credit (`requestFloatingBuffers(backlog + initialCredit)`).
    pub fn floating_wanted(&self) -> u32 {
        let free = self.capacity().saturating_sub(self.held + self.in_transit);
        (self.backlog + BUFFERS_PER_CHANNEL)
            .saturating_sub(free)
            .min(FLOATING_BUFFERS_PER_GATE.saturating_sub(self.floating))
    }

    /// After a buffer was recycled: whether a floating buffer is now surplus and goes back to
    /// the gate (`RemoteInputChannel.BufferManager.recycle`).
    pub fn floating_surplus(&self) -> bool {
        let free = self.capacity().saturating_sub(self.held + self.in_transit);
        self.floating > 0 && free > self.backlog + BUFFERS_PER_CHANNEL
    }
}

/// `SingleInputGate`'s floating buffer pool and the channels waiting for one.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct InputGate {
    pub(super) floating_available: u32,
    pub(super) waiting: VecDeque<super::GlobalChannelId>,
    /// The gate's channels, in channel order (a new buffer size goes to each one's producer).
    pub(super) channels: Vec<super::GlobalChannelId>,
    /// Throughput and buffer size, when buffer debloating is on.
    pub(super) debloat: Option<Box<super::debloat::GateDebloat>>,
}

impl Default for InputGate {
    fn default() -> Self {
        InputGate {
            floating_available: FLOATING_BUFFERS_PER_GATE,
            waiting: VecDeque::new(),
            channels: Vec::new(),
            debloat: None,
        }
    }
}

impl InputGate {
    /// Channel `g` belongs to this gate.
    pub fn add_channel(&mut self, g: super::GlobalChannelId) {
        self.channels.push(g);
    }
}
