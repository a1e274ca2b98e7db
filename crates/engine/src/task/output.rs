//! `RecordWriter` + `ChannelSelector`: routes a task's output records to the subpartitions of its
//! result partitions by the edge's partitioner.

use crate::network::{Network, PartitionId, Record};
use crate::scenario::Partitioner;
use crate::state::compute_operator_index_for_key_group;

/// One output edge of a task: its result partition and how records pick a subpartition.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct OutputRoute {
    pub partition: PartitionId,
    pub partitioner: Partitioner,
    /// Downstream parallelism and max parallelism (for keyBy).
    pub downstream_parallelism: u32,
    pub downstream_max_parallelism: u32,
    /// Round-robin position (rebalance, rescale).
    pub next: u32,
}

impl OutputRoute {
    /// `RecordWriter.emit` with the edge's `ChannelSelector.selectChannel`: emits `records`;
    /// returns the subpartitions that got a finished buffer.
    pub fn emit(&mut self, net: &mut Network, records: &[Record], touched: &mut Vec<u32>) {
        let partition = &mut net.partitions[self.partition as usize];
        let n = partition.num_subpartitions();
        // One loop per partitioner, so the per-record work is only the selection itself.
        let mut to = |sub: u32, rec: &Record, memo: u32| {
            if partition.emit_remembering(sub as usize, rec, memo).finished > 0 {
                touched.push(sub);
            }
        };
        match self.partitioner {
            Partitioner::Broadcast => {
                for rec in records {
                    for sub in 0..n {
                        to(sub, rec, rec.key_group_memo);
                    }
                }
            }
            Partitioner::Hash => {
                let (max, p) = (self.downstream_max_parallelism, self.downstream_parallelism);
                for rec in records {
                    // `KeyGroupStreamPartitioner`: key group of the key, then its operator index.
                    let (kg, memo) = rec.key_group_with_memo(max);
                    to(compute_operator_index_for_key_group(max, p, kg), rec, memo);
                }
            }
            Partitioner::Forward => {
                for rec in records {
                    to(0, rec, rec.key_group_memo);
                }
            }
            Partitioner::Rescale | Partitioner::Rebalance => {
                // Round robin: one division for the start (it may lie past `n`), then
                // `(next + 1) % n` by comparison.
                let mut next = self.next % n;
                for rec in records {
                    let s = next;
                    next = if s + 1 == n { 0 } else { s + 1 };
                    to(s, rec, rec.key_group_memo);
                }
                self.next = next;
            }
        }
        touched.sort_unstable();
        touched.dedup();
    }
}

/// Flink's `POINTWISE` distribution (forward, rescale): which consumer subtasks producer `i`
/// of `up` feeds when the consumer has `down` subtasks.
pub fn pointwise_targets(i: u32, up: u32, down: u32) -> Vec<u32> {
    if up == down {
        vec![i]
    } else if up < down {
        let start = (u64::from(i) * u64::from(down) / u64::from(up)) as u32;
        let end = ((u64::from(i) + 1) * u64::from(down) / u64::from(up)) as u32;
        (start..end).collect()
    } else {
        vec![(u64::from(i) * u64::from(down) / u64::from(up)) as u32]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointwise_covers_every_consumer_once() {
        for (up, down) in [(2, 4), (4, 2), (3, 3), (3, 7), (7, 3)] {
            let mut fed = vec![0; down as usize];
            for i in 0..up {
                for t in pointwise_targets(i, up, down) {
                    fed[t as usize] += 1;
                }
            }
            assert!(fed.iter().all(|&c| c >= 1), "{up}->{down}: {fed:?}");
            if up <= down {
                assert!(fed.iter().all(|&c| c == 1));
            }
        }
    }
}
