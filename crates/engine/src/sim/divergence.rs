//! Where two runs of one scenario part, madsim-style: both log the trace's running hash every
//! [`MARK_EVERY`] events; the first mark that differs brackets the first divergent event, and
//! [`trace_window`] lists that stretch event by event with the hash after each, so a listing made
//! natively and one made in wasm differ first at the divergent event itself.

use serde::{Deserialize, Serialize};

use super::Simulation;
use crate::scenario::Scenario;

/// Events between two logged hashes: a preset's 10 s run records about 3,000 trace events, so
/// about 50 marks, and a window short enough to read.
pub const MARK_EVERY: u64 = 64;

/// The first stretch where `got` parts from `want`: `(last seq both agree on, first seq where
/// they differ)`, or `None` when every mark both have agrees. A run that simply went on longer
/// (one list a prefix of the other) has not diverged.
pub fn first_divergence(want: &[(u64, u64)], got: &[(u64, u64)]) -> Option<(u64, u64)> {
    let mut agreed = 0;
    for (w, g) in want.iter().zip(got) {
        if w != g {
            return Some((agreed, w.0.min(g.0)));
        }
        agreed = w.0;
    }
    None
}

/// Trace events `after + 1 ..= upto`, one line each: seq, time, task, event and the running hash
/// after it.
pub fn trace_window(scenario: Scenario, after: u64, upto: u64) -> Result<Vec<String>, String> {
    let mut sim = Simulation::new(scenario)?;
    // Every event's hash, from the start: a window is only looked at after a failure.
    sim.trace.log_hashes_every(1);
    while sim.trace.total() < upto && sim.step() {}
    let hashes = sim.trace.hash_marks();
    Ok(sim
        .trace
        .events()
        .filter(|e| e.seq > after && e.seq <= upto)
        .map(|e| {
            let hash = hashes.get(e.seq as usize - 1).map_or(0, |m| m.1);
            let task = e.task.map_or("JobManager".to_string(), |t| {
                format!("{}/{}", t.vertex, t.subtask)
            });
            format!(
                "#{} t={}us {task} {:?} -> {hash:016x}",
                e.seq, e.time, e.kind
            )
        })
        .collect())
}

/// One run of `tests/fixtures/fingerprints.json`: a preset with a seed and optional `--set`s
/// (two TaskManagers, say), run for `seconds`, with its fingerprint and marks as pinned natively.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PinnedRun {
    pub preset: String,
    pub seed: u64,
    pub seconds: u64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub set: Vec<String>,
    pub fingerprint: String,
    /// [`marks_hex`] of the run's hash log.
    #[serde(default)]
    pub marks: Vec<String>,
}

impl PinnedRun {
    pub fn scenario(&self) -> Result<Scenario, String> {
        let mut s = crate::scenario::preset(&self.preset)
            .ok_or_else(|| format!("no preset '{}'", self.preset))?;
        s.seed = self.seed;
        for set in &self.set {
            crate::scenario::apply_set(&mut s, set)?;
        }
        Ok(s)
    }

    /// The run, with its hash log on.
    pub fn run(&self) -> Result<Simulation, String> {
        let mut sim = Simulation::new(self.scenario()?)?;
        sim.trace.log_hashes_every(MARK_EVERY);
        sim.run_until(self.seconds * crate::types::MICROS_PER_SEC);
        Ok(sim)
    }

    /// `None` when `sim` (a [`PinnedRun::run`]) matches the pin; else what a test says: the
    /// fingerprints, the window where the runs part and `sim`'s events there.
    pub fn mismatch(&self, sim: &Simulation) -> Option<String> {
        let got = sim.fingerprint();
        if got == self.fingerprint {
            return None;
        }
        let mut args = format!("--preset {} --seed {}", self.preset, self.seed);
        for set in &self.set {
            args += &format!(" --set {set}");
        }
        let scenario = self.scenario().ok()?;
        Some(format!(
            "{args}, {} s: fingerprint {got}, pinned {}; {}",
            self.seconds,
            self.fingerprint,
            explain(&scenario, &self.marks, sim.trace.hash_marks(), &args)
        ))
    }
}

