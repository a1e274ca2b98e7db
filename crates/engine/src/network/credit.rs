//! Remote channels: credit-based flow control between a `PipelinedSubpartition` and a
//! `RemoteInputChannel` (flink-defaults §2). Data buffers go on the wire only against credit;
//! events need none. Local channels bypass all of this.
//!
//! Each step changes the network and appends what must happen later to `out`, in the order it
//! happened; the event loop turns those into timed events (and adds scripted network delays).

use super::{GlobalChannelId, NetEvent, NetItem, Network, Overtaken, ResultPartition};
use crate::types::{CheckpointId, Micros};

/// What a flow-control step asks the event loop to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum NetEffect {
    /// An item went on `channel`'s wire (`InputChannel::wire`): it leaves the sender's link at
    /// `sent` and arrives at `arrival`, announcing the sender's `backlog`.
    Sent {
        channel: GlobalChannelId,
        backlog: u32,
        sent: Micros,
        arrival: Micros,
    },
    /// A buffer went back to a pool that was exhausted: the producer task may emit again.
    WakeProducer { task: u32 },
    /// `credit` buffers announced to `channel`'s sender, arriving at `at`.
    Credit {
        channel: GlobalChannelId,
        credit: u32,
        at: Micros,
    },
}

/// What [`Network::arrive`] delivered to a remote channel's consumer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arrived {
    /// The consumer task, already marked ready on its channel `index`.
    pub task: u32,
    pub index: u32,
    /// An unaligned barrier overtook data queued in the channel: the consumer's input channel
    /// state for that checkpoint.
    pub overtaken: Option<(CheckpointId, Overtaken)>,
}

impl Network {
    /// `CreditBasedSequenceNumberingViewReader`: sends what credit allows, in queue order.
    /// `throughput` is the link's bytes per second.
    pub fn try_send(
        &mut self,
        channel: GlobalChannelId,
        now: Micros,
        throughput: u64,
        out: &mut Vec<NetEffect>,
    ) {
        let (pid, sub) = {
            let c = &self.channels[channel as usize];
            (c.partition as usize, c.subpartition as usize)
        };
        let throughput = throughput.max(1);
        loop {
            let p = &mut self.partitions[pid];
            if !p.has_available(sub) {
                break;
            }
            let is_buffer = p.next_is_buffer(sub);
            if is_buffer && p.subpartitions[sub].credit == 0 {
                break;
            }
            let Some(item) = p.take(sub) else { break };
            let backlog = p.subpartitions[sub].backlog;
            let bytes = match &item {
                NetItem::Buffer(b) => u64::from(b.bytes),
                NetItem::Event(e) => u64::from(ResultPartition::event_bytes(e)),
            };
            let slice = matches!(&item, NetItem::Buffer(b) if b.slice);
            if is_buffer {
                p.subpartitions[sub].credit -= 1;
            }
            if is_buffer && !slice {
                // Netty wrote the buffer: it goes back to the producer's pool.
                if let Some(task) = p.recycle_waking(sub) {
                    out.push(NetEffect::WakeProducer { task });
                }
            }
            let c = &mut self.channels[channel as usize];
            if is_buffer {
                c.in_transit += 1;
            }
            let start = c.link_free_at.max(now);
            // The same quotient as in u128, without the slow 128-bit division when u64 suffices.
            let transfer = match bytes.checked_mul(1_000_000) {
                Some(scaled) => scaled / throughput,
                None => (u128::from(bytes) * 1_000_000 / u128::from(throughput)) as u64,
            };
            c.link_free_at = start + transfer;
            // The link delivers in order, so the event need not carry (and allocate) the item.
            c.wire.push_back(item);
            out.push(NetEffect::Sent {
                channel,
                backlog,
                sent: start + transfer,
                arrival: start + transfer + c.latency,
            });
        }
    }

