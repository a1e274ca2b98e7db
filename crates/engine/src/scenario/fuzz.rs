//! Deterministic hostile scenarios: mutated copies of every preset, as a user who types extremes,
//! rewires edges and pastes markup makes them. `barrierlab fuzz-scenarios` runs them by the million;
//! the engine's own tests run a subset. Seeded with ChaCha8 like the simulation, so `--seed S` and a
//! case's index reproduce it anywhere.

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use serde_json::Value;

use super::config_keys::CONFIG_KEYS;
use super::knobs::{COMMON_KNOBS, DATAGEN_KNOBS, FILTER_KNOBS, WINDOW_KNOBS};
use super::model::{OperatorKind, Scenario};
use super::presets::{preset, PRESETS};
use super::set::apply_set;

/// How a case was made, with its share in percent (they add up to 100).
pub const CATEGORIES: &[(&str, u64)] = &[
    ("number", 22),
    ("scale", 2),
    ("duration", 12),
    ("set", 20),
    ("partitioner", 10),
    ("topology", 10),
    ("faults", 4),
    ("name", 6),
    ("config-type", 8),
    ("combined", 6),
];

/// Numbers at their extremes, as JSON text (NaN and infinities are not JSON: they go in as
/// strings and tokens a hand-edited file might hold).
pub const HOSTILE_NUMBERS: &[&str] = &[
    "0",
    "-1",
    "1",
    "2",
    "2147483648",
    "4294967296",
    "9223372036854775807",
    "18446744073709551615",
    "1e308",
    "-0",
    "0.5",
    "\"NaN\"",
    "\"Infinity\"",
    "null",
    "true",
    "\"\"",
    "1000000",
    "65536",
];

/// Durations a user may type, hostile and plausible.
pub const HOSTILE_DURATIONS: &[&str] = &[
    "0ms",
    "-1s",
    "999999999d",
    "1us",
    "0",
    "1ms",
    "10ms",
    "5 s",
    "1h",
    "18446744073709551615ms",
    "1e9s",
    "NaN",
    "",
    "ms",
    "5 parsecs",
    "100000h",
];

const PARTITIONERS: &[&str] = &["forward", "hash", "rebalance", "rescale", "broadcast"];

const OPERATOR_TYPES: [&str; 11] = OperatorKind::TYPE_NAMES;

/// One generated case: a scenario as JSON text (what a file or an editor holds) plus `--set`
/// assignments to apply to it, in order.
#[derive(Debug, Clone)]
pub struct ScenarioCase {
    pub category: &'static str,
    pub json: String,
    pub sets: Vec<String>,
}

impl ScenarioCase {
    /// Parses and applies the `--set`s: the scenario, or the message refusing it.
    pub fn scenario(&self) -> Result<Scenario, String> {
        let mut s = Scenario::from_json(&self.json)?;
        for set in &self.sets {
            apply_set(&mut s, set)?;
        }
        Ok(s)
    }
}

/// An endless, deterministic stream of hostile scenarios.
pub struct ScenarioFuzzer {
    rng: ChaCha8Rng,
    presets: Vec<Value>,
}

impl ScenarioFuzzer {
    pub fn new(seed: u64) -> ScenarioFuzzer {
        let presets = PRESETS
            .iter()
            .filter_map(|(n, _)| preset(n))
            .filter_map(|s| serde_json::from_str(&s.to_json_pretty()).ok())
            .collect();
        ScenarioFuzzer {
            rng: ChaCha8Rng::seed_from_u64(seed),
            presets,
        }
    }

