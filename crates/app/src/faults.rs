//! Faults and recovery in the playground.
//!
//! The scenario's fault list is the source of truth: injecting a fault "now" appends it to the
//! scenario with its time set to the current simulated time, and the job is rebuilt from time 0
//! and re-run to that time in slices (a few milliseconds per tick, with a progress line). Time
//! travel snapshots cannot be reused: `Simulation::new` schedules faults, so a snapshot taken
//! without the fault would never fire it. Re-running is deterministic, so the new run equals the
//! old one up to the moment of the fault.
//!
//! What the user did to the running job that is not part of the scenario (trigger requests,
//! restore from a checkpoint, rescale) is logged with its simulated time and re-applied at that
//! time during the re-run, so a fault injected after a savepoint keeps the savepoint.

use barrierlab_engine::scenario::Fault;
use barrierlab_engine::sim::{Simulation, UserRequest};
use barrierlab_engine::types::{parse_duration, Micros};
use serde_json::Value;

use crate::budget::{deadline, run_budgeted, RunEnd};

/// Something the user did to the running job, outside the scenario.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UserAction {
    Request(UserRequest),
    RestoreFrom(u64),
    Rescale(Vec<(String, u32)>),
    /// Cancel the job (CANCELED).
    Cancel,
}

impl UserAction {
    /// Applies the action to `sim` now.
    pub fn apply(&self, sim: &mut Simulation) -> Result<(), String> {
        match self {
            UserAction::Request(r) => {
                sim.request(*r);
                Ok(())
            }
            UserAction::RestoreFrom(id) => sim.restore_from(*id),
            UserAction::Rescale(changes) => {
                let changes: Vec<(&str, u32)> =
                    changes.iter().map(|(o, p)| (o.as_str(), *p)).collect();
                sim.rescale(&changes)
            }
            UserAction::Cancel => {
                sim.cancel();
                Ok(())
            }
        }
    }
}

/// A re-run in progress: the rebuilt job catches up with the time the user was at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatchUp {
    pub target: Micros,
    /// Play again once caught up.
    pub resume: bool,
    /// The next user action to re-apply (index into the log).
    pub next_action: usize,
}

/// Runs `sim` towards `target` for at most `budget_ms`, re-applying the logged user actions at
/// their times. Returns true once `sim` has reached `target`.
pub fn catch_up(
    sim: &mut Simulation,
    target: Micros,
    log: &[(Micros, UserAction)],
    next: &mut usize,
    budget_ms: f64,
) -> bool {
    let deadline = deadline(budget_ms);
    loop {
        let stop = log.get(*next).map_or(target, |(at, _)| (*at).min(target));
        if run_budgeted(sim, stop, deadline, |_| false) == RunEnd::OutOfTime {
            return false;
        }
        sim.run_until(stop);
        match log.get(*next) {
            Some((at, action)) if *at <= target => {
                // It worked live; a failure here would mean the re-run diverged. Keep going.
                let _ = action.apply(sim);
                *next += 1;
            }
            _ => return true,
        }
    }
}

/// `operator` and every operator joined to it by FORWARD edges (transitively): the operators
/// whose parallelism must change together.
pub fn forward_group(
    scenario: &barrierlab_engine::scenario::Scenario,
    operator: &str,
) -> Vec<String> {
    use barrierlab_engine::scenario::Partitioner;
    let mut group = vec![operator.to_string()];
    let mut i = 0;
    while i < group.len() {
        let name = group[i].clone();
        for e in scenario
            .edges
            .iter()
            .filter(|e| e.partitioner == Partitioner::Forward)
        {
            let other = if e.from == name {
                &e.to
            } else if e.to == name {
                &e.from
            } else {
                continue;
            };
            if !group.contains(other) {
                group.push(other.clone());
            }
        }
        i += 1;
    }
    group
}

