//! Flink's `TimerGauge` views of a task's idle and backpressured time, the gauges behind
//! `idleTimeMsPerSecond`, `backPressuredTimeMsPerSecond` and `busyTimeMsPerSecond` (1000 minus the
//! other two, `TaskIOMetricGroup.getBusyTimePerSecond`), which the REST API and the Web UI's
//! BackPressure tab report.
//!
//! They are not the last second's split. `TimerGauge` is a `View`: the metric registry's
//! `ViewUpdater` calls `update()` every 5 s, which closes a slot, and the value is the mean over
//! the slots so far, at most 12 (60 s), in whole milliseconds per second, at most 1000. A view is
//! added on the updater's first tick after it registers and first updated on the next one, so
//! the first slot spans 5-10 s but is divided by 5 s: for up to a minute a task reads more idle
//! (or backpressured) than it was, and busy time 1000 until the first update. Measured on Flink
//! 2.3 (two-input-join's payments chain, 1 ms a record at 200 records/s a subtask): the task's
//! accumulated busy time was 0.23 of its run while the gauge read 0 busy for 20 s, then 50 and
//! 120 ms per second, as this model gives.

use super::time::{TimeSplit, TimeState};
use crate::types::Micros;

/// `View.UPDATE_INTERVAL_SECONDS`.
pub const UPDATE_INTERVAL: Micros = 5_000_000;
/// `TimerGauge`'s default time span, 60 s: 12 slots.
const SLOTS: usize = 12;

/// The idle and backpressured `TimerGauge`s of one task, from its registration on.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct TimerGauges {
    /// The next `update()`; `None` until the task registers its metrics (it is RUNNING).
    next_update: Option<Micros>,
    /// Time booked since the last update (or the registration).
    pending: TimeSplit,
    /// Closed slots, newest last: idle and backpressured milliseconds.
    slots: std::collections::VecDeque<(u64, u64)>,
}

/// What the gauges read: milliseconds per second.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GaugeValues {
    pub idle: u64,
    pub backpressured: u64,
}

impl GaugeValues {
    /// `busyTimeMsPerSecond`: 1000 minus idle and backpressured time, at least 0.
    pub fn busy(&self) -> u64 {
        1000 - (self.idle + self.backpressured).min(1000)
    }
}

impl TimerGauges {
    /// The task registers its gauges at `now`; the registry's `ViewUpdater` ticks at `phase`
    /// plus multiples of 5 s. The first update is the second tick after `now`.
    pub fn register(&mut self, now: Micros, phase: Micros) {
        let phase = phase % UPDATE_INTERVAL;
        let first_tick = if now < phase {
            phase
        } else {
            phase + ((now - phase) / UPDATE_INTERVAL + 1) * UPDATE_INTERVAL
        };
        *self = TimerGauges {
            next_update: Some(first_tick + UPDATE_INTERVAL),
            ..TimerGauges::default()
        };
    }

    /// Books `state` over `from..to`, running every update due in it.
    pub fn book(&mut self, state: TimeState, mut from: Micros, to: Micros) {
        while let Some(next) = self.next_update {
            let end = to.min(next.max(from));
            match state {
                TimeState::Idle => self.pending.idle += end - from,
                TimeState::Backpressured => self.pending.backpressured += end - from,
                TimeState::Busy => {}
            }
            if end < next {
                return;
            }
            self.slots
                .push_back((self.pending.idle / 1000, self.pending.backpressured / 1000));
            if self.slots.len() > SLOTS {
                self.slots.pop_front();
            }
            self.pending = TimeSplit::default();
            self.next_update = Some(next + UPDATE_INTERVAL);
            from = end;
        }
    }

    /// The values as of the last update (`TimerGauge.getValue`): 0 before the first.
    pub fn values(&self) -> GaugeValues {
        if self.slots.is_empty() {
            return GaugeValues::default();
        }
        let span_seconds = (UPDATE_INTERVAL / 1_000_000) * self.slots.len() as u64;
        let mean = |f: fn(&(u64, u64)) -> u64| {
            (self.slots.iter().map(f).sum::<u64>() / span_seconds).min(1000)
        };
        GaugeValues {
            idle: mean(|s| s.0),
            backpressured: mean(|s| s.1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Micros = 1_000_000;

    /// Books `idle` of every second idle and the rest busy, from `from` to `to`.
    fn run(g: &mut TimerGauges, from: Micros, to: Micros, idle: Micros) {
        let mut t = from;
        while t < to {
            let idle_end = t / S * S + idle;
            let (state, end) = if t < idle_end {
                (TimeState::Idle, idle_end)
            } else {
                (TimeState::Busy, (t / S + 1) * S)
            };
            let end = end.min(to);
            g.book(state, t, end);
            t = end;
        }
    }

    #[test]
    fn reads_zero_idle_until_the_second_tick_after_registration() {
        let mut g = TimerGauges::default();
        g.register(900_000, 4_200_000);
        // Ticks at 4.2 s (the view is added) and 9.2 s (its first update).
        run(&mut g, 900_000, 9_199_999, 800_000);
        assert_eq!(g.values(), GaugeValues::default());
        assert_eq!(g.values().busy(), 1000);
        run(&mut g, 9_199_999, 9_200_000, 800_000);
        assert_ne!(g.values(), GaugeValues::default());
    }

    #[test]
    fn the_first_slot_spans_more_than_five_seconds_and_is_divided_by_five() {
        // 0.8 idle from 0.9 s: the first slot holds 8.3 s of it, 0.78 x 8.3 = 6.5 s, over 5 s.
        let mut g = TimerGauges::default();
        g.register(900_000, 4_200_000);
        run(&mut g, 900_000, 9_200_000, 780_000);
        assert_eq!(g.values().idle, 1000, "clamped at 1000");
        run(&mut g, 9_200_000, 19_200_000, 780_000);
        // (6474 + 3900 + 3900) / 15 s.
        let idle = g.values().idle;
        assert!((940..=960).contains(&idle), "{idle}");
        run(&mut g, 19_200_000, 29_200_000, 780_000);
        let idle = g.values().idle;
        assert!((870..=890).contains(&idle), "{idle}");
        // After 12 more slots the first has left the window: the true 780.
        run(&mut g, 29_200_000, 89_200_000, 780_000);
        let idle = g.values().idle;
        assert!((775..=785).contains(&idle), "{idle}");
    }

    #[test]
    fn backpressured_time_is_a_gauge_of_its_own() {
        let mut g = TimerGauges::default();
        g.register(0, 0);
        g.book(TimeState::Backpressured, 0, 7 * S);
        g.book(TimeState::Idle, 7 * S, 10 * S);
        assert_eq!(
            g.values(),
            GaugeValues {
                idle: 600,
                backpressured: 1000
            }
        );
        assert_eq!(g.values().busy(), 0);
    }
}
