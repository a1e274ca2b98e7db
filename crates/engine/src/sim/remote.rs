//! Remote channels on the event loop: `network::credit` decides (credit-based flow control), this
//! turns its effects into timed events, in the order they happened, and adds what the network
//! cannot know (scripted network delays, the consumer's checkpoint bookkeeping).

use super::{Event, Simulation};
use crate::network::NetEffect;

impl Simulation {
    /// `CreditBasedSequenceNumberingViewReader`: sends what credit allows, in queue order.
    pub(crate) fn try_send(&mut self, channel: u32) {
        let mut out = std::mem::take(&mut self.net_effects);
        self.net
            .try_send(channel, self.now, self.params.network_throughput, &mut out);
        self.apply_net_effects(&mut out);
        self.net_effects = out;
    }

    /// `RemoteInputChannel.onBuffer` for the next item on `channel`'s wire.
    pub(crate) fn net_arrive(&mut self, channel: u32, backlog: u32) {
        let now = self.now;
        let mut out = std::mem::take(&mut self.net_effects);
        let arrived = self.net.arrive(channel, backlog, now, &mut out);
        self.apply_net_effects(&mut out);
        self.net_effects = out;
        let Some(arrived) = arrived else { return };
        if let Some((id, overtaken)) = arrived.overtaken {
            let task = &mut self.tasks[arrived.task as usize];
            let entry = task.checkpointing.overtaken_input.entry(id).or_default();
            entry.0 += overtaken.bytes;
            entry.1.push((arrived.index, overtaken.records));
            self.trace.record(
                now,
                Some(task.id),
                crate::trace::TraceKind::InFlightPersisted {
                    id,
                    channel: arrived.index,
                    bytes: overtaken.bytes,
                },
            );
        }
        self.wake_for_input(arrived.task);
    }

    /// The task read a buffer of a remote channel.
    pub(crate) fn remote_recycled(&mut self, channel: u32) {
        let mut out = std::mem::take(&mut self.net_effects);
        self.net.remote_recycled(channel, self.now, &mut out);
        self.apply_net_effects(&mut out);
        self.net_effects = out;
    }

    pub(crate) fn credit_arrive(&mut self, channel: u32, credit: u32) {
        self.net.add_credit(channel, credit);
        self.try_send(channel);
    }

    pub(crate) fn resume_arrive(&mut self, channel: u32) {
        self.net.resume_remote(channel);
        self.try_send(channel);
    }

    fn apply_net_effects(&mut self, out: &mut Vec<NetEffect>) {
        let now = self.now;
        for effect in out.drain(..) {
            match effect {
                NetEffect::Sent {
                    channel,
                    backlog,
                    sent,
                    arrival,
                } => {
                    // Scripted `network-delay` on this channel's edge (0 without edge faults); it
                    // never reorders a link's arrivals, so the wire's FIFO stays right.
                    let arrival = arrival + self.injected_network_delay(channel, sent);
                    self.queue
                        .push(arrival, Event::NetArrive { channel, backlog });
                }
                NetEffect::WakeProducer { task } => self.schedule_wake(task, now),
                NetEffect::Credit {
                    channel,
                    credit,
                    at,
                } => self.queue.push(at, Event::CreditArrive { channel, credit }),
            }
        }
    }
}
