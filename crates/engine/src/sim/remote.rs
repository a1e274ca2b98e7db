//! Remote channels: credit-based flow control between a `PipelinedSubpartition` and a
//! `RemoteInputChannel` (flink-defaults §2). Data buffers go on the wire only against credit;
//! events need none. Local channels bypass all of this.

use super::{Event, Simulation};
use crate::network::{NetEvent, NetItem, ResultPartition};

impl Simulation {
    /// `CreditBasedSequenceNumberingViewReader`: sends what credit allows, in queue order.
    pub(crate) fn try_send(&mut self, channel: u32) {
        let now = self.now;
        let (pid, sub) = {
            let c = &self.net.channels[channel as usize];
            (c.partition as usize, c.subpartition as usize)
        };
        loop {
            let p = &mut self.net.partitions[pid];
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
                let was = p.is_available();
                p.recycle(sub);
                if !was && p.is_available() {
                    let producer = p.producer;
                    self.schedule_wake(producer, now);
                }
            }
            let c = &mut self.net.channels[channel as usize];
            if is_buffer {
                c.in_transit += 1;
            }
            let start = c.link_free_at.max(now);
            let throughput = self.params.network_throughput.max(1);
            // The same quotient as in u128, without the slow 128-bit division when u64 suffices.
            let transfer = match bytes.checked_mul(1_000_000) {
                Some(scaled) => scaled / throughput,
                None => (u128::from(bytes) * 1_000_000 / u128::from(throughput)) as u64,
            };
            c.link_free_at = start + transfer;
            let arrival = start + transfer + c.latency;
            // The link delivers in order, so the event need not carry (and allocate) the item.
            c.wire.push_back(item);
            // Scripted `network-delay` on this channel's edge (0 without edge faults); it never
            // reorders a link's arrivals, so the FIFO above stays right.
            let arrival = arrival + self.injected_network_delay(channel, start + transfer);
            self.queue
                .push(arrival, Event::NetArrive { channel, backlog });
        }
    }

    /// `RemoteInputChannel.onBuffer`: queue it, announce the backlog, request floating buffers.
    pub(crate) fn net_arrive(&mut self, channel: u32, backlog: u32) {
        let now = self.now;
        let c = &mut self.net.channels[channel as usize];
        let Some(item) = c.wire.pop_front() else {
            return;
        };
        let task = c.task;
        let index = c.index;
        let priority =
            matches!(&item, NetItem::Event(NetEvent::Barrier(b)) if b.options.is_unaligned());
        match item {
            NetItem::Buffer(b) => {
                c.in_transit = c.in_transit.saturating_sub(1);
                c.held += 1;
                c.backlog = backlog;
                c.received.push_back(NetItem::Buffer(b));
                self.request_floating(channel);
            }
            NetItem::Event(NetEvent::Barrier(barrier)) if barrier.options.is_unaligned() => {
                // A priority event overtakes what is queued in the channel; that data becomes the
                // consumer's input channel state.
                let overtaken = crate::network::Overtaken::of(c.received.iter());
                let id = barrier.id;
                c.received
                    .push_front(NetItem::Event(NetEvent::Barrier(barrier)));
                if overtaken.bytes > 0 {
                    let entry = self.tasks[task as usize]
                        .checkpointing
                        .overtaken_input
                        .entry(id)
                        .or_default();
                    entry.0 += overtaken.bytes;
                    entry.1.push((index, overtaken.records));
                    let overtaken = overtaken.bytes;
                    self.trace.record(
                        now,
                        Some(self.tasks[task as usize].id),
                        crate::trace::TraceKind::InFlightPersisted {
                            id,
                            channel: index,
                            bytes: overtaken,
                        },
                    );
                }
            }
            other => c.received.push_back(other),
        }
        let ready = &mut self.net.ready[task as usize];
        ready.push(index);
        if priority {
            ready.push_priority(index);
        }
        self.schedule_wake(task, now);
    }

    /// `requestFloatingBuffers(backlog + initialCredit)` from the gate's pool; each buffer granted
    /// is announced to the sender as credit.
    fn request_floating(&mut self, channel: u32) {
        let c = &self.net.channels[channel as usize];
        let want = c.floating_wanted();
        if want == 0 {
            return;
        }
        let waiting = c.waiting_for_floating;
        let gate = &mut self.net.gates[c.gate as usize];
        let granted = want.min(gate.floating_available);
        gate.floating_available -= granted;
        if granted < want && !waiting {
            gate.waiting.push_back(channel);
            self.net.channels[channel as usize].waiting_for_floating = true;
        }
        if granted > 0 {
            let c = &mut self.net.channels[channel as usize];
            c.floating += granted;
            let latency = c.latency;
            self.queue.push(
                self.now + latency,
                Event::CreditArrive {
                    channel,
                    credit: granted,
                },
            );
        }
    }

    /// The task read a buffer of a remote channel: a surplus floating buffer returns to the gate
    /// (and to a channel waiting for one); otherwise the freed buffer is new credit.
    pub(crate) fn remote_recycled(&mut self, channel: u32) {
        let now = self.now;
        let c = &mut self.net.channels[channel as usize];
        c.held = c.held.saturating_sub(1);
        let latency = c.latency;
        if c.floating_surplus() {
            c.floating -= 1;
            let gate = c.gate as usize;
            let waiting = self.net.gates[gate].waiting.pop_front();
            match waiting {
                Some(w) => {
                    let wc = &mut self.net.channels[w as usize];
                    wc.waiting_for_floating = false;
                    wc.floating += 1;
                    let l = wc.latency;
                    self.queue.push(
                        now + l,
                        Event::CreditArrive {
                            channel: w,
                            credit: 1,
                        },
                    );
                    if wc.floating_wanted() > 0 {
                        wc.waiting_for_floating = true;
                        self.net.gates[gate].waiting.push_back(w);
                    }
                }
                None => self.net.gates[gate].floating_available += 1,
            }
        } else {
            self.queue
                .push(now + latency, Event::CreditArrive { channel, credit: 1 });
        }
    }

    pub(crate) fn credit_arrive(&mut self, channel: u32, credit: u32) {
        let c = &self.net.channels[channel as usize];
        let (pid, sub) = (c.partition as usize, c.subpartition as usize);
        self.net.partitions[pid].subpartitions[sub].credit += credit;
        self.try_send(channel);
    }

    pub(crate) fn resume_arrive(&mut self, channel: u32) {
        let c = &self.net.channels[channel as usize];
        let (pid, sub) = (c.partition as usize, c.subpartition as usize);
        self.net.partitions[pid].subpartitions[sub].blocked = false;
        self.try_send(channel);
    }
}
