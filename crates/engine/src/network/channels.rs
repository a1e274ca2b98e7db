//! An input channel as its consumer sees it, whatever its kind: `LocalInputChannel` reads the
//! producer's subpartition directly; `RemoteInputChannel` reads what arrived over the wire. The
//! task asks these questions by channel id and never switches on the kind itself; what it must
//! do in turn (wake a task, tell a sender) comes back as a value.

use super::{GlobalChannelId, NetBuffer, NetEvent, NetItem, Network, PartitionId};

/// After [`Network::notify_consumer`]: whom new data in a subpartition concerns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Notified {
    /// A local consumer task, already marked ready on that channel: wake it.
    Local { task: u32 },
    /// A remote channel: its sender may put the data on the wire.
    Remote { channel: GlobalChannelId },
}

/// After [`Network::resume_consumption`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resumed {
    /// The local subpartition is unblocked and the channel queued as ready.
    Local,
    /// The sender must be told (`ResumeConsumption` travels upstream).
    Remote,
}

/// After [`Network::recycle`]: what the returned buffer frees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recycled {
    /// A remote channel's buffer: it becomes credit for the sender.
    Remote,
    /// A local channel's buffer went back to the producer's pool; `Some(task)` when that made
    /// the producer's pool available again (wake the producer).
    Local { producer_woken: Option<u32> },
}

impl Network {
    /// What channel `g` offers next: `None` (nothing), `Some(true)` a data buffer,
    /// `Some(false)` an event.
    pub fn next_kind(&self, g: GlobalChannelId) -> Option<bool> {
        let c = self.routes[g as usize];
        if c.local {
            let p = &self.partitions[c.partition as usize];
            let sub = c.subpartition as usize;
            p.has_available(sub).then(|| p.next_is_buffer(sub))
        } else {
            self.channels[g as usize]
                .received
                .front()
                .map(|i| matches!(i, NetItem::Buffer(_)))
        }
    }

    /// Whether channel `g`'s next item is a priority event (an unaligned barrier).
    pub fn head_is_priority(&self, g: GlobalChannelId) -> bool {
        let c = self.routes[g as usize];
        if c.local {
            self.partitions[c.partition as usize].head_is_priority(c.subpartition as usize)
        } else {
            matches!(
                self.channels[g as usize].received.front(),
                Some(NetItem::Event(NetEvent::Barrier(b))) if b.options.is_unaligned()
            )
        }
    }

    /// Takes channel `g`'s next item.
    pub fn take(&mut self, g: GlobalChannelId) -> Option<NetItem> {
        let c = self.routes[g as usize];
        if c.local {
            self.partitions[c.partition as usize].take(c.subpartition as usize)
        } else {
            self.channels[g as usize].received.pop_front()
        }
    }

    /// `resumeConsumption` after an aligned barrier blocked channel `g`.
    pub fn resume_consumption(&mut self, g: GlobalChannelId) -> Resumed {
        let c = self.routes[g as usize];
        if c.local {
            let sub = &mut self.partitions[c.partition as usize].subpartitions;
            sub[c.subpartition as usize].blocked = false;
            self.ready[c.task as usize].push(c.index);
            Resumed::Local
        } else {
            Resumed::Remote
        }
    }

    /// The buffer read from channel `g` is done. Its records' memory goes back to the producer
    /// for its next buffer; a flushed slice shares the producer's builder, so a local one has
    /// nothing else to return yet.
    pub fn recycle(&mut self, g: GlobalChannelId, buffer: NetBuffer) -> Recycled {
        let c = self.routes[g as usize];
        self.partitions[c.partition as usize].give_back(buffer.records);
        if !c.local {
            return Recycled::Remote;
        }
        if buffer.slice {
            return Recycled::Local {
                producer_woken: None,
            };
        }
        Recycled::Local {
            producer_woken: self.partitions[c.partition as usize]
                .recycle_waking(c.subpartition as usize),
        }
    }

