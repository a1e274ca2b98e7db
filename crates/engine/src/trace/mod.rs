//! The structured trace: what happened, when, and which Flink 2.3 class and method it stands for.
//!
//! Memory is bounded (a ring of the newest events); the fingerprint is a running FNV-1a hash over
//! every event ever recorded, with a fixed little-endian encoding, so it is identical natively
//! and in wasm and does not depend on how far back the ring reaches.

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

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// FNV-1a, 64 bit, over bytes fed in a fixed order.
#[derive(Debug, Clone, Copy)]
pub struct Fnv(pub u64);

impl Fnv {
    pub fn bytes(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(FNV_PRIME);
        }
    }
    pub fn u64(&mut self, v: u64) {
        self.bytes(&v.to_le_bytes());
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
            hash: FNV_OFFSET,
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
