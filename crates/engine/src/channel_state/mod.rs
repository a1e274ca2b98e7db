//! Flink's `org.apache.flink.runtime.checkpoint.channel`: where unaligned checkpoints write
//! their in-flight data.
//!
//! Since Flink 1.17 (FLINK-26803) the subtasks of one job on one TaskManager share a channel
//! state executor, up to `execution.checkpointing.unaligned.max-subtasks-per-channel-state-file`
//! (default 5) subtasks each, and their channel state for one checkpoint goes into **one file**
//! (`ChannelStateWriteRequestExecutorFactory`, `ChannelStateCheckpointWriter`). The file is closed,
//! and every member's channel-state future completes, only when every member has started that
//! checkpoint and finished both its input and its output side (`tryFinishResult`). A member's
//! async phase waits for that future, so the members acknowledge together: the sources' acks wait
//! until the consumers have seen their last barrier.
//!
//! Pure bookkeeping: the event loop reports starts and completions and schedules the file write.

use std::collections::{BTreeMap, BTreeSet};

use crate::types::{CheckpointId, Micros};

/// The channel state file of one group for one checkpoint (`ChannelStateCheckpointWriter`).
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
struct CheckpointWriter {
    /// Members that have not started the checkpoint yet (`subtasksToRegister`).
    to_register: BTreeSet<u32>,
    /// Members that started and have not finished both sides yet.
    pending: BTreeSet<u32>,
    bytes: u64,
    /// When the first member started: the executor writes buffers as they are handed over, so
    /// the file is written from here on, not only once it can be closed.
    opened_at: Option<Micros>,
}

/// The file of a group is complete: close it (after writing `bytes`) and tell `members`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChannelStateFileDone {
    pub group: u32,
    pub id: CheckpointId,
    pub members: Vec<u32>,
    pub bytes: u64,
    /// When the first member started the checkpoint (writing began).
    pub opened_at: Micros,
}

/// Every channel state executor of the job (`ChannelStateWriteRequestExecutorFactory`, one per
/// TaskManager) and their open files.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct ChannelStateWriters {
    /// Each task's group, `None` when the job does not use unaligned checkpoints.
    group_of: Vec<Option<u32>>,
    groups: Vec<Vec<u32>>,
    writers: BTreeMap<(u32, CheckpointId), CheckpointWriter>,
}

impl ChannelStateWriters {
    /// Groups tasks as they register on their TaskManager, in deployment order: a new executor
    /// once the current one has `max_subtasks` members. `taskmanager[task]` is each task's TM.
    pub fn new(taskmanager: &[u32], max_subtasks: u32) -> Self {
        let max = max_subtasks.max(1) as usize;
        let mut group_of = vec![None; taskmanager.len()];
        let mut groups: Vec<Vec<u32>> = Vec::new();
        let mut open: BTreeMap<u32, u32> = BTreeMap::new();
        for (task, tm) in taskmanager.iter().enumerate() {
            let group = match open.get(tm) {
                Some(&g) if groups[g as usize].len() < max => g,
                _ => {
                    groups.push(Vec::new());
                    let g = groups.len() as u32 - 1;
                    open.insert(*tm, g);
                    g
                }
            };
            groups[group as usize].push(task as u32);
            group_of[task] = Some(group);
        }
        ChannelStateWriters {
            group_of,
            groups,
            writers: BTreeMap::new(),
        }
    }

    /// No shared files: unaligned checkpoints are off, tasks write no channel state.
    pub fn disabled(tasks: usize) -> Self {
        ChannelStateWriters {
            group_of: vec![None; tasks],
            ..Default::default()
        }
    }

    /// The tasks sharing `group`'s files.
    pub fn group_members(&self, group: u32) -> &[u32] {
        self.groups
            .get(group as usize)
            .map_or(&[], |g| g.as_slice())
    }

    fn writer(
        &mut self,
        task: u32,
        id: CheckpointId,
        live: &dyn Fn(u32) -> bool,
    ) -> Option<(u32, &mut CheckpointWriter)> {
        let group = self.group_of.get(task as usize).copied().flatten()?;
        let members = &self.groups[group as usize];
        let writer = self.writers.entry((group, id)).or_insert_with(|| {
            // Members that are no longer running (finished, failed) were released from the
            // executor and are not waited for (`releaseSubtask`).
            CheckpointWriter {
                to_register: members.iter().copied().filter(|m| live(*m)).collect(),
                ..Default::default()
            }
        });
        Some((group, writer))
    }

    /// `task` started checkpoint `id` at `now` (`ChannelStateWriter.start`).
    pub fn start(&mut self, task: u32, id: CheckpointId, now: Micros, live: &dyn Fn(u32) -> bool) {
        if let Some((_, w)) = self.writer(task, id, live) {
            w.to_register.remove(&task);
            w.pending.insert(task);
            w.opened_at.get_or_insert(now);
        }
    }

