//! Deterministic hostile inputs for [`super::decode`]: what chat apps, mail clients, cut-and-paste
//! and people with a hex editor do to links.
//!
//! The generator lives in the engine, not the CLI, so that the engine's own tests run a fast subset
//! of the very inputs `barrierlab fuzz-links` runs by the million. It is seeded like the simulation
//! (ChaCha8), so a failure report `--seed S` plus an input's index reproduces the input anywhere.

use miniz_oxide::deflate::compress_to_vec;
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

use super::{encode, LinkError, LinkOptions, MAX_JSON_BYTES};
use crate::scenario::{preset, Fault, PRESETS};

/// How an input was made, with its share of the inputs in percent (they add up to 100).
pub const CATEGORIES: &[(&str, u64)] = &[
    ("valid", 4),
    ("garbage", 14),
    ("truncated", 14),
    ("bit-flip", 16),
    ("splice", 10),
    ("prefix-garbage", 12),
    ("garbage-json", 16),
    ("options", 12),
    // Each costs a 1 MiB decompression, a thousand times a normal link: few, but always some.
    ("bomb", 2),
];

/// One generated input and how it was made.
#[derive(Debug, Clone)]
pub struct FuzzInput {
    pub category: &'static str,
    pub text: String,
}

/// An endless, deterministic stream of inputs for the link decoder.
pub struct LinkFuzzer {
    rng: ChaCha8Rng,
    /// Valid links of every preset, with and without options.
    links: Vec<String>,
    /// Compact JSON of every preset, to corrupt before compressing.
    jsons: Vec<String>,
    /// Links whose data expands far past [`MAX_JSON_BYTES`].
    bombs: Vec<String>,
}

const BASE64URL: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
/// Characters that mean something in a link, to make garbage that gets past the first checks.
const LINK_CHARS: &[u8] = b"#&=.v0123456789-_ABCDEFabcdefxyz+/%? \n";
const JSON_CHARS: &[u8] = b"{}[]\",:0123456789-.etruflasn \\u";

impl LinkFuzzer {
    pub fn new(seed: u64) -> LinkFuzzer {
        let mut scenarios: Vec<_> = PRESETS.iter().filter_map(|(n, _)| preset(n)).collect();
        // One scenario with faults, so their JSON and validation are exercised too.
        if let Some(mut s) = preset("seed-2pc") {
            s.faults.push(Fault::Kill {
                task: "count-per-key#1".into(),
                at: "12s".into(),
            });
            scenarios.push(s);
        }
        let options = LinkOptions {
            until: Some(12_000_000),
            autoplay: Some(true),
            speed: Some("2".into()),
            theme: Some("dark".into()),
            panel: Some("timeline".into()),
            checkpoint: Some(3),
            embed: true,
        };
        let mut links = Vec::new();
        for s in &scenarios {
            links.push(encode(s, &LinkOptions::default()));
            links.push(encode(s, &options));
        }
        let jsons = scenarios.iter().map(|s| s.to_json()).collect();
        let bomb = |bytes: Vec<u8>| link_of(&compress_to_vec(&bytes, 1));
        let mut json_bomb = br#"{"name":""#.to_vec();
        json_bomb.resize(2 * MAX_JSON_BYTES, b'x');
        let bombs = vec![
            bomb(vec![0; MAX_JSON_BYTES + 1]),
            bomb(vec![b' '; 4 * MAX_JSON_BYTES]),
            bomb(json_bomb),
        ];
        LinkFuzzer {
            rng: ChaCha8Rng::seed_from_u64(seed),
            links,
            jsons,
            bombs,
        }
    }

    /// The next input.
    pub fn next_input(&mut self) -> FuzzInput {
        let mut roll = self.below(100) as u64;
        let mut category = CATEGORIES[0].0;
        for (name, share) in CATEGORIES {
            if roll < *share {
                category = name;
                break;
            }
            roll -= share;
        }
        let text = match category {
            "valid" => self.pick_link(),
            "garbage" => self.garbage(),
            "truncated" => self.truncated(),
            "bit-flip" => self.bit_flip(),
            "splice" => self.splice(),
            "prefix-garbage" => self.prefix_garbage(),
            "garbage-json" => self.garbage_json(),
            "options" => self.options(),
            _ => self.bomb(),
        };
        FuzzInput { category, text }
    }

