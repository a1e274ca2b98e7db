//! The structured trace: what happened, when, and which Flink 2.3 class and method it stands for.
//!
//! Memory is bounded (a ring of the newest events); the fingerprint is a running hash over every
//! event ever recorded, fed 64-bit words in a fixed order, so it is identical natively and in
//! wasm and does not depend on how far back the ring reaches.

mod event;

pub use event::{TraceEvent, TraceKind};

use std::collections::VecDeque;

use crate::types::{Micros, SubtaskId};

/// Events kept for display by default.
pub const DEFAULT_TRACE_CAPACITY: usize = 20_000;

#[derive(Debug, Clone)]
pub struct Trace {
    events: VecDeque<TraceEvent>,
    capacity: usize,
    hash: u64,
    count: u64,
}

const HASH_SEED: u64 = 0xcbf2_9ce4_8422_2325;
const HASH_MULTIPLIER: u64 = 0x9e37_79b9_7f4a_7c15;

/// A word-at-a-time multiply-rotate hash (fast enough to run on every trace event; only stability
/// matters, not cryptographic strength).
#[derive(Debug, Clone, Copy)]
pub struct Fnv(pub u64);

impl Fnv {
    pub fn u64(&mut self, v: u64) {
        self.0 = (self.0 ^ v).wrapping_mul(HASH_MULTIPLIER).rotate_left(27);
    }
    /// Bytes as little-endian words, then the length (so "ab" + "c" differs from "a" + "bc").
    pub fn bytes(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.u64(u64::from_le_bytes(word));
        }
        self.u64(bytes.len() as u64);
    }
}

impl Default for Trace {
    fn default() -> Self {
        Trace::new(DEFAULT_TRACE_CAPACITY)
    }
}

impl Trace {
    pub fn new(capacity: usize) -> Self {
        Trace {
            events: VecDeque::with_capacity(capacity.min(4096)),
            capacity: capacity.max(1),
            hash: HASH_SEED,
            count: 0,
        }
    }

    pub fn record(&mut self, time: Micros, task: Option<SubtaskId>, kind: TraceKind) {
        let mut h = Fnv(self.hash);
        h.u64(time);
        match task {
            Some(t) => {
                h.u64(1);
                h.u64(u64::from(t.vertex) << 32 | u64::from(t.subtask));
            }
            None => h.u64(0),
        }
        kind.hash_into(&mut h);
        self.hash = h.0;
        self.count += 1;
        if self.events.len() == self.capacity {
            if self.events.capacity() != self.capacity {
                // Once, when the ring fills: with no spare slots the newest event takes the
                // oldest one's memory, so recording touches one cache line, not two.
                self.events.shrink_to(self.capacity);
            }
            self.events.pop_front();
        }
        self.events.push_back(TraceEvent {
            seq: self.count,
            time,
            task,
            kind,
        });
    }

    /// The stable hash of every event recorded so far, as 16 hex digits.
    pub fn fingerprint(&self) -> String {
        format!("{:016x}", self.hash)
    }

    /// Events recorded since the start (including those the ring has dropped).
    pub fn total(&self) -> u64 {
        self.count
    }

    /// The newest events, oldest first.
    pub fn events(&self) -> impl DoubleEndedIterator<Item = &TraceEvent> + ExactSizeIterator {
        self.events.iter()
    }
}
