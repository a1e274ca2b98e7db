//! "Simulate this job" (issue #15): the real job's checkpoint figures beside those of a run of
//! the scenario derived from its bundle, and of one-click what-ifs on that scenario. Both sides
//! are measured by the same code from the same REST shapes: the simulation's report is read back
//! as a bundle, so a difference is the simulator's, never the measuring's.

use barrierlab_engine::import::rest::{
    CheckpointStatistics, CheckpointStatsStatus, SubtaskCheckpointStatistics,
    VertexBackPressureLevel,
};
use barrierlab_engine::import::{read_bundle, JobBundle, BUNDLE_KEY, FORMAT_VERSION};
use barrierlab_engine::scenario::Scenario;
use barrierlab_engine::sim::Simulation;
use barrierlab_engine::types::{parse_duration, Micros, MICROS_PER_SEC};

use crate::format::{bytes, rest_millis};

/// Simulated time of a run: about as long as the real job took for its checkpoints, within
/// these bounds (long enough for a few checkpoints, short enough to finish in seconds).
pub const MIN_TARGET: Micros = 30 * MICROS_PER_SEC;
pub const MAX_TARGET: Micros = 180 * MICROS_PER_SEC;

/// A job's checkpoint figures, as the Web UI's checkpoint tabs give them. Durations in ms.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct Figures {
    /// Medians over the completed checkpoints of the history.
    pub end_to_end: Option<f64>,
    pub checkpointed_size: Option<f64>,
    pub persisted: Option<f64>,
    /// Per completed checkpoint with per-subtask details, the largest value of any subtask;
    /// the median of those.
    pub start_delay: Option<f64>,
    pub alignment: Option<f64>,
    pub sync: Option<f64>,
    pub async_: Option<f64>,
    /// Flink's counts since the job started.
    pub completed: Option<u64>,
    pub failed: Option<u64>,
    /// Vertices whose `backpressureLevel` is high, in the job's order.
    pub high: Vec<String>,
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

impl Figures {
    pub fn of(b: &JobBundle) -> Figures {
        let done: Vec<_> = b
            .history()
            .iter()
            .filter(|c| c.status == CheckpointStatsStatus::COMPLETED && !c.is_savepoint)
            .collect();
        let over =
            |f: fn(&CheckpointStatistics) -> f64| median(done.iter().map(|c| f(c)).collect());
        let completed = |id: &u64| {
            b.details
                .get(id)
                .or_else(|| b.history().iter().find(|c| c.id == *id))
                .is_some_and(|c| c.status == CheckpointStatsStatus::COMPLETED)
        };
        // One slowest-subtask value per completed checkpoint, then their median.
        let phase = |f: fn(&SubtaskCheckpointStatistics) -> Option<i64>| {
            median(
                b.subtasks
                    .iter()
                    .filter(|(id, _)| completed(id))
                    .filter_map(|(_, per_vertex)| {
                        per_vertex
                            .values()
                            .flat_map(|d| d.subtasks.iter())
                            .filter(|s| s.is_completed())
                            .filter_map(f)
                            .max()
                    })
                    .map(|ms| ms as f64)
                    .collect(),
            )
        };
        let counts = b.checkpoints.as_ref().map(|c| &c.counts);
        Figures {
            end_to_end: over(|c| c.end_to_end_duration as f64),
            checkpointed_size: over(|c| c.checkpointed_size as f64),
            persisted: over(|c| c.persisted_data as f64),
            start_delay: phase(|s| s.start_delay),
            alignment: phase(|s| s.alignment.as_ref().map(|a| a.duration)),
            sync: phase(|s| s.checkpoint.as_ref().map(|c| c.sync)),
            async_: phase(|s| s.checkpoint.as_ref().map(|c| c.async_)),
            completed: counts.map(|c| c.completed),
            failed: counts.map(|c| c.failed),
            high: b
                .job
                .vertices
                .iter()
                .filter(|v| {
                    b.backpressure.get(&v.id).and_then(|p| p.backpressure_level)
                        == Some(VertexBackPressureLevel::High)
                })
                .map(|v| v.name.clone())
                .collect(),
        }
    }
}