    /// `task` finished both sides of `id` with `bytes` of channel state; the file is done when
    /// this was the last member.
    pub fn complete(
        &mut self,
        task: u32,
        id: CheckpointId,
        bytes: u64,
        now: Micros,
        live: &dyn Fn(u32) -> bool,
    ) -> Option<ChannelStateFileDone> {
        let (group, w) = self.writer(task, id, live)?;
        w.opened_at.get_or_insert(now);
        w.to_register.remove(&task);
        w.pending.remove(&task);
        w.bytes += bytes;
        self.try_finish(group, id)
    }

    fn try_finish(&mut self, group: u32, id: CheckpointId) -> Option<ChannelStateFileDone> {
        let w = self.writers.get(&(group, id))?;
        if !w.to_register.is_empty() || !w.pending.is_empty() {
            return None;
        }
        let w = self.writers.remove(&(group, id))?;
        Some(ChannelStateFileDone {
            group,
            id,
            members: self.groups[group as usize].clone(),
            bytes: w.bytes,
            opened_at: w.opened_at.unwrap_or(0),
        })
    }

    /// `id` was aborted or subsumed: its open files are dropped (`ChannelStateWriter.abort`).
    pub fn abort_up_to(&mut self, id: CheckpointId) {
        self.writers.retain(|(_, cid), _| *cid > id);
    }

    /// `task` stopped running (finished or failed): no file waits for it any more. Returns the
    /// files this completes.
    pub fn release(&mut self, task: u32) -> Vec<ChannelStateFileDone> {
        let Some(group) = self.group_of.get(task as usize).copied().flatten() else {
            return Vec::new();
        };
        let ids: Vec<CheckpointId> = self
            .writers
            .iter_mut()
            .filter(|((g, _), _)| *g == group)
            .filter_map(|((_, id), w)| w.to_register.remove(&task).then_some(*id))
            .collect();
        ids.into_iter()
            .filter_map(|id| self.try_finish(group, id))
            .collect()
    }
}

#[cfg(test)]
impl ChannelStateWriters {
    fn is_enabled(&self) -> bool {
        !self.groups.is_empty()
    }

    /// The members of `task`'s group (just `task` when there are no groups).
    fn members(&self, task: u32) -> Vec<u32> {
        match self.group_of.get(task as usize).copied().flatten() {
            Some(g) => self.groups[g as usize].clone(),
            None => vec![task],
        }
    }

    fn open_files(&self) -> usize {
        self.writers.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(_: u32) -> bool {
        true
    }

    #[test]
    fn groups_fill_up_per_taskmanager_in_deployment_order() {
        // Seven tasks on TM 0, two on TM 1, max 5 per file.
        let tms = [0, 0, 0, 0, 0, 0, 0, 1, 1];
        let w = ChannelStateWriters::new(&tms, 5);
        assert_eq!(w.members(0), vec![0, 1, 2, 3, 4]);
        assert_eq!(w.members(6), vec![5, 6]);
        assert_eq!(w.members(8), vec![7, 8]);
        assert!(w.is_enabled());
        assert!(!ChannelStateWriters::disabled(3).is_enabled());
        assert_eq!(ChannelStateWriters::disabled(3).members(2), vec![2]);
    }

    #[test]
    fn the_file_completes_only_when_every_member_started_and_finished() {
        let mut w = ChannelStateWriters::new(&[0, 0, 0], 5);
        w.start(0, 1, 0, &all);
        assert_eq!(
            w.complete(0, 1, 100, 0, &all),
            None,
            "1 and 2 not registered yet"
        );
        w.start(1, 1, 0, &all);
        assert_eq!(w.complete(1, 1, 50, 0, &all), None, "2 not registered yet");
        w.start(2, 1, 0, &all);
        let done = w.complete(2, 1, 0, 0, &all).expect("all three done");
        assert_eq!(done.members, vec![0, 1, 2]);
        assert_eq!(done.bytes, 150);
        assert_eq!(w.open_files(), 0);
    }

    #[test]
    fn a_released_member_is_not_waited_for_and_aborts_drop_files() {
        let mut w = ChannelStateWriters::new(&[0, 0], 5);
        w.start(0, 3, 0, &all);
        assert_eq!(w.complete(0, 3, 10, 0, &all), None);
        let done = w.release(1);
        assert_eq!(done.len(), 1, "task 1 finished: nothing else to wait for");
        assert_eq!(done[0].bytes, 10);
        // A member that is not live when the file opens is not waited for either.
        let mut w = ChannelStateWriters::new(&[0, 0], 5);
        assert!(w.complete(0, 4, 0, 0, &|t| t == 0).is_some());
        // Aborts drop open files.
        let mut w = ChannelStateWriters::new(&[0, 0], 5);
        w.start(0, 5, 0, &all);
        w.start(0, 6, 0, &all);
        w.abort_up_to(5);
        assert_eq!(w.open_files(), 1);
    }
}
