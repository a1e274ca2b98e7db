//! Key groups: Flink's `KeyGroupRangeAssignment`, the `MathUtils` hashing it relies on, and
//! `KeyGroupRange`.
//!
//! A key is hashed with Java's `hashCode()`, scrambled with `MathUtils.murmurHash` and reduced modulo
//! the max parallelism to a key group; contiguous ranges of key groups belong to one subtask. The
//! arithmetic is reproduced bit for bit so that "which subtask owns key 7" matches a real Flink job.

use serde::{Deserialize, Serialize};

/// `KeyGroupRangeAssignment.DEFAULT_LOWER_BOUND_MAX_PARALLELISM`.
pub const DEFAULT_LOWER_BOUND_MAX_PARALLELISM: u32 = 128;
/// `KeyGroupRangeAssignment.UPPER_BOUND_MAX_PARALLELISM` (`Transformation.UPPER_BOUND_MAX_PARALLELISM`).
pub const UPPER_BOUND_MAX_PARALLELISM: u32 = 32_768;

/// `Integer.hashCode()`: the value itself.
pub fn java_hash_i32(v: i32) -> i32 {
    v
}

/// `Long.hashCode()`: `(int) (v ^ (v >>> 32))`.
pub fn java_hash_i64(v: i64) -> i32 {
    let bits = v as u64;
    (bits ^ (bits >> 32)) as u32 as i32
}

/// `String.hashCode()`: `s[0]*31^(n-1) + … + s[n-1]` over UTF-16 code units, wrapping like Java `int`.
pub fn java_hash_str(s: &str) -> i32 {
    s.encode_utf16().fold(0i32, |h, unit| {
        h.wrapping_mul(31).wrapping_add(i32::from(unit))
    })
}

/// `MathUtils.murmurHash(int)`: one 4-byte Murmur3 x86_32 block with seed 0, then fmix32; the result
/// is made non-negative by negation, with `Integer.MIN_VALUE` (which has no positive twin) mapped to 0.
pub fn murmur_hash(code: i32) -> i32 {
    let mut k = code as u32;
    k = k.wrapping_mul(0xcc9e_2d51);
    k = k.rotate_left(15);
    k = k.wrapping_mul(0x1b87_3593);

    let mut h = k.rotate_left(13);
    h = h.wrapping_mul(5).wrapping_add(0xe654_6b64);
    // Length in bytes of the hashed input, as Murmur3 mixes it into the tail.
    h ^= 4;

    let h = bit_mix(h) as i32;
    if h >= 0 {
        h
    } else if h != i32::MIN {
        -h
    } else {
        0
    }
}

/// `MathUtils.bitMix`: Murmur3's fmix32 finaliser.
fn bit_mix(mut h: u32) -> u32 {
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^= h >> 16;
    h
}

/// `MathUtils.roundUpToPowerOfTwo`, in u64 so `p + p/2` cannot overflow for any u32 parallelism.
fn round_up_to_power_of_two(x: u64) -> u64 {
    x.max(1).next_power_of_two()
}

/// `KeyGroupRangeAssignment.computeDefaultMaxParallelism`: 1.5 × p rounded up to a power of two,
/// clamped to `[128, 32768]`. Used when `pipeline.max-parallelism` is left at -1.
pub fn compute_default_max_parallelism(parallelism: u32) -> u32 {
    let p = u64::from(parallelism);
    let raw = round_up_to_power_of_two(p + p / 2);
    raw.clamp(
        u64::from(DEFAULT_LOWER_BOUND_MAX_PARALLELISM),
        u64::from(UPPER_BOUND_MAX_PARALLELISM),
    ) as u32
}

