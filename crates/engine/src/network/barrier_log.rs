//! What each checkpoint's barriers found queued ahead of them, and where the in-flight data of
//! unaligned ones came from, noted by the engine at the moment it happened. It lives with the
//! network it observes; `stats::why` reads it to answer "why was checkpoint N slow?".
//!
//! Flink's statistics keep only per-subtask durations and sizes; "why was it slow" needs the
//! queues the barrier met, which are gone by the time anyone asks. This log lives beside the
//! trace, not in it, so it leaves the run's fingerprint alone.

use std::collections::BTreeMap;

use super::{NetEvent, NetItem, Network, PartitionId};
use crate::types::{CheckpointId, Micros};

/// Checkpoints whose notes are kept: more than `web.checkpoints.history` usually shows, and
/// bounded, so a long run's memory stays flat.
pub const KEEP_CHECKPOINTS: u64 = 40;

/// Data ahead of one consumer subtask's barriers of one checkpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct QueuedAhead {
    /// Most data buffers queued ahead of the barrier on any one input channel when the producer
    /// emitted it: in its result subpartition, on the wire and in the channel's received queue.
    pub buffers: u32,
    /// Their bytes.
    pub bytes: u64,
    /// When the first and the last upstream subtask emitted this checkpoint's barrier to it.
    pub first_emitted: Micros,
    pub last_emitted: Micros,
}

/// Channel state one subtask persisted for an unaligned checkpoint (Flink's
/// `InputChannelStateHandle`s and `ResultSubpartitionStateHandle`s).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PersistedChannelState {
    /// Buffers the barrier overtook in the subtask's input channels.
    pub input: u64,
    /// Buffers the barrier overtook in the subtask's output subpartitions.
    pub output: u64,
}

#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct BarrierLog {
    /// (checkpoint, consumer task index) → data queued ahead of its barriers.
    queued: BTreeMap<(CheckpointId, u32), QueuedAhead>,
    /// (checkpoint, task index) → channel state it acknowledged (non-zero only).
    persisted: BTreeMap<(CheckpointId, u32), PersistedChannelState>,
    newest: CheckpointId,
}

impl BarrierLog {
    /// Data queued ahead of task `task`'s barriers of checkpoint `id`.
    pub fn queued_ahead(&self, id: CheckpointId, task: u32) -> Option<QueuedAhead> {
        self.queued.get(&(id, task)).copied()
    }

    /// Channel state each task persisted for checkpoint `id`, by task index.
    pub fn persisted(
        &self,
        id: CheckpointId,
    ) -> impl Iterator<Item = (u32, PersistedChannelState)> + '_ {
        self.persisted
            .range((id, 0)..=(id, u32::MAX))
            .map(|(&(_, task), &p)| (task, p))
    }

    /// Entries held (for tests of the bound).
    pub fn len(&self) -> usize {
        self.queued.len() + self.persisted.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Partition `pid` has just queued checkpoint `id`'s barrier in every subpartition. Counts,
    /// per consumer, the data buffers the barrier must wait behind. Nothing can get ahead of it
    /// later (subpartitions, wires and channels are FIFO), so this moment gives the most. An
    /// unaligned barrier overtakes the subpartition and the received queue; it waits behind
    /// nothing but the wire.
    pub(crate) fn barrier_emitted(
        &mut self,
        net: &Network,
        pid: PartitionId,
        id: CheckpointId,
        unaligned: bool,
        now: Micros,
    ) {
        self.advance_to(id);
        let p = &net.partitions[pid as usize];
        for (sub, s) in p.subpartitions.iter().enumerate() {
            let mut ahead = Ahead::default();
            if !unaligned {
                for item in &s.queue {
                    match item {
                        NetItem::Event(NetEvent::Barrier(b)) if b.id == id => break,
                        _ => ahead.add(item),
                    }
                }
            }
            let channel = &net.channels[p.consumer(sub) as usize];
            channel.wire.iter().for_each(|i| ahead.add(i));
            if !unaligned {
                channel.received.iter().for_each(|i| ahead.add(i));
            }
            let e = self
                .queued
                .entry((id, channel.task))
                .or_insert(QueuedAhead {
                    buffers: 0,
                    bytes: 0,
                    first_emitted: now,
                    last_emitted: now,
                });
            if (ahead.buffers, ahead.bytes) > (e.buffers, e.bytes) {
                e.buffers = ahead.buffers;
                e.bytes = ahead.bytes;
            }
            e.first_emitted = e.first_emitted.min(now);
            e.last_emitted = e.last_emitted.max(now);
        }
    }

    /// Task `task` acknowledged checkpoint `id` with this much channel state.
    pub(crate) fn acknowledged(&mut self, id: CheckpointId, task: u32, input: u64, output: u64) {
        if input == 0 && output == 0 {
            return;
        }
        self.advance_to(id);
        self.persisted
            .insert((id, task), PersistedChannelState { input, output });
    }

    /// Forgets checkpoints `KEEP_CHECKPOINTS` or more older than `id`.
    fn advance_to(&mut self, id: CheckpointId) {
        if id <= self.newest {
            return;
        }
        self.newest = id;
        let cut = (id.saturating_sub(KEEP_CHECKPOINTS - 1), 0);
        if self.queued.first_key_value().is_some_and(|(k, _)| *k < cut) {
            self.queued = self.queued.split_off(&cut);
        }
        if self
            .persisted
            .first_key_value()
            .is_some_and(|(k, _)| *k < cut)
        {
            self.persisted = self.persisted.split_off(&cut);
        }
    }
}

#[derive(Default)]
struct Ahead {
    buffers: u32,
    bytes: u64,
}

impl Ahead {
    fn add(&mut self, item: &NetItem) {
        if let NetItem::Buffer(b) = item {
            self.buffers += 1;
            self.bytes += u64::from(b.bytes);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_only_the_newest_checkpoints() {
        let mut log = BarrierLog::default();
        for id in 1..=100 {
            log.acknowledged(id, 0, 1, 0);
            log.acknowledged(id, 1, 0, 2);
        }
        assert_eq!(log.len(), 2 * KEEP_CHECKPOINTS as usize);
        assert_eq!(log.persisted(60).count(), 0);
        assert_eq!(log.persisted(61).count(), 2);
        assert_eq!(
            log.persisted(100).map(|(_, p)| p.output).sum::<u64>(),
            2,
            "task 1's output state"
        );
    }
}
