//! Buffer debloating (FLIP-183), after Flink 2.3's `ThroughputCalculator`, `BufferSizeEMA` and
//! `BufferDebloater` (flink-runtime `throughput/`). Every `buffer-debloat.period` a task asks each
//! of its input gates how many bytes it took in while not idle, and sizes the buffers so that
//! what is queued (buffers in use × buffer size) drains in `buffer-debloat.target`. The size is
//! announced to every producer subpartition of the gate; a producer trims each new
//! `BufferBuilder` to it, so the number of buffers (credit) stays and the bytes in flight shrink.
//!
//! Flink averages in `double`; the engine keeps floats out of its logic, so the moving average
//! runs in fixed point (1/65536 byte), which differs from Flink's by less than a byte.

use super::{GlobalChannelId, Network};
pub use crate::scenario::DebloatConfig;
use crate::types::{Micros, MICROS_PER_SEC};

/// `ThroughputCalculator`: bytes a gate handed to its task, over the time the task was not idle
/// waiting for that gate (`pauseMeasurement` when a poll found nothing).
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct ThroughputCalculator {
    /// Bytes per second, as last calculated.
    current: u64,
    accumulated: u64,
    measured: Micros,
    /// `measurementStartTime`; `None` while paused.
    start: Option<Micros>,
}

impl ThroughputCalculator {
    /// `resumeMeasurement` + `incomingDataSize`: the gate handed over `bytes`.
    pub fn incoming(&mut self, now: Micros, bytes: u64) {
        self.start.get_or_insert(now);
        self.accumulated += bytes;
    }

    /// `pauseMeasurement`: the gate had nothing; the time until the next data does not count.
    pub fn pause(&mut self, now: Micros) {
        if let Some(start) = self.start.take() {
            self.measured += now.saturating_sub(start);
        }
    }

    /// `calculateThroughput`: bytes per second over the measured time since the last call; with
    /// no measured time, the previous figure.
    pub fn calculate(&mut self, now: Micros) -> u64 {
        if let Some(start) = self.start {
            self.measured += now.saturating_sub(start);
            self.start = Some(now);
        }
        if self.measured > 0 {
            self.current = (u128::from(self.accumulated) * u128::from(MICROS_PER_SEC)
                / u128::from(self.measured)) as u64;
        }
        self.accumulated = 0;
        self.measured = 0;
        self.current
    }
}

/// Fixed-point unit of [`BufferSizeEma`]: 1/65536 byte.
const SCALE: i128 = 1 << 16;

/// `BufferSizeEMA`: an exponential moving average with alpha = 2 / (samples + 1), whose input is
/// capped at twice the current size, so that it grows as fast as it shrinks.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct BufferSizeEma {
    max: u32,
    min: u32,
    samples: u32,
    /// The average, in 1/65536 byte.
    last: i128,
}

impl BufferSizeEma {
    pub fn new(starting: u32, max: u32, min: u32, samples: u32) -> Self {
        BufferSizeEma {
            max,
            min,
            samples,
            last: i128::from(starting) * SCALE,
        }
    }

    /// The next size for `total_bytes` spread over `buffers` (at least 1).
    pub fn calculate(&mut self, total_bytes: u64, buffers: u32) -> u32 {
        let desirable =
            (i128::from(total_bytes) * SCALE / i128::from(buffers.max(1))).min(2 * self.last);
        self.last += (desirable - self.last) * 2 / (i128::from(self.samples) + 1);
        let (lo, hi) = (i128::from(self.min) * SCALE, i128::from(self.max) * SCALE);
        self.last = self.last.min(hi).max(lo);
        ((self.last + SCALE / 2) / SCALE) as u32
    }
}

/// `BufferDebloater`: one per input gate.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct BufferDebloater {
    target: Micros,
    max: u32,
    min: u32,
    threshold_percent: u32,
    ema: BufferSizeEma,
    last_size: u32,
    /// The size the last recalculation arrived at, announced or not.
    pub last_computed: u32,
    /// `getLastEstimatedTimeToConsumeBuffers` (the `estimatedTimeToConsumeBuffersMs` gauge).
    pub last_estimated_time: Micros,
}

