//! The event queue: a min-heap ordered by (time, sequence), as dslab-core's. The sequence number
//! makes equal-time events run in the order they were scheduled, so runs are deterministic.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::types::Micros;

#[derive(Debug, Clone)]
struct Scheduled<E> {
    time: Micros,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Scheduled<E> {
    fn eq(&self, other: &Self) -> bool {
        self.time == other.time && self.seq == other.seq
    }
}
impl<E> Eq for Scheduled<E> {}
impl<E> PartialOrd for Scheduled<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Scheduled<E> {
    // Reversed: `BinaryHeap` is a max-heap, the earliest event must come out first.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.time, other.seq).cmp(&(self.time, self.seq))
    }
}

#[derive(Debug, Clone)]
pub struct EventQueue<E> {
    heap: BinaryHeap<Scheduled<E>>,
    next_seq: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue {
            heap: BinaryHeap::new(),
            next_seq: 0,
        }
    }
}

impl<E> EventQueue<E> {
    pub fn push(&mut self, time: Micros, event: E) {
        self.heap.push(Scheduled {
            time,
            seq: self.next_seq,
            event,
        });
        self.next_seq += 1;
    }

    pub fn peek_time(&self) -> Option<Micros> {
        self.heap.peek().map(|s| s.time)
    }

    pub fn pop(&mut self) -> Option<(Micros, E)> {
        self.heap.pop().map(|s| (s.time, s.event))
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_times_pop_in_scheduling_order() {
        let mut q = EventQueue::default();
        q.push(5, "b");
        q.push(1, "a");
        q.push(5, "c");
        q.push(3, "x");
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(order, vec![(1, "a"), (3, "x"), (5, "b"), (5, "c")]);
    }
}
