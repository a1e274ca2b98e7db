//! RocksDB's flush thread as a TaskManager sees it. Every RocksDB (and ForSt) instance in one
//! process shares the default `Env`, whose high-priority pool holds one thread with Flink's
//! options (`max_background_jobs` 2 gives one flush slot). A checkpoint's sync phase waits for its
//! memtable flush, so the keyed subtasks of one TaskManager flush one after another: real Flink
//! 2.3 (harness `rocksdb-incremental`, `forst`) shows one of two keyed subtasks syncing in
//! ~125 ms and the other in ~255 ms, every checkpoint; which goes first changes from one
//! checkpoint to the next, with whichever barrier the subtasks take first.

use crate::types::Micros;

/// One TaskManager's flush thread: when it is next free.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FlushThread {
    free_at: Micros,
}

impl FlushThread {
    /// A flush of `duration` requested at `now`: how long the requesting task waits for it,
    /// queueing included.
    pub fn flush(&mut self, now: Micros, duration: Micros) -> Micros {
        let start = self.free_at.max(now);
        self.free_at = start + duration;
        self.free_at - now
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flushes_queue_for_the_one_thread() {
        let mut t = FlushThread::default();
        assert_eq!(t.flush(1_000, 100), 100);
        // Requested while the first runs: it waits for it.
        assert_eq!(t.flush(1_050, 100), 150);
        // Requested after both: no wait.
        assert_eq!(t.flush(5_000, 100), 100);
    }
}
