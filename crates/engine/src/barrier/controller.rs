//! What the handler states act on: Flink's `ChannelState` (blocked and announced channels) plus the
//! `BarrierHandlerState.Controller` the handler gives its states (trigger, alignment checks,
//! input channel-state start/stop). States only touch the task through [`Core::emit`].

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::event::HandlerEffect;
use super::metrics::AlignmentMetrics;
use super::options::CheckpointBarrier;
use super::persister::ChannelStatePersister;
use crate::types::{ChannelIndex, CheckpointId, Micros};

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Core {
    pub num_channels: u32,
    /// `ChannelState.blockedChannels`: aligned barrier consumed, upstream stopped sending.
    pub blocked: BTreeSet<ChannelIndex>,
    /// `ChannelState.sequenceNumberInAnnouncedChannels`: announcement seen, barrier not yet; the
    /// barrier's sequence number. Only the aligned-with-timeout states keep them.
    #[serde(default)]
    pub announced: BTreeMap<ChannelIndex, u32>,
    /// Channels that delivered `EndOfPartition`.
    pub finished: BTreeSet<ChannelIndex>,
    /// `alignedChannels`: barrier (or end of partition) seen for the pending checkpoint.
    pub aligned: BTreeSet<ChannelIndex>,
    pub target_channel_count: u32,
    pub pending_barrier: Option<CheckpointBarrier>,
    /// The pending checkpoint was triggered unaligned, so its input side finishes later.
    pub triggered_unaligned: bool,
    pub metrics: AlignmentMetrics,
    pub persister: ChannelStatePersister,
    pub now: Micros,
    pub effects: Vec<HandlerEffect>,
}

impl Core {
    pub fn new(num_channels: u32) -> Core {
        Core {
            num_channels,
            blocked: BTreeSet::new(),
            announced: BTreeMap::new(),
            finished: BTreeSet::new(),
            aligned: BTreeSet::new(),
            target_channel_count: 0,
            pending_barrier: None,
            triggered_unaligned: false,
            metrics: AlignmentMetrics::default(),
            persister: ChannelStatePersister::new(),
            now: 0,
            effects: Vec::new(),
        }
    }

    /// Every effect passes the persister so its accounting equals a replay of the effect log.
    pub fn emit(&mut self, effect: HandlerEffect) {
        self.persister.observe(&effect);
        self.effects.push(effect);
    }

    pub fn error(&mut self, message: String) {
        self.emit(HandlerEffect::Error { message });
    }

    pub fn block_channel(&mut self, channel: ChannelIndex) {
        if self.blocked.insert(channel) {
            self.emit(HandlerEffect::BlockChannel { channel });
        }
    }

    /// `ChannelState.channelFinished`: a finished channel is neither blocked, announced nor
    /// recording.
    pub fn channel_finished(&mut self, channel: ChannelIndex) {
        self.blocked.remove(&channel);
        self.announced.remove(&channel);
        if let Some(id) = self.persister.persisting_for(channel) {
            self.emit(HandlerEffect::StopPersisting { channel, id });
        }
    }

    /// `ChannelState.unblockAllChannels`, in channel order so runs are reproducible.
    pub fn unblock_all_channels(&mut self) {
        let blocked = std::mem::take(&mut self.blocked);
        for channel in blocked {
            self.emit(HandlerEffect::ResumeConsumption { channel });
        }
    }

    pub fn add_seen_announcement(&mut self, channel: ChannelIndex, sequence_number: u32) {
        self.announced.insert(channel, sequence_number);
    }

    /// The channel's barrier arrived: nothing left to prioritize there.
    pub fn remove_seen_announcement(&mut self, channel: ChannelIndex) {
        self.announced.remove(&channel);
    }

    /// `ChannelState.prioritizeAllAnnouncements`, on the switch to unaligned: every announced
    /// barrier overtakes its channel's data, so the checkpoint need not wait for that data.
    pub fn prioritize_all_announcements(&mut self) {
        for (channel, sequence_number) in std::mem::take(&mut self.announced) {
            self.convert_to_priority_event(channel, sequence_number);
        }
    }

    pub fn convert_to_priority_event(&mut self, channel: ChannelIndex, sequence_number: u32) {
        self.emit(HandlerEffect::ConvertToPriorityEvent {
            channel,
            sequence_number,
        });
    }

    /// `ChannelState.emptyState`: the checkpoint is over, its announcements with it.
    pub fn empty_state(&mut self) {
        self.announced.clear();
    }

    pub fn all_barriers_received(&self) -> bool {
        self.aligned.len() as u64 == u64::from(self.target_channel_count)
    }

    pub fn is_timed_out(&self, barrier: &CheckpointBarrier) -> bool {
        barrier.is_timed_out(self.now)
    }

    /// True when the pending checkpoint started aligned here, so going unaligned is a switch.
    pub fn pending_started_aligned(&self) -> bool {
        self.pending_barrier
            .is_some_and(|b| !b.options.is_unaligned())
    }

    /// `notifyCheckpoint` → `triggerCheckpointOnBarrier` with the metrics known now.
    pub fn trigger_global_checkpoint(&mut self, barrier: CheckpointBarrier) {
        let m = self.metrics.snapshot(barrier.id, self.now);
        if barrier.options.is_unaligned() {
            self.triggered_unaligned = true;
        }
        self.emit(HandlerEffect::TriggerCheckpoint {
            barrier,
            start_delay: m.start_delay,
            alignment_duration: m.alignment_duration,
            bytes_processed_during_alignment: m.bytes_processed_during_alignment,
        });
    }

    /// `input.checkpointStarted(barrier)` on all inputs: every open channel whose barrier has not
    /// been seen yet records what it delivers until its barrier.
    pub fn checkpoint_started(&mut self, barrier: &CheckpointBarrier) {
        for channel in 0..self.num_channels {
            if self.finished.contains(&channel) || self.aligned.contains(&channel) {
                continue;
            }
            if self.persister.persisting_for(channel) == Some(barrier.id) {
                continue;
            }
            self.emit(HandlerEffect::StartPersisting {
                channel,
                id: barrier.id,
            });
        }
    }

    /// `input.checkpointStopped`: whatever still records stops (checkpoint done or aborted).
    pub fn checkpoint_stopped(&mut self) {
        for channel in self.persister.persisting_channels() {
            if let Some(id) = self.persister.persisting_for(channel) {
                self.emit(HandlerEffect::StopPersisting { channel, id });
            }
        }
    }

    /// The final numbers of an unaligned-triggered checkpoint once its alignment ended.
    pub fn input_channel_state_complete(&mut self, id: CheckpointId) {
        let m = self.metrics.snapshot(id, self.now);
        let persisted_bytes = self.persister.persisted_bytes_total(id);
        self.emit(HandlerEffect::InputChannelStateComplete {
            id,
            alignment_duration: m.alignment_duration,
            bytes_processed_during_alignment: m.bytes_processed_during_alignment,
            persisted_bytes,
        });
    }
}