/// A run's REST report read back as a bundle (the engine's reader, as for a real one).
pub fn simulated_bundle(sim: &Simulation) -> Result<JobBundle, String> {
    let mut report = serde_json::to_value(sim.rest_report()).map_err(|e| e.to_string())?;
    let header = serde_json::json!({
        "format_version": FORMAT_VERSION,
        "collector": "Barrier Lab simulation",
        "job_id": report["job"]["jid"].clone(),
        "flink_version": "2.3.0",
    });
    report[BUNDLE_KEY] = header;
    // The simulator lists its per-subtask metrics (the debloater's gauges) by index, not keyed
    // as a bundle's are; none of them is compared here.
    if let Some(o) = report.as_object_mut() {
        o.remove("metrics");
    }
    read_bundle(&report.to_string()).map_err(|e| format!("the simulation's report: {e}"))
}

/// How long to simulate: as long as the real job had run when it was collected (its
/// `duration`, whole seconds up), so the checkpoint counts compare; without one, its
/// checkpoints (triggered ones, plus one) at its interval. Within [`MIN_TARGET`, `MAX_TARGET`].
pub fn target(b: &JobBundle) -> Micros {
    let ran = u64::try_from(b.job.duration).unwrap_or(0).div_ceil(1_000) * 1_000;
    let ms = if ran > 0 {
        ran
    } else {
        let interval = b.config.as_ref().map_or(0, |c| c.interval.max(0) as u64);
        let total = b.checkpoints.as_ref().map_or(0, |c| c.counts.total);
        (total + 1) * interval
    };
    (ms * 1_000).clamp(MIN_TARGET, MAX_TARGET)
}

/// One what-if: the derived scenario with one change.
pub struct WhatIf {
    /// Stable, for the page's ids (`sim-whatif-unaligned`).
    pub id: &'static str,
    pub label: &'static str,
    /// What changes, in Flink's keys.
    pub change: &'static str,
    pub apply: fn(&mut Scenario) -> Result<(), String>,
}

fn set(s: &mut Scenario, keys: &[(&str, &str)]) {
    for (k, v) in keys {
        s.config.insert((*k).to_string(), (*v).to_string());
    }
}

pub const WHAT_IFS: [WhatIf; 5] = [
    WhatIf {
        id: "unaligned",
        label: "Unaligned checkpoints",
        change: "execution.checkpointing.unaligned.enabled: true (aligned-checkpoint-timeout 0: unaligned from the start)",
        apply: |s| {
            set(
                s,
                &[
                    ("execution.checkpointing.unaligned.enabled", "true"),
                    ("execution.checkpointing.aligned-checkpoint-timeout", "0ms"),
                ],
            );
            Ok(())
        },
    },
    WhatIf {
        id: "aligned-timeout",
        label: "Aligned timeout 1 s",
        change: "execution.checkpointing.unaligned.enabled: true, execution.checkpointing.aligned-checkpoint-timeout: 1s",
        apply: |s| {
            set(
                s,
                &[
                    ("execution.checkpointing.unaligned.enabled", "true"),
                    ("execution.checkpointing.aligned-checkpoint-timeout", "1s"),
                ],
            );
            Ok(())
        },
    },
    WhatIf {
        id: "debloat",
        label: "Buffer debloating",
        change: "taskmanager.network.memory.buffer-debloat.enabled: true",
        apply: |s| {
            set(s, &[("taskmanager.network.memory.buffer-debloat.enabled", "true")]);
            Ok(())
        },
    },
    WhatIf {
        id: "parallelism",
        label: "Parallelism ×2",
        change: "every operator not chained to a source: parallelism doubled, at most its max parallelism",
        apply: double_parallelism,
    },
    WhatIf {
        id: "interval",
        label: "Interval ×2",
        change: "execution.checkpointing.interval doubled",
        apply: double_interval,
    },
];