/// `KeyGroupRangeAssignment.checkParallelismPreconditions` plus the max-parallelism bounds: the
/// message-returning gate callers use before the infallible functions below.
pub fn check_parallelism(max_parallelism: u32, parallelism: u32) -> Result<(), String> {
    if max_parallelism == 0 || max_parallelism > UPPER_BOUND_MAX_PARALLELISM {
        return Err(format!(
            "max parallelism {max_parallelism} is outside 1..={UPPER_BOUND_MAX_PARALLELISM}"
        ));
    }
    if parallelism == 0 || parallelism > max_parallelism {
        return Err(format!(
            "parallelism {parallelism} must be in 1..=max parallelism {max_parallelism}"
        ));
    }
    Ok(())
}

/// `KeyGroupRangeAssignment.computeKeyGroupForKeyHash`: `murmurHash(hash) % maxParallelism`.
/// A max parallelism of 0 (rejected by [`check_parallelism`]) is treated as 1 rather than panicking.
pub fn assign_to_key_group(key_hash: i32, max_parallelism: u32) -> u32 {
    // murmur_hash is never negative, so the cast keeps its value.
    let hash = murmur_hash(key_hash) as u32;
    let max = max_parallelism.max(1);
    // The usual power-of-two max parallelism needs no division (same result).
    if max.is_power_of_two() {
        hash & (max - 1)
    } else {
        hash % max
    }
}

/// `KeyGroupRangeAssignment.computeOperatorIndexForKeyGroup`: `kg * p / maxP`, in u64 because Java's
/// int product cannot overflow within the bounds but a u32 one could for unchecked input.
pub fn compute_operator_index_for_key_group(
    max_parallelism: u32,
    parallelism: u32,
    key_group: u32,
) -> u32 {
    let product = u64::from(key_group) * u64::from(parallelism);
    let max = max_parallelism.max(1);
    if max.is_power_of_two() {
        (product >> max.trailing_zeros()) as u32
    } else {
        (product / u64::from(max)) as u32
    }
}

/// `KeyGroupRangeAssignment.assignKeyToParallelOperator`: key hash → key group → subtask index.
pub fn assign_key_to_parallel_operator(
    key_hash: i32,
    max_parallelism: u32,
    parallelism: u32,
) -> u32 {
    let kg = assign_to_key_group(key_hash, max_parallelism);
    compute_operator_index_for_key_group(max_parallelism, parallelism, kg)
}

/// `KeyGroupRange`: the inclusive interval `[start, end]` of key groups one subtask owns. Empty when
/// `end < start`; every empty range is normalised to [`KeyGroupRange::EMPTY`] so equality works.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct KeyGroupRange {
    pub start: u32,
    pub end: u32,
}

impl KeyGroupRange {
    /// Flink's `KeyGroupRange.EMPTY_KEY_GROUP_RANGE` is `[0, -1]`; u32 cannot say -1, so `[1, 0]`.
    pub const EMPTY: KeyGroupRange = KeyGroupRange { start: 1, end: 0 };

    pub fn new(start: u32, end: u32) -> KeyGroupRange {
        if end < start {
            KeyGroupRange::EMPTY
        } else {
            KeyGroupRange { start, end }
        }
    }

    /// `computeKeyGroupRangeForOperatorIndex`: `start = ceil(i*maxP / p)`, `end = ((i+1)*maxP - 1) / p`.
    /// Empty when there are more subtasks than key groups and this one gets none, and for an index
    /// that is not a subtask of `parallelism`.
    pub fn for_operator_index(max_parallelism: u32, parallelism: u32, index: u32) -> KeyGroupRange {
        if index >= parallelism {
            return KeyGroupRange::EMPTY;
        }
        let max_p = u64::from(max_parallelism);
        let p = u64::from(parallelism.max(1));
        let i = u64::from(index);
        let start = (i * max_p).div_ceil(p);
        let end_plus_one = (i + 1) * max_p;
        if end_plus_one == 0 {
            return KeyGroupRange::EMPTY;
        }
        let end = (end_plus_one - 1) / p;
        if start > end || end > u64::from(u32::MAX) {
            return KeyGroupRange::EMPTY;
        }
        KeyGroupRange::new(start as u32, end as u32)
    }

