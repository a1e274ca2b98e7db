//! The event queue, ordered by (time, sequence) as dslab-core's heap is: equal-time events run in
//! the order they were scheduled, so runs are deterministic.
//!
//! It is a radix heap (Ahuja et al.; the monotone priority queue of Dijkstra implementations):
//! the loop never schedules into its own past, so events are binned by the highest bit in which
//! their time differs from the time last taken out (`last`). Pushing appends to a bin; only when
//! the bin of `last` is empty is the lowest non-empty bin split up by the new minimum. Each event
//! moves at most 64 times and mostly through short, sequentially written vectors, where a binary
//! heap of tens of thousands of events would sift through a cache miss per level.
//!
//! Order within a time is kept because every bin is in scheduling order: a bin is split only into
//! empty bins, in its own order, and later pushes have later sequence numbers. An event scheduled
//! before `last` (only a caller outside the loop can do that) goes to a small binary heap that is
//! drained first, exactly as the single heap would have ordered it.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};

use crate::types::Micros;

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
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

const BINS: usize = 64;

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct EventQueue<E> {
    /// Events at exactly `last`, in scheduling order.
    current: VecDeque<E>,
    /// `bins[i]`: events whose time differs from `last` first in bit `i` (so lies above it).
    bins: Vec<Vec<(Micros, E)>>,
    /// The time of the bin `current`; never decreases.
    last: Micros,
    /// Events scheduled before `last`, ordered as the plain heap orders them.
    past: BinaryHeap<Scheduled<E>>,
    next_seq: u64,
    len: usize,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue {
            current: VecDeque::new(),
            bins: (0..BINS).map(|_| Vec::new()).collect(),
            last: 0,
            past: BinaryHeap::new(),
            next_seq: 0,
            len: 0,
        }
    }
}

fn bin_of(time: Micros, last: Micros) -> usize {
    (BINS - 1) - (time ^ last).leading_zeros() as usize
}

impl<E> EventQueue<E> {
    pub fn push(&mut self, time: Micros, event: E) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.len += 1;
        if time == self.last {
            self.current.push_back(event);
        } else if time > self.last {
            self.bins[bin_of(time, self.last)].push((time, event));
        } else {
            self.past.push(Scheduled { time, seq, event });
        }
    }

    /// With nothing before or at `last`, moves `last` to the earliest event and splits its bin.
    fn settle(&mut self) {
        if !self.current.is_empty() || !self.past.is_empty() {
            return;
        }
        let Some(i) = self.bins.iter().position(|b| !b.is_empty()) else {
            return;
        };
        let mut bin = std::mem::take(&mut self.bins[i]);
        self.last = bin.iter().map(|(t, _)| *t).min().unwrap_or(self.last);
        for (time, event) in bin.drain(..) {
            if time == self.last {
                self.current.push_back(event);
            } else {
                self.bins[bin_of(time, self.last)].push((time, event));
            }
        }
        // Keep the emptied vector's memory for the bin's next events.
        self.bins[i] = bin;
    }

    /// Time of the earliest event.
    pub fn peek_time(&self) -> Option<Micros> {
        if let Some(s) = self.past.peek() {
            return Some(s.time);
        }
        if !self.current.is_empty() {
            return Some(self.last);
        }
        let bin = self.bins.iter().find(|b| !b.is_empty())?;
        bin.iter().map(|(t, _)| *t).min()
    }

    /// The earliest event, if it is due by `until`.
    pub fn pop_due(&mut self, until: Micros) -> Option<(Micros, E)> {
        self.settle();
        if self.past.peek().is_some_and(|s| s.time <= until) {
            self.len -= 1;
            return self.past.pop().map(|s| (s.time, s.event));
        }
        if !self.past.is_empty() || self.last > until {
            return None;
        }
        let event = self.current.pop_front()?;
        self.len -= 1;
        Some((self.last, event))
    }

    pub fn pop(&mut self) -> Option<(Micros, E)> {
        self.pop_due(Micros::MAX)
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
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

    /// Against the plain (time, seq) heap, with pushes between pops, some into the past and some
    /// held back by `pop_due`.
    #[test]
    fn pops_exactly_as_the_binary_heap_does() {
        let mut q = EventQueue::default();
        let mut heap = BinaryHeap::new();
        let mut seq = 0u64;
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut now: Micros = 0;
        for round in 0..20_000u64 {
            for _ in 0..next() % 3 {
                let r = next();
                let time = match r % 10 {
                    0 => now,
                    1 => now.saturating_sub(r % 50),
                    2..=6 => now + r % 100,
                    _ => now + (r >> 8) % 100_000,
                };
                q.push(time, round);
                heap.push(Scheduled {
                    time,
                    seq,
                    event: round,
                });
                seq += 1;
            }
            let until = now + next() % 200;
            let want = match heap.peek() {
                Some(s) if s.time <= until => heap.pop().map(|s| (s.time, s.event)),
                _ => None,
            };
            assert_eq!(q.pop_due(until), want);
            assert_eq!(q.len(), heap.len());
            assert_eq!(q.peek_time(), heap.peek().map(|s| s.time));
            if let Some((t, _)) = want {
                now = now.max(t);
            }
        }
    }
}