/// "Now" for a new fault: the current time rounded down to the millisecond, so the script reads
/// `12345ms` rather than microseconds (the fault lands at most 1 ms before the moment clicked,
/// and the re-run passes it).
pub fn at_millis(now: Micros) -> Micros {
    now - now % 1_000
}

/// A point in time from a fault's text, as the UI prints times (`12.345 s`); the text itself if
/// it does not parse.
fn when(text: &str) -> String {
    parse_duration(text).map_or_else(|_| text.to_string(), crate::format::sim_time)
}

/// A simulated time as a fault's duration string, exactly: `12s`, `12345ms` or `12345678us`.
pub fn duration_text(us: Micros) -> String {
    if us.is_multiple_of(1_000_000) {
        format!("{}s", us / 1_000_000)
    } else if us.is_multiple_of(1_000) {
        format!("{}ms", us / 1_000)
    } else {
        format!("{us}us")
    }
}

/// The kinds a user can inject on one subtask.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubtaskFault {
    Kill,
    Slow,
    Decline,
    LoseNotification,
    DelayAcks,
}

/// Flink-ish label of a fault kind (its JSON key).
pub fn kind(f: &Fault) -> &'static str {
    match f {
        Fault::Kill { .. } => "kill",
        Fault::Slow { .. } => "slow",
        Fault::StorageFailure { .. } => "storage-failure",
        Fault::Decline { .. } => "decline",
        Fault::LoseNotification { .. } => "lose-notification",
        Fault::DelayAcks { .. } => "delay-acks",
        Fault::NetworkDelay { .. } => "network-delay",
        Fault::ConnectionLoss { .. } => "connection-loss",
    }
}

/// One line, in words, of what a fault does.
pub fn describe(f: &Fault) -> String {
    match f {
        Fault::Kill { task, at } => format!("{task} fails at {}: the job fails over", when(at)),
        Fault::Slow {
            operator,
            from,
            cost_per_record,
        } => format!(
            "{operator} costs {cost_per_record} per record from {}",
            when(from)
        ),
        Fault::StorageFailure { from, until } => format!(
            "checkpoint storage fails every write from {} until {}",
            when(from),
            when(until)
        ),
        Fault::Decline { task, checkpoint } => {
            format!("{task} declines checkpoint {checkpoint} (CHECKPOINT_DECLINED)")
        }
        Fault::LoseNotification { task, checkpoint } => {
            format!("notifyCheckpointComplete({checkpoint}) never reaches {task}")
        }
        Fault::DelayAcks {
            task,
            by,
            from,
            until,
        } => format!(
            "{task}'s acks arrive {by} late{}{}",
            from.as_deref()
                .map_or(String::new(), |f| format!(" from {}", when(f))),
            until
                .as_deref()
                .map_or(String::new(), |u| format!(" until {}", when(u)))
        ),
        Fault::NetworkDelay {
            edge,
            by,
            from,
            until,
        } => format!(
            "edge {edge}: data and barriers arrive {by} late from {}{}",
            when(from),
            until
                .as_deref()
                .map_or(String::new(), |u| format!(" until {}", when(u)))
        ),
        Fault::ConnectionLoss { edge, at } => format!(
            "edge {edge}: the connection drops at {}, its consumer fails over",
            when(at)
        ),
    }
}

/// Field order in the Faults panel: what, then when, then how much.
const FIELD_ORDER: [&str; 9] = [
    "task",
    "edge",
    "operator",
    "checkpoint",
    "by",
    "cost-per-record",
    "at",
    "from",
    "until",
];

/// A fault's fields as (JSON key, text), in `FIELD_ORDER`.
pub fn fields(f: &Fault) -> Vec<(String, String)> {
    let Ok(Value::Object(outer)) = serde_json::to_value(f) else {
        return Vec::new();
    };
    let Some((_, Value::Object(inner))) = outer.into_iter().next() else {
        return Vec::new();
    };
    let mut out: Vec<(String, String)> = inner
        .into_iter()
        .map(|(k, v)| {
            let text = match v {
                Value::String(s) => s,
                other => other.to_string(),
            };
            (k, text)
        })
        .collect();
    out.sort_by_key(|(k, _)| FIELD_ORDER.iter().position(|o| o == k));
    out
}

