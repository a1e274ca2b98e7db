//! Edits on a draft scenario, as plain functions (tested natively): every user input arrives as
//! text and is parsed here; a bad number is an error message, never a panic.

use barrierlab_engine::scenario::{
    EdgeSpec, KeyDistribution, OperatorKind, OperatorSpec, Partitioner, Scenario,
};

/// The palette: every `OperatorKind`, by its JSON type name.
pub const KINDS: [&str; 11] = OperatorKind::TYPE_NAMES;

pub const PARTITIONERS: [Partitioner; 5] = [
    Partitioner::Forward,
    Partitioner::Hash,
    Partitioner::Rebalance,
    Partitioner::Rescale,
    Partitioner::Broadcast,
];

/// A kind with sensible default knobs.
pub fn default_kind(name: &str) -> Option<OperatorKind> {
    Some(match name {
        "datagen" => OperatorKind::Datagen {
            rate: 1_000,
            record_size: 100,
            keys: 100,
            key_distribution: KeyDistribution::Uniform,
            bounded: None,
        },
        "map" => OperatorKind::Map,
        "filter" => OperatorKind::Filter { keep_percent: 50 },
        "keyed-count" => OperatorKind::KeyedCount,
        "keyed-list" => OperatorKind::KeyedList,
        "keyed-window-sum" => OperatorKind::KeyedWindowSum {
            window: "1s".into(),
        },
        "union" => OperatorKind::Union,
        "checkpoint-aware-map" => OperatorKind::CheckpointAwareMap,
        "discard-sink" => OperatorKind::DiscardSink,
        "collect-sink" => OperatorKind::CollectSink,
        "two-phase-commit-sink" => OperatorKind::TwoPhaseCommitSink,
        _ => return None,
    })
}

/// One edit of the draft; the text fields are what the user typed.
#[derive(Debug, Clone, PartialEq)]
pub enum Edit {
    Add(String),
    Remove(usize),
    Rename(usize, String),
    Parallelism(usize, String),
    Cost(usize, String),
    /// A kind-specific knob: rate, record-size, keys, bounded, hot-keys, hot-percent,
    /// distribution (uniform|skewed), keep-percent, window.
    Knob(usize, &'static str, String),
    Connect(String, String, Partitioner),
    Disconnect(usize),
    SetPartitioner(usize, Partitioner),
}

fn unique_name(s: &Scenario, base: &str) -> String {
    if s.operator_index(base).is_none() {
        return base.to_string();
    }
    (2..)
        .map(|n| format!("{base}-{n}"))
        .find(|n| s.operator_index(n).is_none())
        .unwrap_or_else(|| base.to_string())
}

/// Applies `edit` to `s`, or says why it cannot (the draft is then unchanged).
pub fn apply(s: &mut Scenario, edit: Edit) -> Result<(), String> {
    match edit {
        Edit::Add(kind) => {
            let k = default_kind(&kind).ok_or_else(|| format!("unknown operator kind '{kind}'"))?;
            let name = unique_name(s, &kind);
            s.operators.push(OperatorSpec::new(&name, k));
        }
        Edit::Remove(i) => {
            if i >= s.operators.len() {
                return Err("no such operator".into());
            }
            let name = s.operators.remove(i).name;
            s.edges.retain(|e| e.from != name && e.to != name);
        }
        Edit::Rename(i, new) => {
            let old = s.operators.get(i).ok_or("no such operator")?.name.clone();
            for e in &mut s.edges {
                if e.from == old {
                    e.from = new.clone();
                }
                if e.to == old {
                    e.to = new.clone();
                }
            }
            s.operators[i].name = new;
        }
        // The engine's knob parser, as `--set operator.<name>.<knob>=…` uses it: what one
        // accepts (`1kb`, `none`, an empty field for the default), so does the other.
        Edit::Parallelism(i, text) => knob(s, i, "parallelism", &text)?,
        Edit::Cost(i, text) => knob(s, i, "cost-per-record", &text)?,
        Edit::Knob(i, name, text) => knob(s, i, name, &text)?,
        Edit::Connect(from, to, partitioner) => {
            if from == to {
                return Err(format!("'{from}' cannot feed itself"));
            }
            if s.edges.iter().any(|e| e.from == from && e.to == to) {
                return Err(format!("'{from}' already feeds '{to}'"));
            }
            s.edges.push(EdgeSpec::new(&from, &to, partitioner));
        }
        Edit::Disconnect(i) => {
            if i < s.edges.len() {
                s.edges.remove(i);
            }
        }
        Edit::SetPartitioner(i, p) => {
            if let Some(e) = s.edges.get_mut(i) {
                e.partitioner = p;
            }
        }
    }
    Ok(())
}

fn knob(s: &mut Scenario, i: usize, knob: &str, text: &str) -> Result<(), String> {
    s.operators
        .get_mut(i)
        .ok_or("no such operator")?
        .set_knob(knob, text)
}

/// Longest-path layers (sources at 0), safe on cycles: relaxation stops after n rounds.
pub fn layers(s: &Scenario) -> Vec<u32> {
    let n = s.operators.len();
    let mut layer = vec![0u32; n];
    for _ in 0..n {
        let mut changed = false;
        for e in &s.edges {
            if let (Some(a), Some(b)) = (s.operator_index(&e.from), s.operator_index(&e.to)) {
                if a != b && layer[b] < layer[a] + 1 && layer[a] < n as u32 {
                    layer[b] = layer[a] + 1;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    layer
}

#[cfg(test)]
mod tests {
    use super::*;
    use barrierlab_engine::scenario::preset;

    #[test]
    fn edits_never_panic_and_report_bad_numbers() {
        let mut s = preset("seed-demo").unwrap();
        assert!(apply(&mut s, Edit::Parallelism(0, "abc".into())).is_err());
        assert!(apply(&mut s, Edit::Parallelism(99, "2".into())).is_err());
        assert!(apply(&mut s, Edit::Knob(0, "rate", "-5".into())).is_err());
        // The CLI's forms: a Flink memory size, and an empty field for the job's default.
        apply(&mut s, Edit::Knob(0, "record-size", "1kb".into())).unwrap();
        assert!(matches!(
            s.operators[0].kind,
            OperatorKind::Datagen {
                record_size: 1024,
                ..
            }
        ));
        apply(&mut s, Edit::Parallelism(0, " ".into())).unwrap();
        assert_eq!(s.operators[0].parallelism, None);
        let e = apply(&mut s, Edit::Cost(0, "slow".into())).unwrap_err();
        assert!(e.contains("cost-per-record: bad value 'slow'"), "{e}");
        apply(&mut s, Edit::Add("map".into())).unwrap();
        apply(&mut s, Edit::Add("map".into())).unwrap();
        assert!(s.operator_index("map-2").is_some());
        let first = s.operators[0].name.clone();
        apply(&mut s, Edit::Rename(0, "<b>src</b>".into())).unwrap();
        assert!(s.edges.iter().all(|e| e.from != first));
        // A cycle: validation fails, layers stay finite.
        apply(
            &mut s,
            Edit::Connect("map".into(), "map-2".into(), Partitioner::Forward),
        )
        .unwrap();
        apply(
            &mut s,
            Edit::Connect("map-2".into(), "map".into(), Partitioner::Forward),
        )
        .unwrap();
        assert!(s.validate().is_err());
        assert!(layers(&s)
            .iter()
            .all(|l| (*l as usize) <= s.operators.len()));
        apply(&mut s, Edit::Remove(0)).unwrap();
        assert!(apply(&mut s, Edit::Remove(40)).is_err());
    }
}
