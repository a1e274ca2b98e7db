//! Time travel: snapshots of the simulation every few simulated seconds (a bounded number). Going
//! back restores the nearest earlier snapshot and re-runs to the chosen time; the engine is
//! deterministic, so scrubbing back and forth without acting lands on the same fingerprint.
//! Acting in the past (a user request) forks: snapshots after that moment are dropped.
//!
//! A snapshot is the job's bytes (`Simulation::to_snapshot`), not a clone of it: the 4096-subtask
//! job's take 19 MB instead of about 75 MB of clone, and are written no slower than it is cloned
//! (59 against 67 ms natively). Its 16 clones had taken its wasm memory to 1.6 GiB.
//!
//! The bytes are held LZ4-compressed: 10 MB instead of 20 for the 4096-subtask job, three
//! quarters for the seed presets (49 KB for seed-demo at 10 s: mostly its trace, whose events
//! are compact). Compressing adds about two fifths to the
//! time a snapshot takes (in wasm, 66 ms to the 4096-subtask job's 160); going back decompresses
//! in a tenth of the time the bytes take to read.

use barrierlab_engine::sim::Simulation;
use barrierlab_engine::types::Micros;

/// Simulated time between two snapshots at first (doubles whenever the list is thinned).
pub const SNAPSHOT_EVERY: Micros = 2_000_000;
/// Most snapshots kept (each holds a whole simulation, trace ring included).
pub const MAX_SNAPSHOTS: usize = 16;

/// The job at one moment, as bytes.
#[derive(Debug, Clone)]
struct Snapshot {
    now: Micros,
    bytes: Bytes,
}

/// A snapshot's bytes, counted in `heap::travel()` while they live (the soak test subtracts them
/// from the live heap: they climb and halve as the list fills and is thinned).
#[derive(Debug)]
struct Bytes(Box<[u8]>);

impl Bytes {
    fn new(bytes: Box<[u8]>) -> Bytes {
        crate::heap::add_travel(bytes.len());
        Bytes(bytes)
    }
}

impl Clone for Bytes {
    fn clone(&self) -> Bytes {
        Bytes::new(self.0.clone())
    }
}

impl Drop for Bytes {
    fn drop(&mut self) {
        crate::heap::sub_travel(self.0.len());
    }
}

/// A snapshot's bytes as time travel holds them. The worker writes them for the job it plays
/// (`worker::play`), so that a large job's snapshot (bench-512's: 6.7 MB written and compressed,
/// 60-100 ms) costs the page no frame.
pub fn compressed_snapshot(sim: &Simulation) -> Vec<u8> {
    lz4_flex::block::compress_prepend_size(&sim.to_snapshot())
}

impl Snapshot {
    fn of(sim: &Simulation) -> Snapshot {
        Snapshot::written(sim.now, compressed_snapshot(sim))
    }

    fn written(now: Micros, compressed: Vec<u8>) -> Snapshot {
        Snapshot {
            now,
            // Shrunk in place: no second copy of the compressed bytes.
            bytes: Bytes::new(compressed.into_boxed_slice()),
        }
    }

    /// The job again; `None` for bytes that do not read back (they were written by this build,
    /// in this page: they always do).
    fn read(&self) -> Option<Simulation> {
        let bytes = lz4_flex::block::decompress_size_prepended(&self.bytes.0).ok()?;
        Simulation::from_snapshot(&bytes).ok()
    }
}

#[derive(Debug, Clone)]
pub struct TimeTravel {
    snapshots: Vec<Snapshot>,
    every: Micros,
    /// The furthest simulated time reached on this branch.
    pub horizon: Micros,
}

impl TimeTravel {
    pub fn new(sim: &Simulation) -> TimeTravel {
        TimeTravel {
            snapshots: vec![Snapshot::of(sim)],
            every: SNAPSHOT_EVERY,
            horizon: sim.now,
        }
    }

    pub fn len(&self) -> usize {
        self.snapshots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.snapshots.is_empty()
    }

    /// Snapshot times, oldest first.
    pub fn times(&self) -> Vec<Micros> {
        self.snapshots.iter().map(|s| s.now).collect()
    }

    /// Called after every slice: moves the horizon and takes a snapshot when one is due.
    pub fn record(&mut self, sim: &Simulation) {
        self.record_written(sim, None)
    }

    /// The simulated time from which `record` takes the next snapshot.
    pub fn next_due(&self) -> Micros {
        self.snapshots.last().map_or(0, |s| s.now) + self.every
    }

    /// [`TimeTravel::record`], with the snapshot's bytes already written when `written` has
    /// them (`compressed_snapshot` of `sim`, by the worker).
    pub fn record_written(&mut self, sim: &Simulation, written: Option<Vec<u8>>) {
        if sim.now <= self.horizon {
            return;
        }
        self.horizon = sim.now;
        if sim.now >= self.next_due() {
            self.snapshots.push(match written {
                Some(bytes) => Snapshot::written(sim.now, bytes),
                None => Snapshot::of(sim),
            });
            if self.snapshots.len() > MAX_SNAPSHOTS {
                // Keep the first, drop every other one after it.
                let mut i = 0;
                self.snapshots.retain(|_| {
                    i += 1;
                    i == 1 || i % 2 == 0
                });
                self.every *= 2;
            }
        }
    }

