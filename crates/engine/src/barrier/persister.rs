//! `ChannelStatePersister`: which channels are recording in-flight data, and how many bytes each
//! recorded per checkpoint.
//!
//! The handler feeds it its own effects, so a replay tool that only has an effect log can rebuild
//! the same numbers with [`ChannelStatePersister::observe`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::event::HandlerEffect;
use crate::types::{ChannelIndex, CheckpointId};

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChannelStatePersister {
    /// Channel → checkpoint whose barrier it is still waiting for (`BARRIER_PENDING`).
    persisting: BTreeMap<ChannelIndex, CheckpointId>,
    /// (checkpoint, channel) → bytes persisted as input channel state.
    persisted: BTreeMap<(CheckpointId, ChannelIndex), u64>,
}

impl ChannelStatePersister {
    pub fn new() -> ChannelStatePersister {
        ChannelStatePersister::default()
    }

    /// Applies one handler effect; effects other than the persisting ones are ignored.
    pub fn observe(&mut self, effect: &HandlerEffect) {
        match *effect {
            HandlerEffect::StartPersisting { channel, id } => {
                self.persisting.insert(channel, id);
                // An entry with 0 bytes still shows the channel took part in the checkpoint.
                self.persisted.entry((id, channel)).or_insert(0);
            }
            // Only the checkpoint the channel records for can stop it.
            HandlerEffect::StopPersisting { channel, id }
                if self.persisting.get(&channel) == Some(&id) =>
            {
                self.persisting.remove(&channel);
            }
            HandlerEffect::PersistInFlight { channel, id, bytes } => {
                let entry = self.persisted.entry((id, channel)).or_insert(0);
                *entry = entry.saturating_add(bytes);
            }
            _ => {}
        }
    }

    /// The checkpoint `channel` is currently recording for, if any.
    pub fn persisting_for(&self, channel: ChannelIndex) -> Option<CheckpointId> {
        self.persisting.get(&channel).copied()
    }

    /// Channels currently recording, ascending.
    pub fn persisting_channels(&self) -> Vec<ChannelIndex> {
        self.persisting.keys().copied().collect()
    }

    pub fn persisted_bytes(&self, id: CheckpointId, channel: ChannelIndex) -> u64 {
        self.persisted.get(&(id, channel)).copied().unwrap_or(0)
    }

    /// `InputChannelState` size of checkpoint `id` summed over channels.
    pub fn persisted_bytes_total(&self, id: CheckpointId) -> u64 {
        self.persisted
            .range((id, 0)..=(id, ChannelIndex::MAX))
            .fold(0u64, |sum, (_, b)| sum.saturating_add(*b))
    }

    /// Per channel bytes of checkpoint `id`, ascending by channel.
    pub fn persisted_by_channel(&self, id: CheckpointId) -> Vec<(ChannelIndex, u64)> {
        self.persisted
            .range((id, 0)..=(id, ChannelIndex::MAX))
            .map(|((_, ch), b)| (*ch, *b))
            .collect()
    }

    /// Checkpoints with any recorded channel, ascending.
    pub fn checkpoint_ids(&self) -> Vec<CheckpointId> {
        let mut ids: Vec<CheckpointId> = self.persisted.keys().map(|(id, _)| *id).collect();
        ids.dedup();
        ids
    }

    /// Drops the accounting of checkpoints `<= id` (completed or subsumed) so a long run stays small.
    pub fn discard_up_to(&mut self, id: CheckpointId) {
        self.persisted = self.persisted.split_off(&(id.saturating_add(1), 0));
        if id == CheckpointId::MAX {
            self.persisted.clear();
        }
    }
}
