//! A TaskManager's JVM warming up: the first checkpoint a process runs loads, links and
//! initializes the checkpoint classes on each path, and runs their code interpreted. Real
//! Flink 2.3 on these machines (harness, every scenario) takes 60–140 ms for checkpoint 1 and
//! 10–20 ms for the next ones of the same job: the sources' start delay grows by ~30 ms, their
//! sync and async phases by ~12 ms each, a keyed subtask's by a few more. A checkpoint after a
//! failover runs warm (the TaskManagers outlive the tasks): `seed-2pc-kill`'s first checkpoint
//! after the restore takes 13–19 ms.
//!
//! The JVM initializes a class once, and threads that need it meanwhile block until it is done
//! (JLS §12.4.2). So a path here is cold until its first use has paid its cost; a subtask that
//! reaches it during that time waits for the same end, and one that reaches it later pays
//! nothing: a keyed subtask whose barrier comes 600 ms after the sources' (under backpressure)
//! syncs in 3 ms in Flink, not in 16.

pub use crate::scenario::WarmUpCosts;
use crate::types::{CheckpointId, Micros};

/// A checkpoint code path that is slow the first time a process runs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColdPath {
    /// `TaskExecutor.triggerCheckpoint` → the source's trigger mail (RPC, `CheckpointOptions`,
    /// checkpoint storage location).
    Trigger,
    /// The synchronous snapshot (`StreamOperatorStateHandler.snapshotState`, operator state).
    Sync,
    /// The async phase (`AsyncCheckpointRunnable`, checkpoint output streams, the ack).
    Async,
    /// A keyed state backend's snapshot strategy, sync part.
    KeyedSync,
    /// The same, async part (serializing key groups, or RocksDB's upload).
    KeyedAsync,
}

const PATHS: usize = 5;
const ALL: [ColdPath; PATHS] = [
    ColdPath::Trigger,
    ColdPath::Sync,
    ColdPath::Async,
    ColdPath::KeyedSync,
    ColdPath::KeyedAsync,
];

impl ColdPath {
    /// The path as a sentence names it.
    pub fn label(self) -> &'static str {
        match self {
            ColdPath::Trigger => "trigger",
            ColdPath::Sync => "sync phase",
            ColdPath::Async => "async phase",
            ColdPath::KeyedSync => "keyed snapshot (sync)",
            ColdPath::KeyedAsync => "keyed snapshot (async)",
        }
    }

    pub fn cost(self, costs: &WarmUpCosts) -> Micros {
        match self {
            ColdPath::Trigger => costs.trigger,
            ColdPath::Sync => costs.sync,
            ColdPath::Async => costs.async_phase,
            ColdPath::KeyedSync => costs.keyed_sync,
            ColdPath::KeyedAsync => costs.keyed_async,
        }
    }
}

/// One TaskManager process: per path, when it is (or will be) warm and which checkpoint first
/// ran it.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct WarmUp {
    first_use: [Option<(Micros, CheckpointId)>; PATHS],
}

impl WarmUp {
    /// A task reaches `path` at `at` for checkpoint `id`: how long it waits for the path's first
    /// use to finish (starting that first use itself if no one has).
    pub fn wait(
        &mut self,
        path: ColdPath,
        at: Micros,
        costs: &WarmUpCosts,
        id: CheckpointId,
    ) -> Micros {
        let (warm_at, _) =
            *self.first_use[path as usize].get_or_insert_with(|| (at + path.cost(costs), id));
        warm_at.saturating_sub(at)
    }

    /// [`WarmUp::wait`] on each of `paths` in turn, the next reached when the last is warm: the
    /// whole wait.
    pub fn wait_all(
        &mut self,
        paths: &[ColdPath],
        at: Micros,
        costs: &WarmUpCosts,
        id: CheckpointId,
    ) -> Micros {
        paths.iter().fold(0, |waited, p| {
            waited + self.wait(*p, at + waited, costs, id)
        })
    }

    /// The paths checkpoint `id` ran first in this process (and paid for, if they cost anything).
    pub fn warmed_by(&self, id: CheckpointId) -> impl Iterator<Item = ColdPath> + '_ {
        ALL.into_iter()
            .filter(move |p| self.first_use[*p as usize].is_some_and(|(_, by)| by == id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const COSTS: WarmUpCosts = WarmUpCosts {
        trigger: 27_000,
        sync: 11_000,
        async_phase: 12_000,
        keyed_sync: 5_000,
        keyed_async: 8_000,
    };

    #[test]
    fn the_first_use_pays_concurrent_ones_wait_for_it_later_ones_are_free() {
        let mut jvm = WarmUp::default();
        assert_eq!(jvm.wait(ColdPath::Sync, 1_000, &COSTS, 1), 11_000);
        // Reached while the classes are being initialized: blocked until they are.
        assert_eq!(jvm.wait(ColdPath::Sync, 4_000, &COSTS, 1), 8_000);
        assert_eq!(jvm.wait(ColdPath::Sync, 12_000, &COSTS, 1), 0);
        assert_eq!(jvm.wait(ColdPath::Sync, 500_000, &COSTS, 1), 0);
        // Each path warms up on its own.
        assert_eq!(jvm.wait(ColdPath::KeyedSync, 12_000, &COSTS, 1), 5_000);
        assert_eq!(jvm.wait(ColdPath::Trigger, 0, &COSTS, 1), 27_000);
        // Checkpoint 2 finds them warm and warms nothing.
        assert_eq!(jvm.wait(ColdPath::Async, 900_000, &COSTS, 2), 12_000);
        assert_eq!(jvm.wait(ColdPath::Sync, 900_000, &COSTS, 2), 0);
        let by_1: Vec<_> = jvm.warmed_by(1).collect();
        assert_eq!(
            by_1,
            [ColdPath::Trigger, ColdPath::Sync, ColdPath::KeyedSync]
        );
        assert_eq!(jvm.warmed_by(2).collect::<Vec<_>>(), [ColdPath::Async]);
    }

    #[test]
    fn a_chain_of_paths_waits_for_each_in_turn() {
        let mut jvm = WarmUp::default();
        let keyed = [ColdPath::Sync, ColdPath::KeyedSync];
        assert_eq!(jvm.wait_all(&keyed, 0, &COSTS, 1), 16_000);
        // Sync is warm at 11 ms, so KeyedSync is reached then; it is warm at 16 ms.
        assert_eq!(jvm.wait_all(&keyed, 3_000, &COSTS, 1), 13_000);
        // KeyedSync already warm (at 5 ms) when Sync is (at 11 ms): only Sync's wait counts.
        let mut jvm = WarmUp::default();
        assert_eq!(jvm.wait(ColdPath::KeyedSync, 0, &COSTS, 1), 5_000);
        assert_eq!(jvm.wait_all(&keyed, 0, &COSTS, 1), 11_000);
    }

    #[test]
    fn zero_costs_never_wait() {
        let mut jvm = WarmUp::default();
        let none = WarmUpCosts::default();
        for path in [ColdPath::Trigger, ColdPath::Sync, ColdPath::Async] {
            assert_eq!(jvm.wait(path, 7, &none, 1), 0);
            assert_eq!(jvm.wait(path, 8, &none, 1), 0);
        }
    }
}
