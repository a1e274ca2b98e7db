//! `KeyGroupRangeOffsets`: where each key group starts in a keyed snapshot's stream. A restoring
//! subtask seeks to the offsets of the key groups its new range shares with the handle's range, which
//! is what makes rescaling by key group possible without reading the whole file.

use serde::{Deserialize, Serialize};

use super::key_group::KeyGroupRange;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyGroupRangeOffsets {
    pub key_group_range: KeyGroupRange,
    /// One byte offset per key group of the range, ascending key group order.
    pub offsets: Vec<u64>,
}

impl KeyGroupRangeOffsets {
    /// Errors when there is not exactly one offset per key group (Flink's precondition).
    pub fn new(key_group_range: KeyGroupRange, offsets: Vec<u64>) -> Result<Self, String> {
        if offsets.len() as u64 != u64::from(key_group_range.len()) {
            return Err(format!(
                "{} offsets for a key-group range of {} key groups",
                offsets.len(),
                key_group_range.len()
            ));
        }
        Ok(KeyGroupRangeOffsets {
            key_group_range,
            offsets,
        })
    }

    /// `getKeyGroupOffset`; `None` for a key group outside the range.
    pub fn offset(&self, key_group: u32) -> Option<u64> {
        if !self.key_group_range.contains(key_group) {
            return None;
        }
        self.offsets
            .get((key_group - self.key_group_range.start) as usize)
            .copied()
    }

    /// `getIntersection`: the offsets of the key groups also in `range`.
    pub fn intersection(&self, range: &KeyGroupRange) -> KeyGroupRangeOffsets {
        let common = self.key_group_range.intersection(range);
        let offsets = common.iter().filter_map(|kg| self.offset(kg)).collect();
        KeyGroupRangeOffsets {
            key_group_range: common,
            offsets,
        }
    }

    /// `(key group, offset)` pairs in ascending key group order.
    pub fn iter(&self) -> impl Iterator<Item = (u32, u64)> + '_ {
        self.key_group_range
            .iter()
            .zip(self.offsets.iter().copied())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_lookup_and_intersection() {
        let o = KeyGroupRangeOffsets::new(KeyGroupRange::new(4, 7), vec![10, 20, 30, 40]).unwrap();
        assert_eq!(o.offset(4), Some(10));
        assert_eq!(o.offset(7), Some(40));
        assert_eq!(o.offset(8), None);
        assert_eq!(o.offset(0), None);
        let i = o.intersection(&KeyGroupRange::new(6, 100));
        assert_eq!(i.key_group_range, KeyGroupRange::new(6, 7));
        assert_eq!(i.iter().collect::<Vec<_>>(), vec![(6, 30), (7, 40)]);
        assert!(KeyGroupRangeOffsets::new(KeyGroupRange::new(0, 1), vec![0]).is_err());
    }
}
