//! A running simulation as bytes: what the Web Worker that runs the playground's job hands the
//! page, and what the page hands back to continue from (time travel, a fault, a request).
//! Continuing from the bytes is continuing the run: the same events, the same fingerprint.
//!
//! Serde's derive over the whole `Simulation`, written with postcard (no field names, varint
//! integers). The bytes are for the same build on the other side of a `postMessage`, not for
//! storage: a format tag guards against a mismatch, not against old versions.

use super::Simulation;

/// "BLS" + the format's number; changed whenever a change to the simulation's fields changes
/// the bytes.
const TAG: [u8; 4] = *b"BLS3";
/// The same with only the trace events the receiver has not seen ("BLU": an update).
const UPDATE_TAG: [u8; 4] = *b"BLU3";

fn write(sim: &Simulation, tag: [u8; 4]) -> Vec<u8> {
    // Serializing owned data into a `Vec` fails only on a type serde cannot write, which the
    // snapshot tests would catch.
    match postcard::to_extend(sim, tag.to_vec()) {
        Ok(bytes) => bytes,
        Err(e) => unreachable!("a simulation that postcard cannot write: {e}"),
    }
}

fn read(bytes: &[u8], tag: [u8; 4]) -> Result<Simulation, String> {
    let body = bytes
        .strip_prefix(&tag[..])
        .ok_or("not a simulation snapshot of this version of Barrier Lab")?;
    postcard::from_bytes(body).map_err(damaged)
}

fn damaged(e: postcard::Error) -> String {
    format!("a damaged simulation snapshot: {e}")
}

impl Simulation {
    /// The whole simulation, as bytes [`Simulation::from_snapshot`] reads back.
    pub fn to_snapshot(&self) -> Vec<u8> {
        write(self, TAG)
    }

    /// Reads a [`Simulation::to_snapshot`] back; a clear message for anything else.
    pub fn from_snapshot(bytes: &[u8]) -> Result<Simulation, String> {
        read(bytes, TAG)
    }

    /// An update for a copy of this simulation whose trace ends at event `seen`
    /// ([`Trace::total`](crate::trace::Trace::total)): the whole simulation but only the trace
    /// events after `seen`. Most of a small job's snapshot is its trace.
    pub fn to_snapshot_since(&mut self, seen: u64) -> Vec<u8> {
        self.trace.ship_since(seen);
        let bytes = write(self, UPDATE_TAG);
        self.trace.ship_all();
        bytes
    }

    /// Becomes the simulation a [`Simulation::to_snapshot_since`] of this one's trace came from.
    /// On an error (bytes that are no such update, or one for another trace) nothing changes.
    pub fn update_from_snapshot(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.update_from_snapshot_reusing(bytes, &mut None)
    }

    /// [`Simulation::update_from_snapshot`], reading the update into `spare`'s memory (the
    /// version before the last update, which this leaves there in turn) rather than allocating
    /// a whole job: its queues, vectors and maps keep their allocations. On an error `self` is
    /// unchanged, and a spare the update was being read into is dropped (it may hold part of it).
    pub fn update_from_snapshot_reusing(
        &mut self,
        bytes: &[u8],
        spare: &mut Option<Simulation>,
    ) -> Result<(), String> {
        use serde::Deserialize;
        let body = bytes
            .strip_prefix(&UPDATE_TAG[..])
            .ok_or("not a simulation snapshot of this version of Barrier Lab")?;
        let mut next = match spare.take() {
            None => postcard::from_bytes(body).map_err(damaged)?,
            Some(mut next) => {
                let mut from = postcard::Deserializer::from_bytes(body);
                Simulation::deserialize_in_place(&mut from, &mut next).map_err(damaged)?;
                next
            }
        };
        let newer = std::mem::take(&mut next.trace);
        self.trace.take_newer(newer)?;
        next.trace = std::mem::take(&mut self.trace);
        *spare = Some(std::mem::replace(self, next));
        Ok(())
    }
}

/// What handing a job over costs: its snapshot's bytes and the wall time to write and read them;
/// and the update after 100 ms more of simulated time, which a copy that keeps up receives.
/// `barrierlab bench` measures it natively, `window.barrierlabBench` in the browser.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct HandOverCost {
    pub bytes: usize,
    pub write_ms: f64,
    pub read_ms: f64,
    pub update_bytes: usize,
    pub update_write_ms: f64,
    pub update_apply_ms: f64,
    /// The next update after 100 ms more, applied into the memory of the version before.
    pub update_reuse_ms: f64,
}

