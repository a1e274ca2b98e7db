//! `JobVertexID`s as Flink derives them for operators with a user-set uid.
//!
//! `StreamGraphHasherV2.generateUserSpecifiedHash` hashes the uid's UTF-8 bytes with Guava's
//! `Hashing.murmur3_128(0)` (MurmurHash3 x64 128-bit); a chain's `JobVertexID` is its head
//! operator's hash, printed as 32 hex digits (`AbstractID.toString`). `barrierlab export` sets
//! every operator's uid to its scenario name, so the simulator's vertex ids equal the ones the
//! exported job shows in Flink's REST API.

const C1: u64 = 0x87c3_7b91_1142_53d5;
const C2: u64 = 0x4cf5_ad43_2745_937f;

fn fmix64(mut k: u64) -> u64 {
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
    k ^= k >> 33;
    k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    k ^ (k >> 33)
}

fn mix_k1(k1: u64) -> u64 {
    k1.wrapping_mul(C1).rotate_left(31).wrapping_mul(C2)
}

fn mix_k2(k2: u64) -> u64 {
    k2.wrapping_mul(C2).rotate_left(33).wrapping_mul(C1)
}

/// MurmurHash3 x64 128 with seed 0, as Guava returns it: `h1` then `h2`, each little-endian.
pub fn murmur3_128(data: &[u8]) -> [u8; 16] {
    let (mut h1, mut h2) = (0u64, 0u64);
    let blocks = data.chunks_exact(16);
    let tail = blocks.remainder();
    for block in blocks {
        let k1 = u64::from_le_bytes(block[..8].try_into().expect("8 bytes"));
        let k2 = u64::from_le_bytes(block[8..].try_into().expect("8 bytes"));
        h1 ^= mix_k1(k1);
        h1 = h1
            .rotate_left(27)
            .wrapping_add(h2)
            .wrapping_mul(5)
            .wrapping_add(0x52dc_e729);
        h2 ^= mix_k2(k2);
        h2 = h2
            .rotate_left(31)
            .wrapping_add(h1)
            .wrapping_mul(5)
            .wrapping_add(0x3849_5ab5);
    }
    let little_endian = |bytes: &[u8]| {
        bytes
            .iter()
            .rev()
            .fold(0u64, |acc, &b| (acc << 8) | u64::from(b))
    };
    if tail.len() > 8 {
        h2 ^= mix_k2(little_endian(&tail[8..]));
    }
    if !tail.is_empty() {
        h1 ^= mix_k1(little_endian(&tail[..tail.len().min(8)]));
    }
    let len = data.len() as u64;
    h1 ^= len;
    h2 ^= len;
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    h1 = fmix64(h1);
    h2 = fmix64(h2);
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    let mut out = [0u8; 16];
    out[..8].copy_from_slice(&h1.to_le_bytes());
    out[8..].copy_from_slice(&h2.to_le_bytes());
    out
}

/// The `JobVertexID` of a chain whose head operator has uid `uid`, as 32 lower-case hex digits.
pub fn job_vertex_id(uid: &str) -> String {
    murmur3_128(uid.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(bytes: [u8; 16]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn murmur3_128_matches_guava_reference_values() {
        // `new JobVertexID(Hashing.murmur3_128(0).newHasher().putString(s, UTF_8).hash().asBytes())`
        // printed by Flink 2.3's own classes (flink-dist's shaded Guava): the empty input, a tail
        // only, and full blocks plus a tail.
        assert_eq!(hex(murmur3_128(b"")), "00000000000000000000000000000000");
        assert_eq!(
            hex(murmur3_128(b"hello")),
            "029bbd41b3a7d8cb191dae486a901e5b"
        );
        assert_eq!(
            hex(murmur3_128(b"The quick brown fox jumps over the lazy dog")),
            "6c1b07bc7bbc4be347939ac4a93c437a"
        );
    }

    #[test]
    fn vertex_ids_are_flinks_for_the_seed_operators() {
        let a = job_vertex_id("count-per-key");
        let b = job_vertex_id("datagen");
        assert_eq!(a, "5b61d6019ab04da71a4e62533c1a8c40");
        assert_eq!(b, "5eadbd25f5e5ea36e1d79110004cc6d7");
    }
}
