//! The playground's own job, played in the worker. The page hands over its simulation as bytes
//! (`Simulation::to_snapshot`) and keeps that copy; the worker plays it at the page's speed, as
//! the page's ticks would (`state::advance_owing`, the same stepping loop), and posts an update
//! (`Simulation::to_snapshot_since`) each time the page asks for one. The page's copy, updated,
//! is the job byte for byte, so everything the page does with a job (views, time travel,
//! storage, tutorials) works on it unchanged; anything that changes the job (a step, a fault, a
//! request, pausing) stops the worker and happens on the page's copy, which the next play hands
//! over again. Runs natively too: the tests play it without a worker.

use barrierlab_engine::sim::Simulation;
use barrierlab_engine::types::Micros;
use serde::{Deserialize, Serialize};

use crate::clock;
use crate::speed::Speed;

/// Wall-clock milliseconds of simulation between two looks at the worker's messages.
pub const SLICE_MS: f64 = 50.0;
/// How long a job that is where the wall clock wants it (at 1x and the other fixed speeds)
/// waits before it moves on: a few frames' worth, so a cheap job does not spin.
const PACE_MS: u32 = 8;
/// Longest wall-clock gap a slice accounts for (a stalled worker must not jump). Longer than the
/// page's: between two slices the worker writes the update it posts, and with it sometimes a
/// time-travel snapshot, which for the 4096-subtask job (21 MB) takes a few hundred ms that the
/// job must not lose at 1x.
const MAX_GAP_MS: f64 = 1_000.0;
/// Most wall-clock time a job behind the clock makes up (at 1x and the other fixed speeds). The
/// page forgives more than 1 s (`state::playback`): its own slices cost frames. The worker's cost
/// none, so a large job's dear stretches (its checkpoints) are made up in the cheap ones after.
const MAX_OWED_MS: f64 = 10_000.0;

/// What an update carries besides its bytes: which play it belongs to (the page discards those
/// of a play it stopped), and where the job is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Played {
    pub session: u64,
    pub now: Micros,
    /// The simulated time the worker aims at (fixed speeds): the job is behind the wall clock
    /// when it is ahead of `now`.
    pub aim: Option<Micros>,
    pub live: bool,
    /// How the worker spent its wall clock since the last update.
    pub load: Load,
    /// The bytes' last this many are the page's next time-travel snapshot
    /// (`travel::compressed_snapshot`), written here when one fell due (0: none).
    pub snapshot_bytes: usize,
}

impl Played {
    /// The update's bytes, and the time-travel snapshot's after them if there is one.
    pub fn parts<'a>(&self, bytes: &'a [u8]) -> (&'a [u8], Option<&'a [u8]>) {
        let split = bytes.len().saturating_sub(self.snapshot_bytes);
        let (update, snapshot) = bytes.split_at(split);
        (update, (!snapshot.is_empty()).then_some(snapshot))
    }
}

/// Shares of the worker's wall clock between two updates: stepping the job, and writing the
/// updates the page asked for. The rest is waiting: at the wall clock's pace, or for the CPU.
/// `pace`: simulated seconds per wall second over the same time, as the worker saw it (the
/// page sees the job move only at its updates, which a large job gets seconds apart).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Load {
    pub stepping: f64,
    pub writing: f64,
    pub pace: f64,
}

/// When the worker's next slice is due.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// At once: the job is behind, or runs at maximum speed.
    Now,
    /// After this many milliseconds: the job is where the wall clock wants it.
    After(u32),
    /// Not until a message: the job ended, and its last update is posted or waits to be asked.
    Idle,
}

/// The job the worker plays for the page.
pub struct Player {
    session: u64,
    sim: Simulation,
    speed: Speed,
    /// The simulated time the last slice aimed at (see `state::advance_owing`).
    aim: Option<Micros>,
    last_ms: Option<f64>,
    /// Updates the page asked for and has not received.
    asked: u32,
    /// The trace events and time the page's copy has (as of the last update posted).
    sent_trace: u64,
    sent_now: Micros,
    sent_live: bool,
    /// From when the page's time travel takes its next snapshot (`TimeTravel::next_due`): the
    /// first update at or after it carries one. `None` once it has, until the page says anew.
    travel_at: Option<Micros>,
    /// Since the last update (`Load`): wall-clock ms stepping, and when it began. (The writing
    /// is the update's own, at its end.)
    stepped_ms: f64,
    load_since: f64,
}

impl Player {
    /// Plays the page's job from its snapshot; the page's copy is that snapshot, and it asks for
    /// its first update with the request.
    pub fn new(
        session: u64,
        snapshot: &[u8],
        speed: Speed,
        travel_at: Micros,
    ) -> Result<Player, String> {
        let sim = Simulation::from_snapshot(snapshot)?;
        Ok(Player {
            session,
            sent_trace: sim.trace.total(),
            sent_now: sim.now,
            sent_live: sim.status.is_live(),
            sim,
            speed,
            aim: None,
            last_ms: None,
            asked: 1,
            travel_at: Some(travel_at),
            stepped_ms: 0.0,
            load_since: clock::now_ms(),
        })
    }