    /// `RemoteInputChannel.onBuffer`: the next item on `channel`'s wire arrives; queue it,
    /// announce the backlog, request floating buffers. `None` when the wire was empty.
    pub fn arrive(
        &mut self,
        channel: GlobalChannelId,
        backlog: u32,
        now: Micros,
        out: &mut Vec<NetEffect>,
    ) -> Option<Arrived> {
        let c = &mut self.channels[channel as usize];
        let item = c.wire.pop_front()?;
        let (task, index) = (c.task, c.index);
        let mut overtaken = None;
        let mut priority = false;
        match item {
            NetItem::Buffer(b) => {
                c.in_transit = c.in_transit.saturating_sub(1);
                c.held += 1;
                c.backlog = backlog;
                c.received.push_back(NetItem::Buffer(b));
                self.request_floating(channel, now, out);
            }
            NetItem::Event(NetEvent::Barrier(barrier)) if barrier.options.is_unaligned() => {
                // A priority event overtakes what is queued in the channel; that data becomes the
                // consumer's input channel state.
                priority = true;
                let data = Overtaken::of(c.received.iter());
                c.received
                    .push_front(NetItem::Event(NetEvent::Barrier(barrier)));
                overtaken = (data.bytes > 0).then_some((barrier.id, data));
            }
            other => c.received.push_back(other),
        }
        let ready = &mut self.ready[task as usize];
        ready.push(index);
        if priority {
            ready.push_priority(index);
        }
        Some(Arrived {
            task,
            index,
            overtaken,
        })
    }

    /// `requestFloatingBuffers(backlog + initialCredit)` from the gate's pool; each buffer granted
    /// is announced to the sender as credit.
    fn request_floating(
        &mut self,
        channel: GlobalChannelId,
        now: Micros,
        out: &mut Vec<NetEffect>,
    ) {
        let c = &self.channels[channel as usize];
        let want = c.floating_wanted();
        if want == 0 {
            return;
        }
        let waiting = c.waiting_for_floating;
        let gate = &mut self.gates[c.gate as usize];
        let granted = want.min(gate.floating_available);
        gate.floating_available -= granted;
        if granted < want && !waiting {
            gate.waiting.push_back(channel);
            self.channels[channel as usize].waiting_for_floating = true;
        }
        if granted > 0 {
            let c = &mut self.channels[channel as usize];
            c.floating += granted;
            out.push(NetEffect::Credit {
                channel,
                credit: granted,
                at: now + c.latency,
            });
        }
    }

    /// The consumer read a buffer of remote `channel`: a surplus floating buffer returns to the
    /// gate (and to a channel waiting for one); otherwise the freed buffer is new credit.
    pub fn remote_recycled(
        &mut self,
        channel: GlobalChannelId,
        now: Micros,
        out: &mut Vec<NetEffect>,
    ) {
        let c = &mut self.channels[channel as usize];
        c.held = c.held.saturating_sub(1);
        let latency = c.latency;
        if !c.floating_surplus() {
            out.push(NetEffect::Credit {
                channel,
                credit: 1,
                at: now + latency,
            });
            return;
        }
        c.floating -= 1;
        let gate = c.gate as usize;
        match self.gates[gate].waiting.pop_front() {
            Some(w) => {
                let wc = &mut self.channels[w as usize];
                wc.waiting_for_floating = false;
                wc.floating += 1;
                out.push(NetEffect::Credit {
                    channel: w,
                    credit: 1,
                    at: now + wc.latency,
                });
                if wc.floating_wanted() > 0 {
                    wc.waiting_for_floating = true;
                    self.gates[gate].waiting.push_back(w);
                }
            }
            None => self.gates[gate].floating_available += 1,
        }
    }

    /// Credit announced by `channel`'s consumer reached the sender.
    pub fn add_credit(&mut self, channel: GlobalChannelId, credit: u32) {
        let c = &self.channels[channel as usize];
        let (pid, sub) = (c.partition as usize, c.subpartition as usize);
        self.partitions[pid].subpartitions[sub].credit += credit;
    }

    /// `resumeConsumption` from a remote consumer reached the sender: the subpartition unblocks.
    pub fn resume_remote(&mut self, channel: GlobalChannelId) {
        let c = &self.channels[channel as usize];
        let (pid, sub) = (c.partition as usize, c.subpartition as usize);
        self.partitions[pid].subpartitions[sub].blocked = false;
    }
}