/// Doubles the parallelism of every operator outside a source's forward group (a forward edge
/// needs the same parallelism on both sides, and sources keep their measured rate), each forward
/// group capped at its lowest max parallelism.
fn double_parallelism(s: &mut Scenario) -> Result<(), String> {
    let mut seen = std::collections::BTreeSet::new();
    let mut changed = false;
    let job_max: Option<u32> = s
        .config
        .get("pipeline.max-parallelism")
        .and_then(|v| v.trim().parse().ok());
    for i in 0..s.operators.len() {
        let name = s.operators[i].name.clone();
        if seen.contains(&name) {
            continue;
        }
        let group = crate::faults::forward_group(s, &name);
        seen.extend(group.iter().cloned());
        let ops: Vec<usize> = group.iter().filter_map(|n| s.operator_index(n)).collect();
        if ops.iter().any(|&o| s.operators[o].kind.is_source()) {
            continue;
        }
        let now = ops.iter().map(|&o| s.parallelism(o)).max().unwrap_or(1);
        let cap = ops
            .iter()
            .map(|&o| {
                s.operators[o]
                    .max_parallelism
                    .or(job_max.filter(|m| *m > 0))
                    .unwrap_or_else(|| {
                        barrierlab_engine::scenario::default_max_parallelism(s.parallelism(o))
                    })
            })
            .min()
            .unwrap_or(u32::MAX);
        let next = (now * 2).min(cap).max(now);
        if next != now {
            changed = true;
        }
        for &o in &ops {
            s.operators[o].parallelism = Some(next);
        }
    }
    if changed {
        Ok(())
    } else {
        Err("no operator's parallelism can grow: every one is chained to a source or at its max parallelism".into())
    }
}

fn double_interval(s: &mut Scenario) -> Result<(), String> {
    let key = "execution.checkpointing.interval";
    let Some(text) = s.config.get(key) else {
        return Err("the job has no checkpoint interval to double".into());
    };
    let us = parse_duration(text)?;
    s.config
        .insert(key.to_string(), format!("{}ms", us * 2 / 1_000));
    Ok(())
}

/// One figure's cell: the value and how it differs from what it is compared with.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    pub value: String,
    /// `×0.75`, `+2`, `same`; empty for the column compared with.
    pub diff: String,
    /// `lower` / `higher` than what it is compared with (a class for colour), if clearly so.
    pub trend: Option<&'static str>,
}

/// One row of the side-by-side table: the real job, the simulation (against the real job), and
/// each what-if (against the simulation).
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub label: &'static str,
    pub real: Cell,
    pub simulated: Cell,
    /// `None` while that what-if runs.
    pub what_ifs: Vec<Option<Cell>>,
}

#[derive(Clone, Copy)]
enum Unit {
    Millis,
    Bytes,
    Count,
}

fn show(v: Option<f64>, unit: Unit) -> String {
    match v {
        None => "–".into(),
        Some(x) => match unit {
            Unit::Millis => rest_millis(x.round() as i64),
            Unit::Bytes => bytes(x.max(0.0).round() as u64),
            Unit::Count => format!("{}", x.round() as u64),
        },
    }
}

/// How `v` compares with `base`: a ratio for durations and sizes, a difference for counts.
fn diff(v: Option<f64>, base: Option<f64>, unit: Unit) -> (String, Option<&'static str>) {
    let (Some(v), Some(base)) = (v, base) else {
        return ("–".into(), None);
    };
    let trend = if v > base * 1.05 && v > base {
        Some("higher")
    } else if v < base * 0.95 {
        Some("lower")
    } else {
        None
    };
    let text = match unit {
        Unit::Count if v == base => "same".into(),
        Unit::Count => format!("{:+}", v as i64 - base as i64),
        _ if v == base => "same".into(),
        _ if base == 0.0 => "was 0".into(),
        _ => ratio(v / base),
    };
    (text, if v == base { None } else { trend })
}

