//! The structured trace: what happened, when, and which Flink 2.3 class and method it stands for.
//!
//! Memory is bounded (a ring of the newest events); the fingerprint is a running hash over every
//! event ever recorded, fed 64-bit words in a fixed order, so it is identical natively and in
//! wasm and does not depend on how far back the ring reaches.

mod compact;
mod event;
mod snapshot;
mod source;

pub use event::{MailName, TraceEvent, TraceKind, MAIL_NAMES};
pub use source::{FlinkSource, FLINK_REF, SOURCES};

use crate::types::{Micros, SubtaskId};

/// Events kept for display by default.
pub const DEFAULT_TRACE_CAPACITY: usize = 20_000;

/// In a simulation snapshot the ring travels oldest first (`trace/snapshot.rs`).
#[derive(Debug, Clone)]
pub struct Trace {
    /// A ring: until it holds `capacity` events they are in order; then the newest overwrites
    /// the oldest, at `head`, in place.
    events: Vec<TraceEvent>,
    head: usize,
    capacity: usize,
    /// Events in the ring that own text (a `String`): while there are none, the newest event
    /// overwrites the oldest without reading it (see [`Trace::push`]).
    texts: usize,
    hash: u64,
    count: u64,
    /// Off unless a test asks: the running hash every `every` events, as madsim logs it, so two
    /// runs that end with different fingerprints can say where they parted.
    hash_log: Option<HashLog>,
    /// While a snapshot is written: only events after this sequence number go into it (the
    /// page's copy has the rest). 0 otherwise.
    ship_since: u64,
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct HashLog {
    every: u64,
    marks: Vec<(u64, u64)>,
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
            events: Vec::with_capacity(capacity.clamp(1, 4096)),
            head: 0,
            capacity: capacity.max(1),
            texts: 0,
            hash: HASH_SEED,
            count: 0,
            hash_log: None,
            ship_since: 0,
        }
    }

    /// From now on, keep `(seq, hash)` after every `every`-th event (at least 1). It grows with
    /// the run, so only tests and debugging turn it on.
    pub fn log_hashes_every(&mut self, every: u64) {
        self.hash_log = Some(HashLog {
            every: every.max(1),
            marks: Vec::new(),
        });
    }

    /// The logged `(seq, hash)` marks, oldest first (empty when logging is off).
    pub fn hash_marks(&self) -> &[(u64, u64)] {
        self.hash_log.as_ref().map_or(&[], |l| &l.marks)
    }

    /// The running hash after the newest event (what [`Trace::fingerprint`] prints).
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// Inlined into each caller, with the event's hashing and its write into the ring: as a
    /// call, the event went through memory as small stores read back in wide loads, which
    /// stall on store forwarding (a profile of bench-512 had a tenth of its samples in here).
    #[inline(always)]
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
        if let Some(log) = &mut self.hash_log {
            if self.count.is_multiple_of(log.every) {
                log.marks.push((self.count, self.hash));
            }
        }
        self.push(TraceEvent {
            seq: self.count,
            time,
            task,
            kind,
        });
    }

    /// Puts `event` into the ring, over the oldest once it is full.
    #[inline(always)]
    pub(super) fn push(&mut self, event: TraceEvent) {
        let text = usize::from(event.kind.owns_text());
        self.texts += text;
        if self.events.len() < self.capacity {
            if self.events.len() == self.events.capacity() {
                // Grow by doubling, but never past the ring's size.
                let more = self.events.len().min(self.capacity - self.events.len());
                self.events.reserve_exact(more.max(1));
            }
            self.events.push(event);
            return;
        }
        let at = self.head;
        self.head = if at + 1 == self.capacity { 0 } else { at + 1 };
        if self.texts == text {
            // The oldest event owns nothing to free, so it is not read: written a whole ring
            // ago, it has left the caches, and dropping it would read it. What `replace` reads
            // is unused and optimized away; forgetting it frees nothing, as it owns nothing.
            std::mem::forget(std::mem::replace(&mut self.events[at], event));
        } else {
            self.texts -= usize::from(self.events[at].kind.owns_text());
            self.events[at] = event;
        }
    }

    /// Counts the events that own text, after the ring was filled from a snapshot.
    pub(super) fn count_texts(&mut self) {
        self.texts = self.events.iter().filter(|e| e.kind.owns_text()).count();
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
        let (newer, older) = self.events.split_at(self.head);
        Events {
            first: older.iter(),
            second: newer.iter(),
        }
    }
}