impl BufferDebloater {
    pub fn new(c: &DebloatConfig) -> Self {
        BufferDebloater {
            target: c.target,
            max: c.max_size,
            min: c.min_size,
            threshold_percent: c.threshold_percent,
            ema: BufferSizeEma::new(c.starting_size, c.max_size, c.min_size, c.samples),
            last_size: c.starting_size,
            last_computed: c.starting_size,
            last_estimated_time: 0,
        }
    }

    /// The size last announced (the `debloatedBufferSize` gauge).
    pub fn last_size(&self) -> u32 {
        self.last_size
    }

    /// `recalculateBufferSize`: the new size to announce, or `None` when it is too close to the
    /// last one.
    pub fn recalculate(&mut self, throughput: u64, buffers_in_use: u32) -> Option<u32> {
        let buffers = buffers_in_use.max(1);
        let desired_total =
            (u128::from(throughput) * u128::from(self.target) / u128::from(MICROS_PER_SEC)) as u64;
        let size = self.ema.calculate(desired_total, buffers);
        self.last_computed = size;
        self.last_estimated_time =
            (u128::from(size) * u128::from(buffers) * u128::from(MICROS_PER_SEC)
                / u128::from(throughput.max(1))) as Micros;
        if self.skip_update(size) {
            return None;
        }
        self.last_size = size;
        Some(size)
    }

    /// `skipUpdate`: unchanged, or within the threshold of the last size (the bounds always pass).
    fn skip_update(&self, size: u32) -> bool {
        if size == self.last_size {
            return true;
        }
        if size <= self.min || size >= self.max {
            return false;
        }
        let delta = u64::from(self.last_size) * u64::from(self.threshold_percent) / 100;
        u64::from(size.abs_diff(self.last_size)) < delta
    }
}

/// A gate's debloating state.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct GateDebloat {
    pub throughput: ThroughputCalculator,
    pub debloater: BufferDebloater,
}

/// What one gate's recalculation did, for the trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recalculated {
    pub throughput: u64,
    pub buffers_in_use: u32,
    /// The size computed.
    pub size: u32,
    /// The size announced, if it changed enough.
    pub announced: Option<u32>,
}

impl Network {
    /// Turns debloating on: every gate measures and every subpartition starts at the starting
    /// size.
    pub fn enable_debloating(&mut self, c: &DebloatConfig) {
        for gate in &mut self.gates {
            gate.debloat = Some(Box::new(GateDebloat {
                throughput: ThroughputCalculator::default(),
                debloater: BufferDebloater::new(c),
            }));
        }
        for p in &mut self.partitions {
            for s in &mut p.subpartitions {
                s.buffer_size = c.starting_size;
            }
        }
    }

    pub fn debloating(&self) -> bool {
        self.gates.first().is_some_and(|g| g.debloat.is_some())
    }

    /// Channel `g`'s gate handed `bytes` to its task.
    pub fn count_received(&mut self, g: GlobalChannelId, now: Micros, bytes: u64) {
        let gate = self.channels[g as usize].gate as usize;
        if let Some(d) = self.gates[gate].debloat.as_mut() {
            d.throughput.incoming(now, bytes);
        }
    }

    /// The task reading `gate` found no input: the time until the next data does not count.
    pub fn pause_measurement(&mut self, gate: u32, now: Micros) {
        if let Some(d) = self.gates[gate as usize].debloat.as_mut() {
            d.throughput.pause(now);
        }
    }

    /// `SingleInputGate.getBuffersInUseCount`: per remote channel, the buffers received and not
    /// read plus the sender's backlog; per local channel, what its subpartition holds (the
    /// queue and the buffer being written).
    pub fn buffers_in_use(&self, gate: u32) -> u32 {
        self.gates[gate as usize]
            .channels
            .iter()
            .map(|&g| {
                let c = &self.channels[g as usize];
                if c.kind == super::ChannelKind::Local {
                    let p = &self.partitions[c.partition as usize];
                    p.subpartitions[c.subpartition as usize].queue.len() as u32
                        + u32::from(p.has_open_builder(c.subpartition as usize))
                } else {
                    c.received.len() as u32 + c.backlog
                }
            })
            .sum()
    }