/// `×111`, `×1.41`, `×0.94`, and two significant digits below a hundredth (`×0.0020` reads
/// `×0.002`): a tiny ratio is still named, not rounded to `×0.00`.
fn ratio(r: f64) -> String {
    if r == 0.0 {
        "×0".into()
    } else if r >= 10.0 {
        format!("×{r:.0}")
    } else if r >= 0.01 {
        format!("×{r:.2}")
    } else {
        let decimals = (-r.log10()).ceil() as usize + 1;
        let text = format!("{r:.decimals$}");
        format!("×{}", text.trim_end_matches('0'))
    }
}

fn cell(v: Option<f64>, base: Option<f64>, unit: Unit) -> Cell {
    let (diff, trend) = diff(v, base, unit);
    Cell {
        value: show(v, unit),
        diff,
        trend,
    }
}

fn names(v: &[String]) -> String {
    if v.is_empty() {
        "none".into()
    } else {
        v.join(", ")
    }
}

fn names_cell(v: &[String], base: &[String]) -> Cell {
    Cell {
        value: names(v),
        diff: if v == base { "same" } else { "differs" }.into(),
        trend: None,
    }
}

type Getter = fn(&Figures) -> Option<f64>;

/// The figures compared, in the Web UI's words, and whether lower is better (coloured).
const FIGURES: [(&str, Unit, Getter, bool); 9] = [
    (
        "End to End Duration (median)",
        Unit::Millis,
        |f| f.end_to_end,
        true,
    ),
    (
        "Checkpointed Data Size (median)",
        Unit::Bytes,
        |f| f.checkpointed_size,
        true,
    ),
    (
        "Start Delay, slowest subtask (median)",
        Unit::Millis,
        |f| f.start_delay,
        true,
    ),
    (
        "Alignment Duration, slowest subtask (median)",
        Unit::Millis,
        |f| f.alignment,
        true,
    ),
    (
        "Sync Duration, slowest subtask (median)",
        Unit::Millis,
        |f| f.sync,
        true,
    ),
    (
        "Async Duration, slowest subtask (median)",
        Unit::Millis,
        |f| f.async_,
        true,
    ),
    (
        "Persisted in-flight data (median)",
        Unit::Bytes,
        |f| f.persisted,
        true,
    ),
    (
        "Completed checkpoints",
        Unit::Count,
        |f| f.completed.map(|c| c as f64),
        false,
    ),
    (
        "Failed checkpoints",
        Unit::Count,
        |f| f.failed.map(|c| c as f64),
        true,
    ),
];

/// The side-by-side table.
pub fn rows(real: &Figures, sim: &Figures, what_ifs: &[Option<&Figures>]) -> Vec<Row> {
    let empty = Cell {
        value: String::new(),
        diff: String::new(),
        trend: None,
    };
    let mut rows: Vec<Row> = FIGURES
        .iter()
        .map(|(label, unit, get, coloured)| {
            // Fewer completed checkpoints is not better: no colour there.
            let cell = |v, base| {
                let mut c = cell(v, base, *unit);
                c.trend = c.trend.filter(|_| *coloured);
                c
            };
            Row {
                label,
                real: Cell {
                    value: show(get(real), *unit),
                    ..empty.clone()
                },
                // How near the real job, not better or worse: no colour.
                simulated: Cell {
                    trend: None,
                    ..cell(get(sim), get(real))
                },
                what_ifs: what_ifs
                    .iter()
                    .map(|w| w.map(|w| cell(get(w), get(sim))))
                    .collect(),
            }
        })
        .collect();
    rows.push(Row {
        label: "Back-pressured (high)",
        real: Cell {
            value: names(&real.high),
            ..empty
        },
        simulated: names_cell(&sim.high, &real.high),
        what_ifs: what_ifs
            .iter()
            .map(|w| w.map(|w| names_cell(&w.high, &sim.high)))
            .collect(),
    });
    rows
}

/// The headline: "End to End Duration (median): simulated 214 ms vs real 2.79 s (×0.08)".
pub fn headline(real: &Figures, sim: &Figures) -> String {
    let (d, _) = diff(sim.end_to_end, real.end_to_end, Unit::Millis);
    format!(
        "End to End Duration (median): simulated {} vs real {} ({d})",
        show(sim.end_to_end, Unit::Millis),
        show(real.end_to_end, Unit::Millis)
    )
}