impl HandOverCost {
    /// Measures `sim`'s hand-over with `now_ms`, the caller's wall clock (the engine has none).
    /// Fails if a copy read back or updated ends with another fingerprint.
    pub fn measure(
        sim: &Simulation,
        mut now_ms: impl FnMut() -> f64,
    ) -> Result<HandOverCost, String> {
        let start = now_ms();
        let bytes = sim.to_snapshot();
        let write_ms = now_ms() - start;
        let start = now_ms();
        let mut copy = Simulation::from_snapshot(&bytes)?;
        let read_ms = now_ms() - start;
        if copy.fingerprint() != sim.fingerprint() {
            return Err("a snapshot read back with another fingerprint".into());
        }
        let mut next = copy.clone();
        next.run_until(next.now + 100_000);
        let start = now_ms();
        let update = next.to_snapshot_since(copy.trace.total());
        let update_write_ms = now_ms() - start;
        let mut spare = None;
        let start = now_ms();
        copy.update_from_snapshot_reusing(&update, &mut spare)?;
        let update_apply_ms = now_ms() - start;
        if copy.fingerprint() != next.fingerprint() {
            return Err("an updated copy with another fingerprint".into());
        }
        // The next update goes into the memory of the version before, as on the page.
        next.run_until(next.now + 100_000);
        let update = next.to_snapshot_since(copy.trace.total());
        let start = now_ms();
        copy.update_from_snapshot_reusing(&update, &mut spare)?;
        let update_reuse_ms = now_ms() - start;
        if copy.fingerprint() != next.fingerprint() {
            return Err("a copy updated in place with another fingerprint".into());
        }
        Ok(HandOverCost {
            bytes: bytes.len(),
            write_ms,
            read_ms,
            update_bytes: update.len(),
            update_write_ms,
            update_apply_ms,
            update_reuse_ms,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::preset;

    /// Runs `name` to `mid`, continues one copy in place and one read back from its snapshot,
    /// to `end`: both end the same.
    fn continues_the_same(name: &str, mid: u64, end: u64) {
        let mut sim = Simulation::new(preset(name).unwrap()).unwrap();
        sim.run_until(mid);
        let bytes = sim.to_snapshot();
        let mut back = Simulation::from_snapshot(&bytes).unwrap();
        assert_eq!(back.fingerprint(), sim.fingerprint(), "{name}: read back");
        assert!(back.to_snapshot() == bytes, "{name}: written again");
        sim.run_until(end);
        back.run_until(end);
        assert_eq!(back.fingerprint(), sim.fingerprint(), "{name}: continued");
        assert!(
            back.to_snapshot() == sim.to_snapshot(),
            "{name}: continued state"
        );
    }

    #[test]
    fn every_preset_continues_from_its_snapshot_as_it_would_have() {
        for (name, _) in crate::scenario::PRESETS {
            continues_the_same(name, 7_300_000, 12_000_000);
        }
    }

    /// Updates read into the memory of the version before (as the page applies the worker's)
    /// make the same copy as updates read afresh, and a copy that continues on its own ends as
    /// the simulation does. An update that fails leaves the copy as it was and drops the spare.
    #[test]
    fn a_copy_updated_in_the_memory_of_its_version_before_is_the_simulation() {
        // Barriers overtaking buffers, a two-phase-commit sink, keyed state with TTL timestamps.
        for name in ["seed-unaligned", "seed-2pc", "state-ttl"] {
            let mut sim = Simulation::new(preset(name).unwrap()).unwrap();
            let mut copy = Simulation::from_snapshot(&sim.to_snapshot()).unwrap();
            let mut spare = None;
            for to in (1..=4).map(|i| i * 900_000) {
                let before = copy.now;
                sim.run_until(to);
                let update = sim.to_snapshot_since(copy.trace.total());
                copy.update_from_snapshot_reusing(&update, &mut spare)
                    .unwrap();
                assert!(copy.to_snapshot() == sim.to_snapshot(), "{name} at {to}");
                assert_eq!(spare.as_ref().map(|s| s.now), Some(before), "{name}");
            }
            let end = sim.now + 1_000_000;
            sim.run_until(end);
            copy.run_until(end);
            assert_eq!(copy.fingerprint(), sim.fingerprint(), "{name}: continued");

            sim.run_until(end + 500_000);
            let update = sim.to_snapshot_since(copy.trace.total());
            let kept = copy.to_snapshot();
            let damaged = &update[..update.len() / 2];
            let e = copy
                .update_from_snapshot_reusing(damaged, &mut spare)
                .unwrap_err();
            assert!(e.starts_with("a damaged simulation snapshot"), "{e}");
            assert!(spare.is_none() && copy.to_snapshot() == kept, "{name}");
            // An update for a trace the copy has not followed is refused after it was read.
            sim.run_until(end + 900_000);
            let ahead = sim.to_snapshot_since(sim.trace.total() - 3);
            let mut reused = Some(Simulation::from_snapshot(&kept).unwrap());
            assert!(copy
                .update_from_snapshot_reusing(&ahead, &mut reused)
                .is_err());
            assert!(reused.is_none() && copy.to_snapshot() == kept, "{name}");
        }
    }

    /// A copy kept by updates only (as the page keeps the worker's job) is the simulation,
    /// also across a stretch that overflows the trace's ring.
    #[test]
    fn a_copy_kept_by_updates_is_the_simulation() {
        let mut sim = Simulation::new(preset("seed-backpressure").unwrap()).unwrap();
        let capacity = crate::trace::DEFAULT_TRACE_CAPACITY as u64;
        let mut copy = Simulation::new(preset("seed-demo").unwrap()).unwrap();
        let (mut fresh, mut widest) = (true, 0);
        for to in [
            500_000,
            1_000_000,
            1_000_000,
            4_000_000,
            150_000_000,
            151_000_000,
        ] {
            sim.run_until(to);
            let seen = if fresh { 0 } else { copy.trace.total() };
            fresh = false;
            let before = sim.trace.total();
            widest = widest.max(before - seen);
            let update = sim.to_snapshot_since(seen);
            if seen > 0 && before - seen < capacity {
                assert!(
                    update.len() < sim.to_snapshot().len(),
                    "{to}: an update is smaller"
                );
            }
            copy.update_from_snapshot(&update).unwrap();
            assert!(
                copy.to_snapshot() == sim.to_snapshot(),
                "{to}: the copy differs"
            );
            assert!(
                copy.trace.events().eq(sim.trace.events()),
                "{to}: the trace differs"
            );
        }
        assert!(widest > capacity, "the ring overflowed between two updates");
        // An update for a copy that has not seen those events is refused; the copy stays.
        let mut behind = Simulation::new(preset("seed-backpressure").unwrap()).unwrap();
        behind.run_until(1_000_000);
        let before = behind.to_snapshot();
        sim.run_until(152_000_000);
        let update = sim.to_snapshot_since(sim.trace.total() - 10);
        let e = behind.update_from_snapshot(&update).unwrap_err();
        assert!(e.contains("does not follow this job's trace"), "{e}");
        assert!(behind.to_snapshot() == before);
        // Full snapshots and updates are not taken for one another.
        assert!(Simulation::from_snapshot(&update).is_err());
        assert!(copy.update_from_snapshot(&sim.to_snapshot()).is_err());
    }

    #[test]
    fn bytes_that_are_not_a_snapshot_are_refused_with_a_message() {
        let sim = Simulation::new(preset("seed-demo").unwrap()).unwrap();
        let bytes = sim.to_snapshot();
        let e = Simulation::from_snapshot(b"{}").unwrap_err();
        assert!(e.contains("not a simulation snapshot"), "{e}");
        let e = Simulation::from_snapshot(&bytes[..bytes.len() / 2]).unwrap_err();
        assert!(e.starts_with("a damaged simulation snapshot"), "{e}");
    }

    #[test]
    fn a_mail_name_reads_back_only_as_one_of_the_mails() {
        use crate::trace::{MailName, MAIL_NAMES};
        for name in MAIL_NAMES {
            let json = serde_json::to_string(&MailName(name)).unwrap();
            assert_eq!(
                serde_json::from_str::<MailName>(&json).unwrap(),
                MailName(name)
            );
        }
        let e = serde_json::from_str::<MailName>("\"sendMoney\"").unwrap_err();
        assert!(
            e.to_string().contains("no mail is named \"sendMoney\""),
            "{e}"
        );
    }
}