    pub fn is_empty(&self) -> bool {
        self.end < self.start
    }

    /// `getNumberOfKeyGroups`.
    pub fn len(&self) -> u32 {
        if self.is_empty() {
            0
        } else {
            self.end - self.start + 1
        }
    }

    pub fn contains(&self, key_group: u32) -> bool {
        !self.is_empty() && self.start <= key_group && key_group <= self.end
    }

    /// The key groups in ascending order (the order a snapshot writes them).
    pub fn iter(&self) -> impl Iterator<Item = u32> {
        let (start, end) = (self.start, self.end);
        (start..=end).filter(move |_| start <= end)
    }

    /// `getIntersection`: used on restore to pick the key groups a new owner takes from an old handle.
    pub fn intersection(&self, other: &KeyGroupRange) -> KeyGroupRange {
        if self.is_empty() || other.is_empty() {
            return KeyGroupRange::EMPTY;
        }
        KeyGroupRange::new(self.start.max(other.start), self.end.min(other.end))
    }
}

/// A record key as the simulator knows it: the Java types a `KeyedStream` is usually keyed by.
/// `Ord` gives state maps a deterministic iteration order.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum StateKey {
    Int(i32),
    Long(i64),
    Str(String),
}

/// Hashes only the value, not the variant: a state map holds keys of one serializer, so the
/// variant tells nothing apart, and an int key costs one hash round instead of two.
impl std::hash::Hash for StateKey {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        match self {
            StateKey::Int(v) => state.write_i32(*v),
            StateKey::Long(v) => state.write_i64(*v),
            StateKey::Str(s) => s.hash(state),
        }
    }
}

impl StateKey {
    /// The key's Java `hashCode()`, the input to key-group assignment.
    pub fn java_hash(&self) -> i32 {
        match self {
            StateKey::Int(v) => java_hash_i32(*v),
            StateKey::Long(v) => java_hash_i64(*v),
            StateKey::Str(s) => java_hash_str(s),
        }
    }

    pub fn key_group(&self, max_parallelism: u32) -> u32 {
        assign_to_key_group(self.java_hash(), max_parallelism)
    }

    /// Bytes Flink's key serializer writes: `IntSerializer` 4, `LongSerializer` 8, `StringSerializer`
    /// (`StringValue.writeString`) a variable-length `len + 1` then each UTF-16 unit as 1–3 bytes of
    /// 7-bit groups.
    pub fn serialized_size(&self) -> u64 {
        match self {
            StateKey::Int(_) => 4,
            StateKey::Long(_) => 8,
            StateKey::Str(s) => {
                let units = s.encode_utf16().count() as u64;
                let chars: u64 = s.encode_utf16().map(|u| varint_len(u64::from(u))).sum();
                varint_len(units + 1) + chars
            }
        }
    }
}

