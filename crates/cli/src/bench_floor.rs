//! The floors `barrierlab bench` sets the engine beside: bare loops that move bench-512's records
//! (100 bytes over 10 000 keys; hash -> keyed count -> map -> sink) with nothing simulated
//! around them. Hops are counted as the engine counts them: the source's record once, then once
//! per task it enters.

use std::collections::VecDeque;
use std::hint::black_box;
use std::time::Instant;

use barrierlab_engine::network::Record;

/// Records in a full 32 KB buffer.
const PER_BUFFER: usize = 32 * 1024 / 100;
const KEYS: u64 = 10_000;

/// A seeded stream of keys (an LCG, as cheap as a generator gets).
struct Keys(u64);

impl Keys {
    fn next(&mut self) -> i32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % KEYS) as i32
    }
}

/// The records moved through 128 channels of full 32 KB buffers over three hops. Returns (wall
/// seconds, record-hops).
pub fn floor_loop(records: u64) -> (f64, u64) {
    const CHANNELS: usize = 128;
    let start = Instant::now();
    let mut counts = vec![0i64; KEYS as usize];
    let mut buffers: Vec<Vec<Record>> = (0..CHANNELS)
        .map(|_| Vec::with_capacity(PER_BUFFER))
        .collect();
    let (mut hops, mut keys, mut sunk) = (0u64, Keys(7), 0i64);
    let mut deliver = |buf: &mut Vec<Record>, counts: &mut [i64], hops: &mut u64| {
        // Hop 2: the keyed count; hop 3: a map into the next buffer; hop 4: the sink.
        let mut out = Vec::with_capacity(buf.len());
        for r in buf.drain(..) {
            let c = &mut counts[r.key as usize];
            *c += 1;
            let mut r = r;
            r.value = *c;
            out.push(r);
        }
        for r in black_box(out) {
            sunk = sunk.wrapping_add(r.value);
        }
        *hops += 3 * PER_BUFFER as u64;
    };
    for seq in 0..records {
        let key = keys.next();
        hops += 1;
        let buf = &mut buffers[key as usize % CHANNELS];
        buf.push(Record::new(key, 0, 0, seq, 100));
        if buf.len() == PER_BUFFER {
            deliver(buf, &mut counts, &mut hops);
        }
    }
    black_box((sunk, &counts));
    (start.elapsed().as_secs_f64(), hops)
}

/// Subtasks per operator in bench-512.
const P: usize = 128;

/// One network edge of `P` producers and `P` consumers: a buffer being written per channel, and
/// per consumer the buffers handed over to it, in order.
struct Edge {
    open: Vec<Vec<Record>>,
    handed: Vec<VecDeque<Vec<Record>>>,
    spare: Vec<Vec<Record>>,
    buffers: u64,
}

impl Edge {
    fn new() -> Edge {
        Edge {
            open: (0..P * P).map(|_| Vec::new()).collect(),
            handed: (0..P).map(|_| VecDeque::new()).collect(),
            spare: Vec::new(),
            buffers: 0,
        }
    }

    fn emit(&mut self, producer: usize, consumer: usize, record: Record) {
        let open = &mut self.open[producer * P + consumer];
        if open.capacity() == 0 {
            *open = self.spare.pop().unwrap_or_default();
        }
        open.push(record);
        if open.len() == PER_BUFFER {
            self.handed[consumer].push_back(std::mem::take(open));
            self.buffers += 1;
        }
    }

    /// The buffer timeout: every non-empty buffer is handed over.
    fn flush(&mut self) {
        for (i, open) in self.open.iter_mut().enumerate() {
            if !open.is_empty() {
                self.handed[i % P].push_back(std::mem::take(open));
                self.buffers += 1;
            }
        }
    }

    /// Consumer `consumer` reads the buffers handed to it, in order, record by record; each
    /// buffer's vector goes back for reuse.
    fn drain(&mut self, consumer: usize, mut read: impl FnMut(&Record)) {
        while let Some(mut buffer) = self.handed[consumer].pop_front() {
            buffer.iter().for_each(&mut read);
            buffer.clear();
            self.spare.push(buffer);
        }
    }
}

/// bench-512's data flow at its own granularity: 128 subtasks per operator, every producer
/// writing a buffer for every consumer (128 x 128 channels an edge), each buffer handed over when
/// full or at the 100 ms buffer timeout, so each carries about 6 records as in the simulated job.
/// It does the data movement alone: no time, events, credit, barriers or metrics. Returns
/// (wall seconds, record-hops, buffers handed over).
pub fn floor_at_job_granularity(seconds: u64) -> (f64, u64, u64) {
    const RATE: usize = 1_000_000;
    const TIMEOUTS_PER_S: usize = 10;
    let per_subtask = RATE / TIMEOUTS_PER_S / P;
    let start = Instant::now();
    let mut edges = [Edge::new(), Edge::new(), Edge::new()];
    let mut counts = vec![0i64; KEYS as usize];
    let mut next = [0usize; P];
    let (mut hops, mut keys, mut sunk, mut seq) = (0u64, Keys(7), 0i64, 0u64);
    for _ in 0..seconds as usize * TIMEOUTS_PER_S {
        let [to_count, to_map, to_sink] = &mut edges;
        // The sources, hash-partitioned to the count.
        for s in 0..P {
            for _ in 0..per_subtask {
                let key = keys.next();
                seq += 1;
                hops += 1;
                to_count.emit(s, key as usize % P, Record::new(key, 0, s as u32, seq, 100));
            }
        }
        to_count.flush();
        // The keyed count, rebalanced (round robin) to the map.
        for (c, next) in next.iter_mut().enumerate() {
            to_count.drain(c, |r| {
                hops += 1;
                let n = &mut counts[r.key as usize];
                *n += 1;
                let mut r = *r;
                r.value = *n;
                to_map.emit(c, *next, r);
                *next = if *next + 1 == P { 0 } else { *next + 1 };
            });
        }
        to_map.flush();
        // The map, hash-partitioned to the sink.
        for m in 0..P {
            to_map.drain(m, |r| {
                hops += 1;
                let mut r = *r;
                r.value = r.value.wrapping_mul(3);
                to_sink.emit(m, r.key as usize % P, r);
            });
        }
        to_sink.flush();
        for k in 0..P {
            to_sink.drain(k, |r| {
                hops += 1;
                sunk = sunk.wrapping_add(r.value);
            });
        }
    }
    black_box((sunk, &counts));
    let buffers = edges.iter().map(|e| e.buffers).sum();
    (start.elapsed().as_secs_f64(), hops, buffers)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every generated record makes four hops, and buffers carry what bench-512's do.
    #[test]
    fn the_granular_floor_moves_every_record_through_three_edges_in_small_buffers() {
        let (_, hops, buffers) = floor_at_job_granularity(1);
        let records = (1_000_000 / 10 / P * P * 10) as u64;
        assert_eq!(hops, 4 * records);
        let per_buffer = 3 * records / buffers;
        assert!(
            (5..=7).contains(&per_buffer),
            "{per_buffer} records a buffer"
        );
    }
}