    fn below(&mut self, n: usize) -> usize {
        (self.rng.next_u64() % n.max(1) as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    fn category(&mut self) -> &'static str {
        let mut roll = self.rng.next_u64() % 100;
        for (name, share) in CATEGORIES {
            if roll < *share {
                return name;
            }
            roll -= share;
        }
        CATEGORIES[0].0
    }

    fn mutate(&mut self, category: &'static str, doc: &mut Value, sets: &mut Vec<String>) {
        match category {
            "number" => self.number(doc),
            "duration" => self.duration(doc),
            "set" => sets.push(self.set_assignment(doc)),
            "partitioner" => self.partitioners(doc),
            "topology" => self.topology(doc),
            "name" => self.name(doc),
            "config-type" => self.config_type(doc),
            "scale" => self.scale(doc),
            "faults" => self.faults(doc),
            _ => {
                for _ in 0..2 + self.below(3) {
                    // Any but "combined" and "scale": combined scale-ups are too costly to run by
                    // the million.
                    let choices: Vec<&'static str> = CATEGORIES
                        .iter()
                        .map(|c| c.0)
                        .filter(|c| !matches!(*c, "scale" | "combined"))
                        .collect();
                    let c = *self.pick(&choices);
                    self.mutate(c, doc, sets);
                }
            }
        }
    }

    /// A numeric field (rate, record-size, keys, parallelism, ...) set to an extreme.
    fn number(&mut self, doc: &mut Value) {
        let mut paths = Vec::new();
        numeric_paths(doc, &mut Vec::new(), &mut paths);
        // Fields a preset leaves out still take values.
        let n = ops_len(doc);
        for i in 0..n {
            for f in ["parallelism", "max-parallelism"] {
                paths.push(vec![
                    Step::Key("operators".into()),
                    Step::Index(i),
                    Step::Key(f.into()),
                ]);
            }
        }
        for f in ["taskmanagers", "slots-per-taskmanager"] {
            paths.push(vec![Step::Key("cluster".into()), Step::Key(f.into())]);
        }
        let path = self.pick(&paths).clone();
        let text = *self.pick(HOSTILE_NUMBERS);
        let value: Value = serde_json::from_str(text).unwrap_or(Value::Null);
        set_path(doc, &path, value);
    }

    fn duration(&mut self, doc: &mut Value) {
        let d = Value::String(self.pick(HOSTILE_DURATIONS).to_string());
        let n = ops_len(doc);
        match self.below(3) {
            0 if n > 0 => {
                let i = self.below(n);
                set_path(
                    doc,
                    &[
                        Step::Key("operators".into()),
                        Step::Index(i),
                        Step::Key("cost-per-record".into()),
                    ],
                    d,
                );
            }
            1 => {
                let keys: Vec<&str> = CONFIG_KEYS
                    .iter()
                    .filter(|k| matches!(k.kind, super::ValueKind::Duration { .. }))
                    .map(|k| k.key)
                    .collect();
                let key = self.pick(&keys).to_string();
                set_path(doc, &[Step::Key("config".into()), Step::Key(key)], d);
            }
            _ => {
                let e = edges_len(doc);
                if e > 0 {
                    let i = self.below(e);
                    set_path(
                        doc,
                        &[
                            Step::Key("edges".into()),
                            Step::Index(i),
                            Step::Key("latency".into()),
                        ],
                        d,
                    );
                }
            }
        }
    }

    /// A `--set` of a Flink key or an operator knob with a hostile value.
    fn set_assignment(&mut self, doc: &Value) -> String {
        let value = match self.below(3) {
            0 => self.pick(HOSTILE_NUMBERS).trim_matches('"').to_string(),
            1 => self.pick(HOSTILE_DURATIONS).to_string(),
            _ => [
                "true",
                "unaligned",
                "exactly_once",
                "32kb",
                "1gb",
                "-5mb",
                "x",
            ][self.below(7)]
            .to_string(),
        };
        if self.below(2) == 0 {
            let key = self.pick(CONFIG_KEYS).key;
            return format!("{key}={value}");
        }
        let names = op_names(doc);
        if names.is_empty() {
            return format!("operator.x.rate={value}");
        }
        let name = self.pick(&names).clone();
        // Every knob of every kind (on any operator: most are refused there), and a made-up one.
        let knobs: Vec<&str> = [
            DATAGEN_KNOBS,
            FILTER_KNOBS,
            WINDOW_KNOBS,
            COMMON_KNOBS,
            &["nonsense"],
        ]
        .concat();
        let knob = *self.pick(&knobs);
        format!("operator.{name}.{knob}={value}")
    }

    /// Every edge gets a partitioner, most of them chosen at random.
    fn partitioners(&mut self, doc: &mut Value) {
        for i in 0..edges_len(doc) {
            if self.below(3) > 0 {
                let p = Value::String(self.pick(PARTITIONERS).to_string());
                set_path(
                    doc,
                    &[
                        Step::Key("edges".into()),
                        Step::Index(i),
                        Step::Key("partitioner".into()),
                    ],
                    p,
                );
            }
        }
    }

    /// Adds operators and edges (sometimes making cycles, dangling edges or extra sources).
    fn topology(&mut self, doc: &mut Value) {
        let mut names = op_names(doc);
        for _ in 0..1 + self.below(3) {
            match self.below(3) {
                0 => {
                    let name = format!("added-{}", self.below(1000));
                    let kind = *self.pick(&OPERATOR_TYPES);
                    let mut op = serde_json::json!({"name": name, "kind": {"type": kind}});
                    match kind {
                        "datagen" => {
                            op["kind"]["rate"] = (1 + self.below(5000) as u64).into();
                            op["kind"]["record-size"] = (1 + self.below(4096) as u64).into();
                            op["kind"]["keys"] = (1 + self.below(100) as u64).into();
                        }
                        "filter" => op["kind"]["keep-percent"] = (self.below(120) as u64).into(),
                        "keyed-window-sum" => op["kind"]["window"] = "1s".into(),
                        _ => {}
                    }
                    push(doc, "operators", op);
                    names.push(name);
                }
                1 => {
                    // Insert an operator into an existing edge.
                    let e = edges_len(doc);
                    if e == 0 {
                        continue;
                    }
                    let i = self.below(e);
                    let name = format!("inserted-{}", self.below(1000));
                    let kind = *self.pick(&["map", "filter", "checkpoint-aware-map"]);
                    let mut op = serde_json::json!({"name": name, "kind": {"type": kind}});
                    if kind == "filter" {
                        op["kind"]["keep-percent"] = 50.into();
                    }
                    let edge = doc["edges"][i].clone();
                    doc["edges"][i]["to"] = name.clone().into();
                    let mut next = edge.clone();
                    next["from"] = name.clone().into();
                    next["partitioner"] = "forward".into();
                    push(doc, "operators", op);
                    push(doc, "edges", next);
                    names.push(name);
                }
                _ => {
                    if names.is_empty() {
                        continue;
                    }
                    let from = self.pick(&names).clone();
                    let to = self.pick(&names).clone();
                    let p = *self.pick(PARTITIONERS);
                    let edge = serde_json::json!({"from": from, "to": to, "partitioner": p});
                    push(doc, "edges", edge);
                }
            }
        }
    }

    /// 5000-character, markup, empty and non-ASCII names for operators and the scenario.
    fn name(&mut self, doc: &mut Value) {
        let name = match self.below(6) {
            0 => "x".repeat(5000),
            1 => "<img src=x onerror=alert(1)>".into(),
            2 => "</script><script>alert(1)</script>".into(),
            3 => String::new(),
            4 => "名字 \u{202e}ltr\u{0}\n\"quote'".into(),
            _ => "a.b#1@2s=x".into(),
        };
        let n = ops_len(doc);
        if n > 0 && self.below(3) > 0 {
            let i = self.below(n);
            let old = doc["operators"][i]["name"]
                .as_str()
                .unwrap_or("")
                .to_string();
            doc["operators"][i]["name"] = name.clone().into();
            // Keep the edges pointing at it, most of the time.
            if self.below(4) > 0 {
                for e in 0..edges_len(doc) {
                    for end in ["from", "to"] {
                        if doc["edges"][e][end].as_str() == Some(old.as_str()) {
                            doc["edges"][e][end] = name.clone().into();
                        }
                    }
                }
            }
        } else {
            doc["name"] = name.into();
        }
    }

    /// A plausible but heavy job: every operator at a large parallelism, often with a faster
    /// source, frequent checkpoints, a tiny buffer timeout or buffer debloating. These land near and over the budget.
    fn scale(&mut self, doc: &mut Value) {
        let p = *self.pick(&[16u64, 64, 200, 700, 1500]);
        for i in 0..ops_len(doc) {
            doc["operators"][i]["parallelism"] = p.into();
            if let Some(rate) = doc["operators"][i]["kind"]
                .get("rate")
                .and_then(Value::as_u64)
            {
                if self.below(3) == 0 {
                    doc["operators"][i]["kind"]["rate"] = rate.saturating_mul(100).into();
                }
            }
        }
        if self.below(2) == 0 {
            set_path(
                doc,
                &[
                    Step::Key("config".into()),
                    Step::Key("execution.checkpointing.interval".into()),
                ],
                "10ms".into(),
            );
        }
        if self.below(4) == 0 {
            set_path(
                doc,
                &[
                    Step::Key("config".into()),
                    Step::Key("execution.buffer-timeout.interval".into()),
                ],
                "1us".into(),
            );
        }
        if self.below(4) == 0 {
            // Debloated buffers may shrink to `min-segment-size`: many more, smaller buffers.
            set_path(
                doc,
                &[
                    Step::Key("config".into()),
                    Step::Key("taskmanager.network.memory.buffer-debloat.enabled".into()),
                ],
                "true".into(),
            );
        }
    }

    /// A fault script: kills, slow operators (down to no cost at all), storage failures,
    /// declines, delayed acks and lost connections, at times in and out of the run, on subtasks
    /// and edges that may not exist.
    fn faults(&mut self, doc: &mut Value) {
        let names = op_names(doc);
        if names.is_empty() {
            return;
        }
        const AT: &[&str] = &[
            "0s",
            "300ms",
            "1s",
            "1500ms",
            "2s",
            "-1s",
            "999999999d",
            "x",
        ];
        for _ in 0..1 + self.below(20) {
            let op = self.pick(&names).clone();
            let other = self.pick(&names).clone();
            let task = format!("{op}#{}", [0, 1, 2, 99][self.below(4)]);
            let at = *self.pick(AT);
            let fault = match self.below(6) {
                0 => serde_json::json!({"kill": {"task": task, "at": at}}),
                1 => serde_json::json!({"slow": {"operator": op, "from": at,
                    "cost-per-record": *self.pick(&["0us", "1us", "5ms", "1h"])}}),
                2 => serde_json::json!({"storage-failure": {"from": at, "until": "2s"}}),
                3 => serde_json::json!({"decline": {"task": task, "checkpoint": self.below(5)}}),
                4 => serde_json::json!({"delay-acks": {"task": task,
                    "by": *self.pick(HOSTILE_DURATIONS)}}),
                _ => serde_json::json!({"connection-loss": {"edge": format!("{op} -> {other}"),
                    "at": at}}),
            };
            push(doc, "faults", fault);
        }
    }

    /// A config key with a value of the wrong type (a number, a list, an object, a bool).
    fn config_type(&mut self, doc: &mut Value) {
        let key = self.pick(CONFIG_KEYS).key.to_string();
        let value = match self.below(5) {
            0 => serde_json::json!(5),
            1 => serde_json::json!(["1s"]),
            2 => serde_json::json!({"a": 1}),
            3 => serde_json::json!(true),
            _ => Value::String(self.pick(HOSTILE_NUMBERS).trim_matches('"').to_string()),
        };
        set_path(doc, &[Step::Key("config".into()), Step::Key(key)], value);
    }
}

impl Iterator for ScenarioFuzzer {
    type Item = ScenarioCase;

