//! Busy / idle / backpressured time of a subtask, as Flink's `busyTimeMsPerSecond`,
//! `idleTimeMsPerSecond` and `backPressuredTimeMsPerSecond` measure it.

use serde::Serialize;

use super::timer_gauge::{GaugeValues, TimerGauges};
use crate::types::{Micros, MICROS_PER_SEC};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, serde::Deserialize)]
pub enum TimeState {
    Busy,
    #[default]
    Idle,
    Backpressured,
}

/// Seconds of history kept for windowed ratios.
const WINDOW_SECONDS: usize = 60;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct TimeSplit {
    pub busy: Micros,
    pub idle: Micros,
    pub backpressured: Micros,
}

impl TimeSplit {
    fn add(&mut self, state: TimeState, d: Micros) {
        match state {
            TimeState::Busy => self.busy += d,
            TimeState::Idle => self.idle += d,
            TimeState::Backpressured => self.backpressured += d,
        }
    }
    pub fn total(&self) -> Micros {
        self.busy + self.idle + self.backpressured
    }
}

#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct TaskTime {
    pub state: TimeState,
    since: Micros,
    pub total: TimeSplit,
    /// Per whole second of simulated time, the newest `WINDOW_SECONDS` of them.
    seconds: std::collections::VecDeque<(u64, TimeSplit)>,
    /// Flink's gauges of the same time, as the REST API reads them.
    pub gauges: TimerGauges,
}

impl TaskTime {
    /// Enters `state` at `now`, booking the time since the last change to the previous state.
    pub fn set(&mut self, now: Micros, state: TimeState) {
        self.advance(now);
        self.state = state;
    }

    /// Books time up to `now` without changing state.
    pub fn advance(&mut self, now: Micros) {
        let mut t = self.since;
        while t < now {
            let second = t / MICROS_PER_SEC;
            let end = ((second + 1) * MICROS_PER_SEC).min(now);
            self.gauges.book(self.state, t, end);
            self.total.add(self.state, end - t);
            match self.seconds.back_mut() {
                Some((s, split)) if *s == second => split.add(self.state, end - t),
                _ => {
                    let mut split = TimeSplit::default();
                    split.add(self.state, end - t);
                    self.seconds.push_back((second, split));
                    if self.seconds.len() > WINDOW_SECONDS {
                        self.seconds.pop_front();
                    }
                }
            }
            t = end;
        }
        self.since = now.max(self.since);
    }

    /// The task registers its metrics (it is RUNNING): its gauges count from `now`; the
    /// registry's `ViewUpdater` ticks at `phase` plus multiples of 5 s.
    pub fn register_gauges(&mut self, now: Micros, phase: Micros) {
        self.advance(now);
        self.gauges.register(now, phase);
    }

    /// What Flink's `TimerGauge`s read at `now` (their last update at or before it).
    pub fn gauges_at(&self, now: Micros) -> GaugeValues {
        let mut gauges = self.gauges.clone();
        gauges.book(self.state, self.since, now.max(self.since));
        gauges.values()
    }

    /// The split over the last `window` complete-or-current seconds.
    pub fn recent(&self, window: usize) -> TimeSplit {
        let mut sum = TimeSplit::default();
        for (_, s) in self.seconds.iter().rev().take(window) {
            sum.busy += s.busy;
            sum.idle += s.idle;
            sum.backpressured += s.backpressured;
        }
        sum
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn books_time_to_the_state_it_was_spent_in() {
        let mut t = TaskTime::default();
        t.set(0, TimeState::Busy);
        t.set(1_500_000, TimeState::Backpressured);
        t.set(2_000_000, TimeState::Idle);
        t.advance(3_000_000);
        assert_eq!(t.total.busy, 1_500_000);
        assert_eq!(t.total.backpressured, 500_000);
        assert_eq!(t.total.idle, 1_000_000);
        let last_two = t.recent(2);
        assert_eq!(last_two.busy, 500_000);
        assert_eq!(last_two.total(), 2_000_000);
    }
}