/// Logged hashes as a fixture stores them: 16 hex digits each, the seq implied by the position.
pub fn marks_hex(marks: &[(u64, u64)]) -> Vec<String> {
    marks.iter().map(|m| format!("{:016x}", m.1)).collect()
}

/// What a test says when a run's fingerprint is not the pinned one: where the run parts from
/// the pinned marks (`want`, as [`marks_hex`] wrote them), and this run's events there.
pub fn explain(scenario: &Scenario, want: &[String], got: &[(u64, u64)], cli_args: &str) -> String {
    let want: Vec<(u64, u64)> = want
        .iter()
        .enumerate()
        .map(|(i, h)| {
            (
                (i as u64 + 1) * MARK_EVERY,
                u64::from_str_radix(h, 16).unwrap_or(0),
            )
        })
        .collect();
    let Some((after, upto)) = first_divergence(&want, got) else {
        return "every logged hash agrees: the runs part after the last mark".into();
    };
    let lines = trace_window(scenario.clone(), after, upto).unwrap_or_else(|e| vec![e]);
    format!(
        "the run parts from the pinned one between trace events {after} and {upto}. The pinned \
         side's events: `barrierlab run {cli_args} --trace-window {after}..{upto}` (natively, \
         on the commit that pinned them); this run's, to diff with it:\n{}",
        lines.join("\n")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::preset;
    use crate::types::{Micros, MICROS_PER_SEC};

    /// A run's logged hashes, `(seq, hash)` after every [`MARK_EVERY`]-th trace event.
    fn hash_marks(scenario: Scenario, until: Micros) -> Result<Vec<(u64, u64)>, String> {
        let mut sim = Simulation::new(scenario)?;
        sim.trace.log_hashes_every(MARK_EVERY);
        sim.run_until(until);
        Ok(sim.trace.hash_marks().to_vec())
    }

    #[test]
    fn a_changed_seed_parts_at_a_mark_and_the_window_shows_where() {
        let (a, mut b) = (preset("seed-demo").unwrap(), preset("seed-demo").unwrap());
        b.seed ^= 1;
        let until = 2 * MICROS_PER_SEC;
        let want = hash_marks(a.clone(), until).unwrap();
        assert!(want.len() > 3, "{} marks", want.len());
        assert_eq!(first_divergence(&want, &want), None);
        assert_eq!(
            first_divergence(&want, &want[..2]),
            None,
            "a prefix has not diverged"
        );
        let (agreed, parted) = first_divergence(&want, &hash_marks(b.clone(), until).unwrap())
            .expect("another seed gives another run");
        assert_eq!(parted, agreed + MARK_EVERY);

        let (wa, wb) = (
            trace_window(a, agreed, parted).unwrap(),
            trace_window(b, agreed, parted).unwrap(),
        );
        assert_eq!(wa.len(), MARK_EVERY as usize);
        assert!(
            wa[0].starts_with(&format!("#{} t=", agreed + 1)),
            "{}",
            wa[0]
        );
        // The last lines carry the mark's hash; the two listings part somewhere inside.
        assert!(wa.last().unwrap().ends_with(&format!(
            "{:016x}",
            want.iter().find(|m| m.0 == parted).unwrap().1
        )));
        assert!(wa.iter().zip(&wb).any(|(x, y)| x != y));
    }

    #[test]
    fn mutated_marks_are_found_at_the_first_difference() {
        let want = [(64, 1), (128, 2), (192, 3)];
        assert_eq!(
            first_divergence(&want, &[(64, 1), (128, 9), (192, 8)]),
            Some((64, 128))
        );
        assert_eq!(
            first_divergence(&want, &[(64, 7)]),
            Some((0, 64)),
            "the first mark"
        );
    }
}