    /// New data in subpartition `sub` of `pid`: a local consumer is marked ready on the channel
    /// (and on its priority queue when the head is an unaligned barrier).
    pub fn notify_consumer(&mut self, pid: PartitionId, sub: u32) -> Notified {
        let p = &self.partitions[pid as usize];
        let (g, priority) = (p.consumer(sub as usize), p.head_is_priority(sub as usize));
        let c = self.routes[g as usize];
        if !c.local {
            return Notified::Remote { channel: g };
        }
        let ready = &mut self.ready[c.task as usize];
        ready.push(c.index);
        if priority {
            ready.push_priority(c.index);
        }
        Notified::Local { task: c.task }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::barrier::{CheckpointBarrier, CheckpointOptions, CheckpointType};
    use crate::network::{ChannelKind, ChannelRoute, InputChannel, InputReady, Record};
    use crate::network::{InputGate, ResultPartition};

    /// Producer task 0 with one partition of two subpartitions: channel 0 local to consumer
    /// task 1 (its channel 0), channel 1 remote to consumer task 2 (its channel 0).
    fn network() -> Network {
        let channels = vec![
            InputChannel::new(ChannelKind::Local, 0, 0, 1, 0, 0, 0),
            InputChannel::new(ChannelKind::Remote, 0, 1, 2, 0, 1, 100),
        ];
        Network {
            partitions: vec![ResultPartition::new(0, vec![0, 1], 32 * 1024)],
            routes: channels.iter().map(ChannelRoute::of).collect(),
            channels,
            gates: vec![InputGate::default(), InputGate::default()],
            ready: (0..3).map(|_| InputReady::new(1)).collect(),
        }
    }

    fn barrier(unaligned: bool) -> NetEvent {
        NetEvent::Barrier(CheckpointBarrier {
            id: 1,
            timestamp: 0,
            options: CheckpointOptions::for_config(CheckpointType::Checkpoint, true, unaligned, 0),
        })
    }

    #[test]
    fn a_local_channel_reads_the_subpartition_and_returns_its_buffer_to_the_pool() {
        let mut net = network();
        assert_eq!(net.next_kind(0), None);
        net.partitions[0].emit(0, Record::new(1, 0, 0, 0, 32 * 1024));
        assert_eq!(net.notify_consumer(0, 0), Notified::Local { task: 1 });
        assert_eq!(
            net.ready[1].pop(),
            Some(0),
            "the consumer's channel 0 is ready"
        );
        assert_eq!(net.next_kind(0), Some(true));
        let Some(NetItem::Buffer(b)) = net.take(0) else {
            panic!("a buffer")
        };
        assert_eq!(
            net.recycle(0, b),
            Recycled::Local {
                producer_woken: None
            }
        );
        // An aligned barrier blocks the subpartition until resumeConsumption.
        net.partitions[0].broadcast_event(barrier(false));
        assert_eq!(net.next_kind(0), Some(false));
        assert!(!net.head_is_priority(0));
        assert!(matches!(net.take(0), Some(NetItem::Event(_))));
        net.partitions[0].emit(0, Record::new(1, 0, 1, 0, 32 * 1024));
        assert_eq!(net.next_kind(0), None, "blocked");
        assert_eq!(net.resume_consumption(0), Resumed::Local);
        assert_eq!(
            net.ready[1].pop(),
            Some(0),
            "resumed channels are ready again"
        );
        assert_eq!(net.next_kind(0), Some(true));
    }

    #[test]
    fn a_full_pool_wakes_its_producer_when_a_local_buffer_comes_back() {
        let mut net = network();
        for seq in 0..10 {
            net.partitions[0].emit(0, Record::new(1, 0, seq, 0, 32 * 1024));
        }
        assert!(!net.partitions[0].is_available());
        let Some(NetItem::Buffer(b)) = net.take(0) else {
            panic!("a buffer")
        };
        assert_eq!(
            net.recycle(0, b),
            Recycled::Local {
                producer_woken: Some(0)
            }
        );
    }

    #[test]
    fn a_remote_channel_reads_what_arrived_and_answers_with_the_sender() {
        let mut net = network();
        net.partitions[0].emit(1, Record::new(1, 0, 0, 0, 32 * 1024));
        assert_eq!(net.notify_consumer(0, 1), Notified::Remote { channel: 1 });
        assert!(
            net.ready[2].is_empty(),
            "a remote consumer waits for the wire"
        );
        assert_eq!(net.next_kind(1), None, "nothing arrived yet");
        let item = net.partitions[0].take(1).unwrap();
        net.channels[1].received.push_back(item);
        net.channels[1]
            .received
            .push_back(NetItem::Event(barrier(true)));
        assert_eq!(net.next_kind(1), Some(true));
        assert!(!net.head_is_priority(1));
        let Some(NetItem::Buffer(b)) = net.take(1) else {
            panic!("a buffer")
        };
        assert!(net.head_is_priority(1), "an unaligned barrier is next");
        assert_eq!(net.recycle(1, b), Recycled::Remote);
        assert_eq!(net.resume_consumption(1), Resumed::Remote);
    }
}