/// Length of a 7-bits-per-byte variable-length integer, as `StringValue` writes lengths and chars.
fn varint_len(mut v: u64) -> u64 {
    let mut n = 1;
    while v >= 0x80 {
        v >>= 7;
        n += 1;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_keys_split_seven_nine_over_two_subtasks() {
        let max_p = compute_default_max_parallelism(2);
        assert_eq!(max_p, 128);
        let owners: Vec<u32> = (0..=15)
            .map(|k| assign_key_to_parallel_operator(java_hash_i32(k), max_p, 2))
            .collect();
        // Derived by hand from the formulas (key → murmur → kg → subtask); e.g. key 0 → kg 94 → 1.
        assert_eq!(owners, vec![1, 1, 1, 1, 0, 1, 0, 1, 0, 0, 1, 1, 0, 0, 0, 1]);
        assert_eq!(owners.iter().filter(|&&o| o == 0).count(), 7);
        assert_eq!(owners.iter().filter(|&&o| o == 1).count(), 9);
        // Long keys 0..=15 hash to the same ints, so the split is the same.
        for k in 0..=15i64 {
            assert_eq!(java_hash_i64(k), k as i32);
        }
    }

    #[test]
    fn murmur_known_values() {
        // Worked through the algorithm step by step (u32 wrapping arithmetic, then sign fix).
        assert_eq!(murmur_hash(0), 593_689_054);
        assert_eq!(murmur_hash(1), 68_075_478);
        assert_eq!(murmur_hash(2), 1_085_422_463);
        assert_eq!(murmur_hash(42), 1_134_849_565);
        assert_eq!(murmur_hash(-1), 1_982_413_648);
        assert_eq!(assign_to_key_group(0, 128), 94);
        assert_eq!(assign_to_key_group(13, 128), 1);
        for code in [i32::MIN, i32::MAX, -7, 123_456_789] {
            assert!(murmur_hash(code) >= 0);
        }
    }

    #[test]
    fn java_hash_codes() {
        assert_eq!(java_hash_str(""), 0);
        assert_eq!(java_hash_str("a"), 97);
        assert_eq!(java_hash_str("hello"), 99_162_322);
        // Overflowing string hash wraps like Java int.
        assert_eq!(java_hash_str("polygenelubricants"), i32::MIN);
        // A non-BMP char counts as two UTF-16 units.
        assert_eq!(java_hash_str("😀"), 0xD83D * 31 + 0xDE00);
        assert_eq!(java_hash_i64(-1), 0);
        assert_eq!(java_hash_i64(1 << 32), 1);
        assert_eq!(java_hash_i64(i64::MIN), i32::MIN);
        assert_eq!(StateKey::Str("a".into()).serialized_size(), 2);
    }

    #[test]
    fn default_max_parallelism() {
        assert_eq!(compute_default_max_parallelism(1), 128);
        assert_eq!(compute_default_max_parallelism(100), 256);
        assert_eq!(compute_default_max_parallelism(1000), 2048);
        assert_eq!(compute_default_max_parallelism(30_000), 32_768);
        assert_eq!(compute_default_max_parallelism(u32::MAX), 32_768);
        assert!(check_parallelism(128, 2).is_ok());
        assert!(check_parallelism(0, 1).is_err());
        assert!(check_parallelism(4, 5).is_err());
    }

    #[test]
    fn ranges_partition_all_key_groups_and_invert() {
        for (max_p, p) in [
            (128, 1),
            (128, 2),
            (128, 3),
            (128, 7),
            (10, 10),
            (5, 8),
            (32_768, 9),
        ] {
            let mut seen = vec![0u32; max_p as usize];
            for i in 0..p {
                let r = KeyGroupRange::for_operator_index(max_p, p, i);
                for kg in r.iter() {
                    seen[kg as usize] += 1;
                    assert_eq!(compute_operator_index_for_key_group(max_p, p, kg), i);
                }
                assert_eq!(r.iter().count() as u32, r.len());
            }
            assert!(seen.iter().all(|&c| c == 1), "max_p {max_p} p {p}");
        }
        assert_eq!(
            KeyGroupRange::for_operator_index(128, 2, 0),
            KeyGroupRange::new(0, 63)
        );
        assert_eq!(
            KeyGroupRange::for_operator_index(128, 2, 1),
            KeyGroupRange::new(64, 127)
        );
    }

    #[test]
    fn empty_range_and_intersection() {
        let e = KeyGroupRange::new(5, 4);
        assert_eq!(e, KeyGroupRange::EMPTY);
        assert_eq!(e.len(), 0);
        assert_eq!(e.iter().count(), 0);
        assert!(!e.contains(1));
        let a = KeyGroupRange::new(0, 63);
        assert_eq!(
            a.intersection(&KeyGroupRange::new(32, 95)),
            KeyGroupRange::new(32, 63)
        );
        assert_eq!(
            a.intersection(&KeyGroupRange::new(64, 127)),
            KeyGroupRange::EMPTY
        );
    }
}
