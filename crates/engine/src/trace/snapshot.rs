//! The trace in a simulation snapshot. The ring travels oldest first, so the bytes do not depend
//! on where its head stands; and a snapshot for the page's copy of a job carries only the events
//! the page has not seen (`Simulation::to_snapshot_since`), which [`Trace::take_newer`] appends.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{HashLog, Trace, TraceEvent};

#[derive(Serialize)]
struct Written<'a> {
    capacity: usize,
    hash: u64,
    count: u64,
    hash_log: &'a Option<HashLog>,
    events: Vec<&'a TraceEvent>,
}

#[derive(Deserialize)]
struct Read {
    capacity: usize,
    hash: u64,
    count: u64,
    hash_log: Option<HashLog>,
    events: Vec<TraceEvent>,
}

impl Serialize for Trace {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let unseen = self.count.saturating_sub(self.ship_since);
        let held = self.events.len();
        let skip = held.saturating_sub(usize::try_from(unseen).unwrap_or(usize::MAX));
        Written {
            capacity: self.capacity,
            hash: self.hash,
            count: self.count,
            hash_log: &self.hash_log,
            events: self.events().skip(skip).collect(),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for Trace {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Trace, D::Error> {
        let r = Read::deserialize(d)?;
        let in_order = r.events.windows(2).all(|w| w[0].seq + 1 == w[1].seq);
        let last = r.events.last().map_or(r.count, |e| e.seq);
        if r.capacity == 0 || r.events.len() > r.capacity || !in_order || last != r.count {
            return Err(serde::de::Error::custom(
                "a trace whose events do not end at its count",
            ));
        }
        let mut trace = Trace {
            events: r.events,
            head: 0,
            capacity: r.capacity,
            texts: 0,
            hash: r.hash,
            count: r.count,
            hash_log: r.hash_log,
            ship_since: 0,
        };
        trace.count_texts();
        Ok(trace)
    }
}

impl Trace {
    /// From now on until [`Trace::ship_all`], a snapshot carries only events after `seq`.
    pub(crate) fn ship_since(&mut self, seq: u64) {
        self.ship_since = seq;
    }

    pub(crate) fn ship_all(&mut self) {
        self.ship_since = 0;
    }

    /// Becomes the trace `newer` was read from, which carries only the events after some of
    /// this trace's: they join the ring, and the hash and count are `newer`'s.
    /// On an error nothing changes.
    pub(crate) fn take_newer(&mut self, newer: Trace) -> Result<(), String> {
        let first = newer.events.first().map_or(newer.count + 1, |e| e.seq);
        // A gap is fine only when `newer` holds a full ring: it pushes every older event out.
        let gap = first > self.count + 1 && newer.events.len() < newer.capacity;
        if newer.capacity != self.capacity || newer.count < self.count || gap {
            return Err(format!(
                "a snapshot that does not follow this job's trace (it has events {}..={}, the page {})",
                first, newer.count, self.count
            ));
        }
        let seen = self.count;
        for event in newer.events.into_iter().filter(|e| e.seq > seen) {
            self.push(event);
        }
        self.hash = newer.hash;
        self.count = newer.count;
        self.hash_log = newer.hash_log;
        Ok(())
    }
}
