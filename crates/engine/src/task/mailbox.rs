//! `TaskMailbox`: everything but record processing reaches a task as a mail. Urgent mails
//! (unaligned checkpoint triggers, `MailOptions.urgent()`) jump the queue.

use std::collections::VecDeque;

use crate::barrier::CheckpointBarrier;
use crate::trace::MAIL_NAMES;
use crate::types::CheckpointId;

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Mail {
    /// `StreamTask.triggerCheckpointAsync` on a source.
    TriggerCheckpoint {
        barrier: CheckpointBarrier,
    },
    NotifyCheckpointComplete {
        id: CheckpointId,
    },
    NotifyCheckpointAborted {
        id: CheckpointId,
    },
    /// Processing-time timers are due (`SystemProcessingTimeService` callbacks).
    ProcessingTimeTimers,
    /// The aligned-checkpoint timeout of `id` (`BarrierAlignmentUtil` timer).
    AlignmentTimeout {
        id: CheckpointId,
    },
    /// `StreamTask.debloat`, every `buffer-debloat.period` ("Buffer size recalculation").
    BufferDebloat,
}

impl Mail {
    pub fn name(&self) -> &'static str {
        MAIL_NAMES[match self {
            Mail::TriggerCheckpoint { .. } => 0,
            Mail::NotifyCheckpointComplete { .. } => 1,
            Mail::NotifyCheckpointAborted { .. } => 2,
            Mail::ProcessingTimeTimers => 3,
            Mail::AlignmentTimeout { .. } => 4,
            Mail::BufferDebloat => 5,
        }]
    }
}

#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Mailbox {
    queue: VecDeque<Mail>,
    urgent: usize,
}

impl Mailbox {
    pub fn put(&mut self, mail: Mail, urgent: bool) {
        if urgent {
            // Behind earlier urgent mails, ahead of the rest.
            self.queue.insert(self.urgent, mail);
            self.urgent += 1;
        } else {
            self.queue.push_back(mail);
        }
    }

    pub fn take(&mut self) -> Option<Mail> {
        let mail = self.queue.pop_front()?;
        self.urgent = self.urgent.saturating_sub(1);
        Some(mail)
    }

    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// Queued mails, next first (for the UI's mailbox inspector).
    pub fn iter(&self) -> impl Iterator<Item = &Mail> {
        self.queue.iter()
    }

    pub fn clear(&mut self) {
        self.queue.clear();
        self.urgent = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urgent_mails_jump_the_queue_in_order() {
        let mut m = Mailbox::default();
        m.put(Mail::ProcessingTimeTimers, false);
        m.put(Mail::NotifyCheckpointComplete { id: 1 }, true);
        m.put(Mail::NotifyCheckpointComplete { id: 2 }, true);
        assert_eq!(m.take(), Some(Mail::NotifyCheckpointComplete { id: 1 }));
        assert_eq!(m.take(), Some(Mail::NotifyCheckpointComplete { id: 2 }));
        assert_eq!(m.take(), Some(Mail::ProcessingTimeTimers));
        assert_eq!(m.take(), None);
    }
}