    /// The simulation at time `t` (clamped to the horizon): the nearest earlier snapshot, re-run.
    /// `None` before the first snapshot, or if one did not read back.
    pub fn seek(&self, t: Micros) -> Option<Simulation> {
        let t = t.min(self.horizon);
        let base = self.snapshots.iter().rev().find(|s| s.now <= t)?;
        let mut sim = base.read()?;
        sim.run_until(t);
        Some(sim)
    }

    /// A new branch starts at `now`: later snapshots are dropped and the horizon moves back.
    pub fn fork(&mut self, now: Micros) {
        if now < self.horizon {
            self.snapshots.retain(|s| s.now <= now);
            self.horizon = now;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use barrierlab_engine::scenario::preset;

    #[test]
    fn scrubbing_back_and_forth_keeps_the_fingerprint() {
        let mut sim = Simulation::new(preset("seed-demo").unwrap()).unwrap();
        let mut travel = TimeTravel::new(&sim);
        let mut t = 0;
        while t < 9_000_000 {
            t += 137_000;
            sim.run_until(t);
            travel.record(&sim);
        }
        let live = sim.fingerprint();
        let a = travel.seek(3_500_000).unwrap().fingerprint();
        let end = travel.seek(t).unwrap();
        assert_eq!(end.fingerprint(), live);
        assert_eq!(travel.seek(3_500_000).unwrap().fingerprint(), a);
        assert!(travel.len() > 1);
        travel.fork(3_000_000);
        assert_eq!(travel.horizon, 3_000_000);
        assert!(travel.times().iter().all(|s| *s <= 3_000_000));
    }

    #[test]
    fn a_snapshot_written_elsewhere_is_held_as_given_when_one_is_due() {
        let mut sim = Simulation::new(preset("seed-demo").unwrap()).unwrap();
        let mut travel = TimeTravel::new(&sim);
        assert_eq!(travel.next_due(), SNAPSHOT_EVERY);
        // The same moment of another run: the bytes held are these, not the page's own.
        let mut other = preset("seed-demo").unwrap();
        other.seed += 1;
        let mut other = Simulation::new(other).unwrap();
        sim.run_until(1_000_000);
        other.run_until(1_000_000);
        // Not due yet: the bytes are dropped.
        travel.record_written(&sim, Some(compressed_snapshot(&other)));
        assert_eq!(travel.times(), [0]);
        sim.run_until(SNAPSHOT_EVERY);
        other.run_until(SNAPSHOT_EVERY);
        travel.record_written(&sim, Some(compressed_snapshot(&other)));
        assert_eq!(travel.times(), [0, SNAPSHOT_EVERY]);
        let held = travel.seek(SNAPSHOT_EVERY).unwrap().fingerprint();
        assert_eq!(held, other.fingerprint());
        assert_ne!(held, sim.fingerprint());
        assert_eq!(travel.next_due(), 2 * SNAPSHOT_EVERY);
    }

    #[test]
    fn a_snapshot_is_held_compressed_and_reads_back_as_the_job_it_was() {
        let mut sim = Simulation::new(preset("seed-demo").unwrap()).unwrap();
        sim.run_until(10_000_000);
        let travel = TimeTravel::new(&sim);
        let held = travel.snapshots[0].bytes.0.len();
        let whole = sim.to_snapshot().len();
        // seed-demo's bytes (49 KB at 10 s) compress to about three quarters.
        assert!(
            held * 10 < whole * 9,
            "{held} bytes held for a job of {whole}"
        );
        assert_eq!(
            travel.seek(sim.now).unwrap().fingerprint(),
            sim.fingerprint()
        );
    }

    #[test]
    fn the_snapshots_bytes_are_counted_while_they_live() {
        let mut sim = Simulation::new(preset("seed-demo").unwrap()).unwrap();
        let before = crate::heap::travel();
        let mut travel = TimeTravel::new(&sim);
        let mut t = 0;
        // 40 simulated seconds: 17 snapshots every 2 s, so the list is thinned once.
        while t < 40_000_000 {
            t += 500_000;
            sim.run_until(t);
            travel.record(&sim);
        }
        let held = |tt: &TimeTravel| tt.snapshots.iter().map(|s| s.bytes.0.len()).sum::<usize>();
        assert!(travel.len() < MAX_SNAPSHOTS);
        assert_eq!(crate::heap::travel() - before, held(&travel));
        let copy = travel.clone();
        assert_eq!(crate::heap::travel() - before, 2 * held(&travel));
        drop(copy);
        travel.fork(10_000_000);
        assert_eq!(crate::heap::travel() - before, held(&travel));
        drop(travel);
        assert_eq!(crate::heap::travel(), before);
    }
}