    /// Uniform in `0..n` (`n` > 0). Modulo bias is irrelevant for fuzzing.
    fn below(&mut self, n: usize) -> usize {
        (self.rng.next_u64() % n.max(1) as u64) as usize
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    fn pick_link(&mut self) -> String {
        let i = self.below(self.links.len());
        self.links[i].clone()
    }

    fn chars_from(&mut self, alphabet: &[u8], len: usize) -> String {
        (0..len)
            .map(|_| *self.pick(alphabet) as char)
            .collect::<String>()
    }

    fn random_bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.rng.next_u64() as u8).collect()
    }

    fn garbage(&mut self) -> String {
        let len = if self.chance(90) {
            self.below(120)
        } else {
            self.below(4000)
        };
        match self.below(4) {
            0 => String::from_utf8_lossy(&self.random_bytes(len)).into_owned(),
            1 => self.chars_from(LINK_CHARS, len),
            2 => (0..len)
                .filter_map(|_| char::from_u32(self.rng.next_u64() as u32 % 0x11000))
                .collect(),
            _ => {
                let version = self.below(12);
                let data = self.chars_from(BASE64URL, len);
                format!("#v{version}.{data}")
            }
        }
    }

    fn truncated(&mut self) -> String {
        let link = self.pick_link();
        // Links are ASCII, so every index is a char boundary.
        let cut = self.below(link.len() + 1);
        if self.chance(80) {
            link[..cut].to_string()
        } else {
            link[cut..].to_string()
        }
    }

    fn bit_flip(&mut self) -> String {
        let mut bytes = self.pick_link().into_bytes();
        for _ in 0..1 + self.below(4) {
            let i = self.below(bytes.len());
            bytes[i] ^= 1 << self.below(8);
        }
        String::from_utf8_lossy(&bytes).into_owned()
    }

    fn splice(&mut self) -> String {
        let (a, b) = (self.pick_link(), self.pick_link());
        let (i, j) = (self.below(a.len() + 1), self.below(b.len() + 1));
        if self.chance(50) {
            format!("{}{}", &a[..i], &b[j..])
        } else {
            let k = j + self.below(b.len() - j + 1);
            format!("{}{}{}", &a[..i], &b[j..k], &a[i..])
        }
    }

    fn prefix_garbage(&mut self) -> String {
        let len = self.below(400);
        let data = if self.chance(50) {
            self.chars_from(BASE64URL, len)
        } else {
            // Valid base64 of random bytes: gets past base64 to the decompressor.
            let bytes = self.random_bytes(len);
            link_of(&bytes).trim_start_matches("#v1.").to_string()
        };
        format!("#v1.{data}")
    }

    fn garbage_json(&mut self) -> String {
        let i = self.below(self.jsons.len());
        let json = self.jsons[i].clone();
        let bytes: Vec<u8> = match self.below(5) {
            0 | 1 => self.mutate_text(json.into_bytes()),
            2 => self.mutate_value(&json).into_bytes(),
            3 => {
                let len = self.below(300);
                self.random_bytes(len)
            }
            _ => {
                let shapes = [
                    "",
                    "null",
                    "[]",
                    "{}",
                    "\"x\"",
                    "1e999",
                    "{\"name\":1}",
                    "{\"version\":2}",
                    "{\"name\":\"x\",\"operators\":[]}",
                    "[[[[[[[[[[[[[[[[[[[[[[[[",
                ];
                self.pick(&shapes).as_bytes().to_vec()
            }
        };
        let level = *self.pick(&[0u8, 1, 6]);
        link_of(&compress_to_vec(&bytes, level))
    }

    /// Byte edits: deletions, insertions and replacements, mostly of JSON-ish characters.
    fn mutate_text(&mut self, mut bytes: Vec<u8>) -> Vec<u8> {
        for _ in 0..1 + self.below(3) {
            let i = self.below(bytes.len() + 1);
            match self.below(3) {
                0 if i < bytes.len() => {
                    let end = (i + 1 + self.below(8)).min(bytes.len());
                    bytes.drain(i..end);
                }
                1 => bytes.insert(i, *self.pick(JSON_CHARS)),
                _ if i < bytes.len() => bytes[i] = *self.pick(JSON_CHARS),
                _ => bytes.push(self.rng.next_u64() as u8),
            }
        }
        bytes
    }

    /// Well-formed JSON with a wrong value in it: what validation (not parsing) must catch.
    fn mutate_value(&mut self, json: &str) -> String {
        let Ok(mut value) = serde_json::from_str::<serde_json::Value>(json) else {
            return json.to_string();
        };
        let numbers = [0u64, 1, 3, 1000, 32_769, u32::MAX as u64 + 1, u64::MAX];
        let n = *self.pick(&numbers);
        let ops = value["operators"].as_array().map_or(0, Vec::len);
        if ops == 0 {
            // serde_json's index assignment panics out of bounds; presets always have operators.
            return json.to_string();
        }
        let op = self.below(ops);
        match self.below(6) {
            0 => value["operators"][op]["parallelism"] = n.into(),
            1 => value["operators"][op]["max-parallelism"] = n.into(),
            2 => value["operators"][op]["name"] = "renamed".into(),
            3 => value["config"]["execution.checkpointing.interval"] = "soon".into(),
            4 => value["faults"] = serde_json::json!([{"kill": {"task": "nobody#0", "at": "1s"}}]),
            _ => value["cluster"]["slots-per-taskmanager"] = n.into(),
        }
        value.to_string()
    }

    fn options(&mut self) -> String {
        let link = self.pick_link();
        let base = link.split('&').next().unwrap_or("").to_string();
        let mut suffix = String::new();
        for _ in 0..1 + self.below(4) {
            let len = 1 + self.below(12);
            let segment = match self.below(8) {
                0 => "until=12s".to_string(),
                1 => format!("until={}", self.chars_from(b"0123456789msuh x", 3)),
                2 => format!("speed={}", self.chars_from(b"0123456789.-e", len / 2)),
                3 => format!("checkpoint={}", self.chars_from(b"0123456789+", len * 2)),
                4 => format!("theme={}", self.chars_from(b"darklight-_ X%", len * 3)),
                5 => {
                    let odd = [
                        "embed",
                        "autoplay=yes",
                        "embed=0",
                        "autplay=1",
                        "",
                        "=",
                        "==x",
                    ];
                    self.pick(&odd).to_string()
                }
                6 => self.chars_from(LINK_CHARS, len - 1),
                _ => self.pick(crate::share::OPTION_KEYS).to_string(),
            };
            suffix.push('&');
            suffix.push_str(&segment);
        }
        format!("{base}{suffix}")
    }

    fn bomb(&mut self) -> String {
        let i = self.below(self.bombs.len());
        let bomb = self.bombs[i].clone();
        match self.below(3) {
            0 => bomb,
            1 => format!("{bomb}&until=1s"),
            _ => {
                let cut = bomb.len() / 2 + self.below(bomb.len() / 2);
                bomb[..cut].to_string()
            }
        }
    }
}

impl Iterator for LinkFuzzer {
    type Item = FuzzInput;

    fn next(&mut self) -> Option<FuzzInput> {
        Some(self.next_input())
    }
}

/// `#v1.` + base64url of `bytes`, whatever they are.
fn link_of(bytes: &[u8]) -> String {
    use base64::Engine;
    format!(
        "#v1.{}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
    )
}

/// The outcome of one decode as a name: `ok` or the error's [`LinkError::kind`].
pub fn outcome<T>(result: &Result<T, LinkError>) -> &'static str {
    match result {
        Ok(_) => "ok",
        Err(e) => e.kind(),
    }
}
