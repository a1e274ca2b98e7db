//! How often the page's timer ticks (simulates, then renders), and how much a tick simulates
//! (`state::playback::tick_budget`), from what the last ticks cost. A tick is one timer task: its
//! work and the browser's style, layout and paint after it must fit in a 60 Hz frame.
//!
//! When rendering is dear (thousands of subtasks), the frames between two ticks are not left
//! idle: each simulates on without rendering (`Beat::Between`, `state::playback::Between`). The
//! 4096-subtask job's main thread was 57 % idle at maximum speed, which ran at 0.04-0.25x.

use std::cell::Cell;

/// The timer's period: one chance to simulate and render per 60 Hz frame.
pub const FRAME_MS: u32 = 16;
/// Least time between two ticks otherwise: every other frame. Smooth enough for a small job at
/// 1x, which then does not render 60 times a second for a few records.
const EVERY_OTHER_FRAME_MS: f64 = 30.0;
/// ...and every third frame when rendering is dear (thousands of subtasks): the browser gets
/// frames of its own. Every other frame dropped 6 % of the 4096-subtask job's frames.
const EVERY_THIRD_FRAME_MS: f64 = 45.0;
/// Simulation work per tick (average, ms) from which every frame ticks: a large job, or maximum
/// speed, needs each frame's budget to keep up with the wall clock...
const DEAR_SIMULATION_MS: f64 = 3.0;
/// ...if rendering costs at most this (average, ms). A peak rule (no dear render lately) was
/// tried: the 4096-subtask job's renders that take several frames come every few hundred ms at
/// any cadence, and bench-512's checkpoint renders then kept it from ticking every frame (0.7x
/// real time instead of 1.0-1.7x, no fewer frames dropped).
const DEAR_RENDER_MS: f64 = 5.0;

/// A moving average, so that one dear render (a checkpoint completing redraws the history) does
/// not starve the ticks after it.
fn average(before: f64, newest: f64) -> f64 {
    0.75 * before + 0.25 * newest
}

/// What the timer's callback does this frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Beat {
    /// Simulate, then render.
    Tick,
    /// Simulate on without rendering: the render is dear, and this frame is not a tick's.
    Between,
    /// Nothing: a cheap job that does not need this frame.
    Rest,
}

/// What the last ticks cost, wall-clock ms.
#[derive(Default)]
pub struct Cadence {
    last_tick: Cell<Option<f64>>,
    simulation: Cell<f64>,
    render: Cell<f64>,
}

impl Cadence {
    /// What the timer's callback at `now` does.
    pub fn beat(&self, now: f64) -> Beat {
        if self.due(now) {
            Beat::Tick
        } else if self.render.get() > DEAR_RENDER_MS {
            Beat::Between
        } else {
            Beat::Rest
        }
    }

    /// Whether the timer's callback at `now` ticks.
    fn due(&self, now: f64) -> bool {
        let dear_render = self.render.get() > DEAR_RENDER_MS;
        let every = if dear_render {
            EVERY_THIRD_FRAME_MS
        } else if self.simulation.get() >= DEAR_SIMULATION_MS {
            0.0
        } else {
            EVERY_OTHER_FRAME_MS
        };
        let due = self.last_tick.get().is_none_or(|last| now - last >= every);
        if due {
            self.last_tick.set(Some(now));
        }
        due
    }

    /// A tick reduced the state (simulated) in `ms`.
    pub fn simulated(&self, ms: f64) {
        self.simulation.set(average(self.simulation.get(), ms));
    }

    /// The page rendered a tick's state in `ms`.
    pub fn rendered(&self, ms: f64) {
        self.render.set(average(self.render.get(), ms));
    }

    /// The render cost the next tick budgets for.
    pub fn render_ms(&self) -> f64 {
        self.render.get()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn after(simulation: f64, renders: &[f64]) -> Cadence {
        let c = Cadence::default();
        for _ in 0..20 {
            c.simulated(simulation);
        }
        for &r in renders {
            c.rendered(r);
        }
        c
    }

    #[test]
    fn a_cheap_simulation_ticks_every_other_frame() {
        // The seed's job at 1x: a fraction of a millisecond a tick.
        let c = after(0.2, &[3.0; 20]);
        assert!(c.due(0.0));
        assert!(!c.due(16.0));
        assert!(c.due(32.0));
    }

    #[test]
    fn a_dear_simulation_ticks_every_frame_while_renders_are_cheap() {
        // A 512-subtask job, or any job at maximum speed.
        let c = after(10.0, &[3.0; 20]);
        assert!(c.due(0.0));
        assert!(c.due(16.0));
        // One dear render (a checkpoint completes) moves the average to 9.75 ms: every third
        // frame until cheap renders bring it back.
        c.rendered(30.0);
        assert!(!c.due(32.0));
        assert!(!c.due(48.0));
        assert!(c.due(64.0));
        for _ in 0..5 {
            c.rendered(3.0);
        }
        assert!(c.due(80.0));
    }

    #[test]
    fn the_frames_between_dear_renders_simulate_those_of_a_cheap_job_rest() {
        let dear = after(1.0, &[20.0; 20]);
        assert_eq!(dear.beat(0.0), Beat::Tick);
        assert_eq!(dear.beat(16.0), Beat::Between);
        assert_eq!(dear.beat(32.0), Beat::Between);
        assert_eq!(dear.beat(48.0), Beat::Tick);
        let cheap = after(0.2, &[3.0; 20]);
        assert_eq!(cheap.beat(0.0), Beat::Tick);
        assert_eq!(cheap.beat(16.0), Beat::Rest);
        assert_eq!(cheap.beat(32.0), Beat::Tick);
    }

    #[test]
    fn one_dear_render_moves_the_average_a_quarter_of_the_way() {
        assert_eq!(average(2.0, 30.0), 9.0);
        assert_eq!(average(9.0, 1.0), 7.0);
    }
}
