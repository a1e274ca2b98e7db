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
const TAG: [u8; 4] = *b"BLS1";

impl Simulation {
    /// The whole simulation, as bytes [`Simulation::from_snapshot`] reads back.
    pub fn to_snapshot(&self) -> Vec<u8> {
        let out = TAG.to_vec();
        // Serializing owned data into a `Vec` fails only on a type serde cannot write, which
        // the snapshot tests would catch.
        match postcard::to_extend(self, out) {
            Ok(bytes) => bytes,
            Err(e) => unreachable!("a simulation that postcard cannot write: {e}"),
        }
    }

    /// Reads a [`Simulation::to_snapshot`] back; a clear message for anything else.
    pub fn from_snapshot(bytes: &[u8]) -> Result<Simulation, String> {
        let body = bytes
            .strip_prefix(&TAG[..])
            .ok_or("not a simulation snapshot of this version of Barrier Lab")?;
        postcard::from_bytes(body).map_err(|e| format!("a damaged simulation snapshot: {e}"))
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
            continues_the_same(name, 7_300_000, 21_000_000);
        }
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