    fn next(&mut self) -> Option<ScenarioCase> {
        let i = self.below(self.presets.len());
        let mut doc = self.presets[i].clone();
        let category = self.category();
        let mut sets = Vec::new();
        self.mutate(category, &mut doc, &mut sets);
        Some(ScenarioCase {
            category,
            json: doc.to_string(),
            sets,
        })
    }
}

#[derive(Debug, Clone)]
enum Step {
    Key(String),
    Index(usize),
}

fn numeric_paths(v: &Value, at: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    match v {
        Value::Number(_) => out.push(at.clone()),
        Value::Object(m) => {
            for (k, child) in m {
                at.push(Step::Key(k.clone()));
                numeric_paths(child, at, out);
                at.pop();
            }
        }
        Value::Array(a) => {
            for (i, child) in a.iter().enumerate() {
                at.push(Step::Index(i));
                numeric_paths(child, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

fn set_path(doc: &mut Value, path: &[Step], value: Value) {
    let mut cur = doc;
    for (i, step) in path.iter().enumerate() {
        let last = i + 1 == path.len();
        match step {
            Step::Key(k) => {
                if !cur.is_object() {
                    *cur = Value::Object(Default::default());
                }
                let Some(map) = cur.as_object_mut() else {
                    return;
                };
                if last {
                    map.insert(k.clone(), value);
                    return;
                }
                cur = map.entry(k.clone()).or_insert(Value::Null);
            }
            Step::Index(idx) => {
                let Some(arr) = cur.as_array_mut() else {
                    return;
                };
                let Some(slot) = arr.get_mut(*idx) else {
                    return;
                };
                if last {
                    *slot = value;
                    return;
                }
                cur = slot;
            }
        }
    }
}

/// Appends to the array `doc[key]`, making it if absent (a document that is no object is left).
fn push(doc: &mut Value, key: &str, item: Value) {
    let Some(map) = doc.as_object_mut() else {
        return;
    };
    if let Value::Array(items) = map.entry(key).or_insert_with(|| Value::Array(Vec::new())) {
        items.push(item);
    }
}

fn ops_len(doc: &Value) -> usize {
    doc.get("operators")
        .and_then(Value::as_array)
        .map_or(0, Vec::len)
}

fn edges_len(doc: &Value) -> usize {
    doc.get("edges")
        .and_then(Value::as_array)
        .map_or(0, Vec::len)
}

fn op_names(doc: &Value) -> Vec<String> {
    doc.get("operators")
        .and_then(Value::as_array)
        .map(|ops| {
            ops.iter()
                .filter_map(|o| o.get("name").and_then(Value::as_str).map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// A plausible scenario over the cost budget, for tests and examples: seed-demo with 256
/// subtasks per operator (65,536 channels over the hash edge) checkpointing every 10 ms.
pub fn over_budget_example() -> Scenario {
    let mut s = preset("seed-demo").expect("the seed demo exists");
    for op in [
        "datagen",
        "count-per-key",
        "checkpoint-aware-map",
        "discard-sink",
    ] {
        s.operators
            .iter_mut()
            .filter(|o| o.name == op)
            .for_each(|o| o.parallelism = Some(256));
    }
    s.config
        .insert("execution.checkpointing.interval".into(), "10ms".into());
    s
}