/// The fault with field `key` set to `text`, or why that is not a valid value.
pub fn with_field(f: &Fault, key: &str, text: &str) -> Result<Fault, String> {
    let text = text.trim();
    let mut json = serde_json::to_value(f).map_err(|e| e.to_string())?;
    let inner = json
        .as_object_mut()
        .and_then(|o| o.values_mut().next())
        .and_then(Value::as_object_mut)
        .ok_or("not a fault")?;
    let value = match key {
        "checkpoint" => Value::from(
            text.parse::<u64>()
                .map_err(|_| format!("checkpoint: '{text}' is not a checkpoint id"))?,
        ),
        "task" => {
            barrierlab_engine::scenario::parse_task_ref(text)?;
            Value::from(text)
        }
        "edge" => {
            barrierlab_engine::scenario::parse_edge_ref(text)?;
            Value::from(text)
        }
        "operator" => {
            if text.is_empty() {
                return Err("operator: the name is empty".into());
            }
            Value::from(text)
        }
        _ => {
            let optional = match kind(f) {
                "delay-acks" => matches!(key, "from" | "until"),
                "network-delay" => key == "until",
                _ => false,
            };
            if text.is_empty() && optional {
                inner.remove(key);
                return fault_from(&json);
            }
            parse_duration(text).map_err(|e| format!("{key}: {e}"))?;
            Value::from(text)
        }
    };
    inner.insert(key.to_string(), value);
    fault_from(&json)
}

/// Through the text rather than `from_value`: one deserializer type for `Fault` (the scenario's)
/// keeps the wasm bundle small.
fn fault_from(json: &Value) -> Result<Fault, String> {
    serde_json::from_str(&json.to_string()).map_err(|e| e.to_string())
}

/// A subtask fault starting now. `operator` names the operator (a chain member), `subtask` its
/// index; `amount` is the cost per record (slow), the checkpoint id (decline, lose
/// notification) or the delay (delay acks); `span` how long the delay lasts.
pub fn subtask_fault(
    what: SubtaskFault,
    operator: &str,
    subtask: u32,
    now: Micros,
    amount: &str,
    span: &str,
) -> Result<Fault, String> {
    let task = format!("{operator}#{subtask}");
    let now = at_millis(now);
    let at = duration_text(now);
    let amount = amount.trim();
    Ok(match what {
        SubtaskFault::Kill => Fault::Kill { task, at },
        SubtaskFault::Slow => {
            parse_duration(amount).map_err(|e| format!("cost per record: {e}"))?;
            Fault::Slow {
                operator: operator.to_string(),
                from: at,
                cost_per_record: amount.to_string(),
            }
        }
        SubtaskFault::Decline | SubtaskFault::LoseNotification => {
            let checkpoint = amount
                .parse()
                .map_err(|_| format!("'{amount}' is not a checkpoint id"))?;
            if what == SubtaskFault::Decline {
                Fault::Decline { task, checkpoint }
            } else {
                Fault::LoseNotification { task, checkpoint }
            }
        }
        SubtaskFault::DelayAcks => {
            parse_duration(amount).map_err(|e| format!("delay: {e}"))?;
            let span = parse_duration(span).map_err(|e| format!("for: {e}"))?;
            Fault::DelayAcks {
                task,
                by: amount.to_string(),
                from: Some(at),
                until: Some(duration_text(now + span)),
            }
        }
    })
}