    pub fn set_speed(&mut self, speed: Speed) {
        self.speed = speed;
    }

    /// The page applied an update and asks for the next; its time travel's next snapshot is
    /// due at `travel_at`.
    pub fn want(&mut self, travel_at: Micros) {
        // Never more than two in flight: the page asks after each one it applied.
        self.asked = (self.asked + 1).min(2);
        self.travel_at = Some(travel_at);
    }

    /// Moves the job on for up to `budget_ms` of wall-clock time from `now_ms` at its speed; the
    /// update to post, if the page asked for one and the job moved; when the next slice is due.
    pub fn slice(&mut self, now_ms: f64, budget_ms: f64) -> (Option<(Played, Vec<u8>)>, Next) {
        if self.sim.status.is_live() {
            let gap = self
                .last_ms
                .map_or(0.0, |last| (now_ms - last).clamp(0.0, MAX_GAP_MS));
            self.last_ms = Some(now_ms);
            let started = clock::now_ms();
            self.aim = Some(crate::state::advance_owing(
                &mut self.sim,
                self.speed,
                gap,
                self.aim,
                budget_ms,
                MAX_OWED_MS,
            ));
            self.stepped_ms += clock::now_ms() - started;
        }
        let live = self.sim.status.is_live();
        let moved = self.sim.now != self.sent_now || live != self.sent_live;
        let update = (self.asked > 0 && moved).then(|| {
            self.asked -= 1;
            let started = clock::now_ms();
            let mut bytes = self.sim.to_snapshot_since(self.sent_trace);
            let mut snapshot_bytes = 0;
            if self.travel_at.is_some_and(|t| self.sim.now >= t) {
                let snapshot = crate::travel::compressed_snapshot(&self.sim);
                snapshot_bytes = snapshot.len();
                bytes.extend_from_slice(&snapshot);
                self.travel_at = None;
            }
            let done = clock::now_ms();
            let wall = (done - self.load_since).max(1.0);
            let load = Load {
                stepping: self.stepped_ms / wall,
                writing: (done - started) / wall,
                pace: (self.sim.now - self.sent_now) as f64 / 1_000.0 / wall,
            };
            (self.stepped_ms, self.load_since) = (0.0, done);
            self.sent_trace = self.sim.trace.total();
            self.sent_now = self.sim.now;
            self.sent_live = live;
            let played = Played {
                session: self.session,
                now: self.sim.now,
                aim: self.aim.filter(|_| self.speed != Speed::Max),
                live,
                load,
                snapshot_bytes,
            };
            (played, bytes)
        });
        let next = if !live {
            Next::Idle
        } else if self.speed != Speed::Max && self.aim.is_some_and(|a| self.sim.now >= a) {
            Next::After(PACE_MS)
        } else {
            Next::Now
        };
        (update, next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::travel::TimeTravel;
    use barrierlab_engine::scenario::preset;

    /// What the page has after a play: its copy of the job, its time travel (snapshots from the
    /// worker's bytes), the same time travel recorded by the page itself, and how many updates
    /// carried a snapshot.
    struct Page {
        copy: Simulation,
        travel: TimeTravel,
        own: TimeTravel,
        snapshots: usize,
    }

    /// Plays `sim`'s copy in a player the way the worker does, the page applying each update,
    /// until the page's copy reaches `until`.
    fn play(sim: Simulation, speed: Speed, until: Micros) -> (Page, Player) {
        let mut page = Page {
            travel: TimeTravel::new(&sim),
            own: TimeTravel::new(&sim),
            copy: sim,
            snapshots: 0,
        };
        let snapshot = page.copy.to_snapshot();
        let mut player = Player::new(7, &snapshot, speed, page.travel.next_due()).unwrap();
        // A simulated wall clock: each slice is 20 ms after the last.
        let mut wall = 0.0;
        while page.copy.now < until {
            wall += 20.0;
            let (update, _) = player.slice(wall, 1_000.0);
            if let Some((played, bytes)) = update {
                assert_eq!(played.session, 7);
                let (update, snapshot) = played.parts(&bytes);
                page.copy.update_from_snapshot(update).unwrap();
                assert_eq!(page.copy.now, played.now);
                page.snapshots += usize::from(snapshot.is_some());
                page.travel
                    .record_written(&page.copy, snapshot.map(<[u8]>::to_vec));
                page.own.record(&page.copy);
                player.want(page.travel.next_due());
            }
        }
        (page, player)
    }

    #[test]
    fn the_pages_copy_updated_from_the_worker_is_the_job_it_plays() {
        let mut start = Simulation::new(preset("seed-demo").unwrap()).unwrap();
        start.run_until(1_000_000);
        let (Page { copy, .. }, player) = play(start, Speed::Ten, 12_000_000);
        assert_eq!(copy.fingerprint(), player.sim.fingerprint());
        assert_eq!(copy.to_snapshot(), player.sim.to_snapshot());
        // At 10x, 20 ms of wall clock a slice is 200 ms simulated.
        assert_eq!(copy.now % 200_000, 0, "{}", copy.now);
        // The same job run straight through on the page ends where the played one did.
        let mut straight = Simulation::new(preset("seed-demo").unwrap()).unwrap();
        straight.run_until(copy.now);
        assert_eq!(straight.fingerprint(), copy.fingerprint());
    }

    #[test]
    fn the_worker_writes_the_pages_time_travel_snapshots() {
        let start = Simulation::new(preset("seed-demo").unwrap()).unwrap();
        let (page, _) = play(start, Speed::Ten, 9_000_000);
        // Every 2 s from 0: at 2, 4, 6 and 8 s, each written by the worker.
        assert_eq!(page.snapshots, 4);
        assert_eq!(page.travel.times(), page.own.times());
        assert_eq!(page.travel.times().len(), 5);
        for t in page.travel.times() {
            let (theirs, ours) = (page.travel.seek(t).unwrap(), page.own.seek(t).unwrap());
            assert_eq!(theirs.to_snapshot(), ours.to_snapshot(), "at {t}");
        }
    }

    #[test]
    fn an_update_waits_for_the_page_to_ask() {
        let sim = Simulation::new(preset("seed-demo").unwrap()).unwrap();
        let mut player = Player::new(1, &sim.to_snapshot(), Speed::One, Micros::MAX).unwrap();
        let (first, _) = player.slice(0.0, 10.0);
        // The first slice at 1x only sets the pace; the second moves the job and posts.
        assert!(first.is_none());
        let (update, next) = player.slice(16.0, 10.0);
        assert!(update.is_some_and(|(p, _)| p.now == 16_000 && p.aim == Some(16_000)));
        assert_eq!(next, Next::After(PACE_MS));
        // Not asked again: nothing posted, however far the job moves.
        let (update, _) = player.slice(32.0, 10.0);
        assert!(update.is_none());
        player.want(Micros::MAX);
        let (update, _) = player.slice(48.0, 10.0);
        assert_eq!(update.map(|(p, _)| p.now), Some(48_000));
    }

    #[test]
    fn the_time_spent_writing_a_large_update_is_not_lost_at_1x() {
        let sim = Simulation::new(preset("seed-demo").unwrap()).unwrap();
        let mut player = Player::new(1, &sim.to_snapshot(), Speed::One, Micros::MAX).unwrap();
        player.slice(0.0, 10.0);
        player.slice(16.0, 10.0);
        // The next slice comes 600 ms later (the last one wrote a 21 MB update): the job aims
        // 600 simulated ms further, and keeps the wall clock.
        player.slice(616.0, 1_000.0);
        assert_eq!((player.aim, player.sim.now), (Some(616_000), 616_000));
        // A stall beyond a second is not made up.
        player.slice(5_616.0, 1_000.0);
        assert_eq!(player.aim, Some(1_616_000));
    }

    #[test]
    fn an_update_tells_how_the_worker_spent_its_time() {
        let sim = Simulation::new(preset("seed-demo").unwrap()).unwrap();
        let mut player = Player::new(1, &sim.to_snapshot(), Speed::Max, Micros::MAX).unwrap();
        let mut loads = vec![];
        for slice in 0..4 {
            let (update, _) = player.slice(f64::from(slice) * 30.0, 30.0);
            loads.extend(update.map(|(p, _)| p.load));
            player.want(Micros::MAX);
        }
        // At max speed a slice steps for its whole budget: nearly all the wall clock between
        // two updates (both are measured on the wall clock, so a busy machine does not matter).
        assert_eq!(loads.len(), 4);
        for l in loads {
            assert!(
                l.stepping > 0.5 && l.writing >= 0.0 && l.pace > 0.0,
                "{l:?}"
            );
            assert!(l.stepping + l.writing <= 1.0 + 1e-9, "{l:?}");
        }
    }

    #[test]
    fn a_job_that_ends_posts_its_end_and_rests() {
        let mut sim = Simulation::new(preset("seed-demo").unwrap()).unwrap();
        sim.run_until(3_000_000);
        let mut player = Player::new(1, &sim.to_snapshot(), Speed::Max, Micros::MAX).unwrap();
        crate::faults::UserAction::Cancel
            .apply(&mut player.sim)
            .unwrap();
        let (update, next) = player.slice(0.0, 10.0);
        let (played, bytes) = update.expect("the end is an update");
        assert!(!played.live && played.aim.is_none());
        assert_eq!(next, Next::Idle);
        sim.update_from_snapshot(&bytes).unwrap();
        assert!(!sim.status.is_live());
        player.want(Micros::MAX);
        assert_eq!(player.slice(10.0, 10.0), (None, Next::Idle));
    }
}
