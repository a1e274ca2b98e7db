//! The event loop's side of the shared channel-state files (`crate::channel_state`): grouping at
//! deploy, closing a group's file after its write, releasing finished tasks.

use super::{Event, Simulation};
use crate::channel_state::{ChannelStateFileDone, ChannelStateWriters};
use crate::scenario::JobGraph;
use crate::types::{CheckpointId, MICROS_PER_SEC};

/// The writers for a freshly deployed job: groups per TaskManager when unaligned checkpoints are
/// enabled (only then does a task create a `ChannelStateWriter`), none otherwise.
pub(super) fn channel_state_writers(graph: &JobGraph, taskmanager: &[u32]) -> ChannelStateWriters {
    let c = &graph.config;
    if c.unaligned_enabled {
        ChannelStateWriters::new(taskmanager, c.max_subtasks_per_channel_state_file)
    } else {
        ChannelStateWriters::disabled(taskmanager.len())
    }
}

impl Simulation {
    /// Every member of a group finished its channel state. The executor has been writing since
    /// the first member started; it finishes writing, closes the file (none at all when nothing
    /// was written), and the members' futures complete.
    pub(super) fn close_channel_state_file(&mut self, done: ChannelStateFileDone) {
        let p = &self.params.task;
        let at = if done.bytes == 0 {
            self.now
        } else {
            let write = (u128::from(done.bytes) * u128::from(MICROS_PER_SEC)
                / u128::from(p.storage_write_throughput.max(1))) as u64;
            self.now
                .max(done.opened_at.saturating_add(write))
                .saturating_add(p.storage_write_latency)
        };
        self.queue.push(
            at,
            Event::ChannelStateWritten {
                group: done.group,
                id: done.id,
            },
        );
    }

    /// A task stopped running: files no longer wait for it.
    pub(super) fn release_channel_state(&mut self, task: u32) {
        for done in self.channel_state.release(task) {
            self.close_channel_state_file(done);
        }
    }

    /// A checkpoint ended (completed or aborted): files still open for it or older ones are
    /// dropped, so nothing accumulates.
    pub(super) fn drop_channel_state_files(&mut self, id: CheckpointId) {
        self.channel_state.abort_up_to(id);
    }
}