/// Checkpoint storage failing for `span` from now.
pub fn storage_failure(now: Micros, span: &str) -> Result<Fault, String> {
    let now = at_millis(now);
    let span = parse_duration(span).map_err(|e| format!("storage failure: {e}"))?;
    if span == 0 {
        return Err("storage failure: the window is empty".into());
    }
    Ok(Fault::StorageFailure {
        from: duration_text(now),
        until: duration_text(now + span),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use barrierlab_engine::scenario::preset;

    #[test]
    fn forward_chains_rescale_together() {
        let s = preset("seed-2pc").unwrap();
        let g = forward_group(&s, "count-per-key");
        assert!(g.len() >= 2 && g.contains(&"two-phase-commit-sink".to_string()));
        assert_eq!(forward_group(&s, "datagen"), ["datagen"]);
    }

    #[test]
    fn durations_are_exact() {
        assert_eq!(duration_text(12_000_000), "12s");
        assert_eq!(duration_text(12_345_000), "12345ms");
        assert_eq!(duration_text(12_345_678), "12345678us");
        for us in [0, 1, 999, 1_000, 12_345_678] {
            assert_eq!(parse_duration(&duration_text(us)).unwrap(), us);
        }
    }

    #[test]
    fn fields_round_trip_and_reject_garbage() {
        let f = subtask_fault(
            SubtaskFault::DelayAcks,
            "datagen",
            1,
            5_000_000,
            "2s",
            "10s",
        )
        .unwrap();
        let names: Vec<String> = fields(&f).into_iter().map(|(k, _)| k).collect();
        assert_eq!(names, ["task", "by", "from", "until"]);
        let slow = subtask_fault(SubtaskFault::Slow, "a", 0, 1_000, "5ms", "").unwrap();
        let names: Vec<String> = fields(&slow).into_iter().map(|(k, _)| k).collect();
        assert_eq!(names, ["operator", "cost-per-record", "from"]);
        let g = with_field(&f, "by", "500ms").unwrap();
        assert!(describe(&g).contains("500ms late"));
        assert!(with_field(&f, "by", "soon").is_err());
        assert!(with_field(&f, "task", "datagen").is_err());
        let d = subtask_fault(SubtaskFault::Decline, "a", 0, 0, "3", "").unwrap();
        assert_eq!(with_field(&d, "checkpoint", "4").unwrap(), {
            Fault::Decline {
                task: "a#0".into(),
                checkpoint: 4,
            }
        });
        assert!(with_field(&d, "checkpoint", "x").is_err());
        assert!(subtask_fault(SubtaskFault::Slow, "a", 0, 0, "fast", "").is_err());
        assert!(storage_failure(0, "0s").is_err());
    }

    /// Injecting a kill "now" and re-running from scratch reaches the same time, fails over and
    /// restores; a savepoint taken before is re-applied from the log.
    #[test]
    fn rerun_with_a_kill_fails_over_and_keeps_logged_actions() {
        let mut scenario = preset("seed-2pc").unwrap();
        let mut live = Simulation::new(scenario.clone()).unwrap();
        live.run_until(6_000_000);
        let log = vec![(6_000_000, UserAction::Request(UserRequest::Savepoint))];
        log[0].1.apply(&mut live).unwrap();
        live.run_until(12_000_000);
        scenario.faults.push(
            subtask_fault(SubtaskFault::Kill, "count-per-key", 1, 12_000_000, "", "").unwrap(),
        );
        let mut sim = Simulation::new(scenario).unwrap();
        let mut next = 0;
        let mut slices = 0;
        while !catch_up(&mut sim, 12_000_000, &log, &mut next, 1.0) {
            slices += 1;
            assert!(slices < 100_000);
        }
        assert_eq!(sim.now, 12_000_000);
        assert_eq!(next, 1);
        let savepoints =
            |s: &Simulation| s.checkpoint_rows().iter().filter(|r| r.savepoint).count();
        assert_eq!(savepoints(&sim), savepoints(&live));
        assert_eq!(sim.status, barrierlab_engine::sim::JobStatus::Restarting);
        sim.run_until(20_000_000);
        assert_eq!(sim.status, barrierlab_engine::sim::JobStatus::Running);
        let v = sim.verification();
        assert_eq!((v.duplicates, v.missing), (0, 0));
    }
}