    /// `SingleInputGate.triggerDebloating`: recomputes `gate`'s buffer size. A new size goes to
    /// local producers at once; the remote channels it must still reach are returned.
    pub fn trigger_debloating(
        &mut self,
        gate: u32,
        now: Micros,
        remote: &mut Vec<GlobalChannelId>,
    ) -> Option<Recalculated> {
        let buffers_in_use = self.buffers_in_use(gate);
        let d = self.gates[gate as usize].debloat.as_mut()?;
        let throughput = d.throughput.calculate(now);
        let announced = d.debloater.recalculate(throughput, buffers_in_use);
        let size = d.debloater.last_computed;
        if let Some(size) = announced {
            for i in 0..self.gates[gate as usize].channels.len() {
                let g = self.gates[gate as usize].channels[i];
                if self.channels[g as usize].kind == super::ChannelKind::Local {
                    self.set_buffer_size(g, size);
                } else {
                    remote.push(g);
                }
            }
        }
        Some(Recalculated {
            throughput,
            buffers_in_use,
            size,
            announced,
        })
    }

    /// `PipelinedSubpartition.bufferSize`: channel `g`'s producer trims its next buffers to
    /// `size` (a remote channel's `NewBufferSize` message arrived).
    pub fn set_buffer_size(&mut self, g: GlobalChannelId, size: u32) {
        let c = &self.channels[g as usize];
        let (pid, sub) = (c.partition as usize, c.subpartition as usize);
        self.partitions[pid].subpartitions[sub].buffer_size = size;
    }

    /// `gate`'s `debloatedBufferSize` (the size last announced) and
    /// `estimatedTimeToConsumeBuffers` gauges, if it debloats.
    pub fn debloater_gauges(&self, gate: u32) -> Option<(u32, Micros)> {
        self.gates[gate as usize]
            .debloat
            .as_ref()
            .map(|d| (d.debloater.last_size(), d.debloater.last_estimated_time))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> DebloatConfig {
        DebloatConfig {
            target: MICROS_PER_SEC,
            period: 200_000,
            samples: 20,
            threshold_percent: 25,
            min_size: 256,
            max_size: 32 * 1024,
            starting_size: 1024,
        }
    }

    #[test]
    fn throughput_leaves_out_idle_time() {
        let mut t = ThroughputCalculator::default();
        t.incoming(0, 7);
        t.pause(1_000);
        // Idle for 9 ms: not measured.
        t.incoming(10_000, 3);
        assert_eq!(t.calculate(11_000), 5_000, "10 bytes in 2 ms");
        // Nothing measured since: the previous figure.
        t.pause(11_000);
        assert_eq!(t.calculate(50_000), 5_000);
    }

    #[test]
    fn the_average_moves_by_alpha_and_at_most_doubles() {
        // Flink's example in BufferSizeEMA: from 32768 towards 0 with alpha = 0.1 (19 samples).
        let mut e = BufferSizeEma::new(32768, 32768, 1, 19);
        let shrink: Vec<u32> = (0..5).map(|_| e.calculate(0, 1)).collect();
        assert_eq!(shrink, [29491, 26542, 23888, 21499, 19349]);
        // Growing towards a huge value is capped at twice the current size per step.
        let grow = e.calculate(u64::MAX / 2, 1);
        assert_eq!(grow, 19349 + 1935);
        // Bounds.
        let mut small = BufferSizeEma::new(300, 32768, 256, 1);
        assert_eq!(small.calculate(0, 1), 256);
    }

    #[test]
    fn debloater_announces_only_changes_above_the_threshold() {
        let mut d = BufferDebloater::new(&DebloatConfig {
            samples: 1, // alpha = 1: the size follows the input at once (up to doubling)
            ..config()
        });
        // 2048 bytes/s over 1 s target in 1 buffer: desired 2048 = twice 1024, announced.
        assert_eq!(d.recalculate(2048, 1), Some(2048));
        // +20 % is below the 25 % threshold.
        assert_eq!(d.recalculate(2048 * 12 / 10, 1), None);
        assert_eq!(d.last_size(), 2048);
        // The bounds are always announced.
        assert_eq!(d.recalculate(0, 1), Some(256));
        assert_eq!(d.recalculate(0, 1), None, "unchanged");
        assert_eq!(d.last_estimated_time, 256 * MICROS_PER_SEC);
    }

    #[test]
    fn buffers_in_use_spread_the_target() {
        let mut d = BufferDebloater::new(&DebloatConfig {
            samples: 1,
            starting_size: 8192,
            ..config()
        });
        // 100 KB/s for 1 s over 20 buffers: 5 KB each.
        assert_eq!(d.recalculate(100_000, 20), Some(5000));
        assert_eq!(d.last_estimated_time, MICROS_PER_SEC);
    }
}