/// The ring's two runs, oldest first.
struct Events<'a> {
    first: std::slice::Iter<'a, TraceEvent>,
    second: std::slice::Iter<'a, TraceEvent>,
}

impl<'a> Iterator for Events<'a> {
    type Item = &'a TraceEvent;

    fn next(&mut self) -> Option<&'a TraceEvent> {
        self.first.next().or_else(|| self.second.next())
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.first.len() + self.second.len();
        (n, Some(n))
    }
}

impl DoubleEndedIterator for Events<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.second.next_back().or_else(|| self.first.next_back())
    }
}

impl ExactSizeIterator for Events<'_> {}

#[cfg(test)]
mod tests {
    use super::*;

    fn seqs(t: &Trace) -> Vec<u64> {
        t.events().map(|e| e.seq).collect()
    }

    #[test]
    fn the_ring_keeps_the_newest_events_in_order() {
        let mut t = Trace::new(3);
        for time in 0..2 {
            t.record(time, None, TraceKind::TaskFinished);
        }
        assert_eq!(seqs(&t), [1, 2]);
        for time in 2..7 {
            t.record(time, None, TraceKind::TaskFinished);
            let n = t.events().len();
            assert_eq!(n, 3);
            let newest = t.events().next_back().map(|e| e.seq);
            assert_eq!(newest, Some(time + 1));
        }
        assert_eq!(seqs(&t), [5, 6, 7]);
        let back: Vec<u64> = t.events().rev().map(|e| e.seq).collect();
        assert_eq!(back, [7, 6, 5]);
        assert_eq!(t.total(), 7);
    }

    #[test]
    fn the_ring_counts_the_events_that_own_text() {
        let warning = |m: &str| TraceKind::Warning {
            message: m.to_string(),
        };
        let mut t = Trace::new(3);
        t.record(0, None, warning("a"));
        t.record(1, None, TraceKind::TaskFinished);
        t.record(2, None, warning("b"));
        assert_eq!(t.texts, 2);
        // Over "a", then over the plain event, then over "b".
        t.record(3, None, TraceKind::TaskFinished);
        assert_eq!(t.texts, 1);
        t.record(4, None, warning("c"));
        assert_eq!(t.texts, 2);
        t.record(5, None, TraceKind::TaskFinished);
        assert_eq!(t.texts, 1);
        for time in 6..9 {
            t.record(time, None, TraceKind::TaskFinished);
        }
        assert_eq!(t.texts, 0);
        assert_eq!(seqs(&t), [7, 8, 9]);
        // A snapshot's ring counts them again.
        t.record(9, None, warning("d"));
        let json = serde_json::to_string(&t).unwrap();
        let read: Trace = serde_json::from_str(&json).unwrap();
        assert_eq!(read.texts, 1);
    }

    #[test]
    fn the_fingerprint_does_not_depend_on_the_ring_size() {
        let (mut small, mut large) = (Trace::new(1), Trace::new(100));
        for time in 0..10 {
            for t in [&mut small, &mut large] {
                t.record(time, None, TraceKind::Acknowledged { id: time });
            }
        }
        assert_eq!(small.fingerprint(), large.fingerprint());
        assert_eq!(small.events().len(), 1);
    }

    #[test]
    fn the_hash_log_marks_every_nth_event_and_tells_runs_apart() {
        let run = |odd: u64| {
            let mut t = Trace::new(4);
            t.log_hashes_every(3);
            for time in 0..10 {
                let id = if time == 7 { odd } else { time };
                t.record(time, None, TraceKind::Acknowledged { id });
            }
            t
        };
        let (a, b) = (run(7), run(99));
        let seqs: Vec<u64> = a.hash_marks().iter().map(|m| m.0).collect();
        assert_eq!(seqs, [3, 6, 9]);
        // Event 8 (time 7) differs: the marks agree up to 6 and part at 9.
        assert_eq!(a.hash_marks()[..2], b.hash_marks()[..2]);
        assert_ne!(a.hash_marks()[2], b.hash_marks()[2]);
        assert!(Trace::new(4).hash_marks().is_empty());
    }
}
