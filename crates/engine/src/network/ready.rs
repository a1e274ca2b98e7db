//! `SingleInputGate.inputChannelsWithData`: the channels of a task that may have something to
//! read, in the order they reported it, so a task never scans all of its channels.

use std::collections::VecDeque;

#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct InputReady {
    queue: VecDeque<u32>,
    queued: Vec<bool>,
    /// Channels with a priority event (an unaligned barrier) at their head.
    priority: VecDeque<u32>,
}

impl InputReady {
    pub fn new(channels: usize) -> Self {
        InputReady {
            queue: VecDeque::new(),
            queued: vec![false; channels],
            priority: VecDeque::new(),
        }
    }

    /// Channel `ch` (task-local index) may have data.
    pub fn push(&mut self, ch: u32) {
        if let Some(q) = self.queued.get_mut(ch as usize) {
            if !*q {
                *q = true;
                self.queue.push_back(ch);
            }
        }
    }

    pub fn pop(&mut self) -> Option<u32> {
        let ch = self.queue.pop_front()?;
        self.queued[ch as usize] = false;
        Some(ch)
    }

    pub fn peek(&self) -> Option<u32> {
        self.queue.front().copied()
    }

    pub fn push_priority(&mut self, ch: u32) {
        if !self.priority.contains(&ch) {
            self.priority.push_back(ch);
        }
    }

    pub fn pop_priority(&mut self) -> Option<u32> {
        self.priority.pop_front()
    }

    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }
}
