//! Fault scripts: part of the scenario (so a link can carry them), each fault at a simulated time.

use serde::{Deserialize, Serialize};

use crate::types::{parse_duration, CheckpointId, Micros};

/// One fault. JSON: `{"kill": {"task": "count-per-key#1", "at": "12s"}}`, and so on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum Fault {
    /// The subtask fails (an exception in the task): the job fails over and restores.
    Kill { task: String, at: String },
    /// From `from` on, the operator costs `cost-per-record` per record.
    #[serde(rename_all = "kebab-case")]
    Slow {
        operator: String,
        from: String,
        cost_per_record: String,
    },
    /// Checkpoint storage fails every write in `[from, until)`: async phases decline with
    /// CHECKPOINT_ASYNC_EXCEPTION (an IO error).
    StorageFailure { from: String, until: String },
    /// The subtask declines checkpoint `checkpoint` (CHECKPOINT_DECLINED).
    Decline {
        task: String,
        checkpoint: CheckpointId,
    },
    /// `notifyCheckpointComplete(checkpoint)` never reaches the subtask (a lost RPC).
    LoseNotification {
        task: String,
        checkpoint: CheckpointId,
    },
    /// The subtask's acks take `by` longer, in `[from, until)` (default: the whole run).
    DelayAcks {
        task: String,
        by: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        from: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        until: Option<String>,
    },
    /// Data and events put on the wire of edge `edge` (`"<from> -> <to>"`, scenario operator
    /// names) in `[from, until)` (default: to the end) arrive `by` later: a slow or congested
    /// link between the TaskManagers. Remote channels only (local ones never touch the network).
    NetworkDelay {
        edge: String,
        by: String,
        from: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        until: Option<String>,
    },
    /// At `at` the TCP connection of edge `edge` drops: the consumer's `RemoteInputChannel` gets
    /// a `RemoteTransportException`, the consumer subtask fails and the job fails over.
    ConnectionLoss { edge: String, at: String },
}

/// An edge named as `"<from> -> <to>"` (scenario operator names; spaces around `->` optional).
pub fn parse_edge_ref(text: &str) -> Result<(String, String), String> {
    let (from, to) = text.split_once("->").ok_or_else(|| {
        format!("'{text}' names no edge: write <from> -> <to>, e.g. datagen -> count-per-key")
    })?;
    let (from, to) = (from.trim(), to.trim());
    if from.is_empty() || to.is_empty() {
        return Err(format!(
            "'{text}': an edge needs both operator names, e.g. datagen -> count-per-key"
        ));
    }
    Ok((from.to_string(), to.to_string()))
}

/// The `edge` text for operators `from` and `to`.
pub fn edge_ref(from: &str, to: &str) -> String {
    format!("{from} -> {to}")
}

/// A subtask named as `operator#index`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskRef {
    pub operator: String,
    pub subtask: u32,
}

pub fn parse_task_ref(text: &str) -> Result<TaskRef, String> {
    let (op, index) = text.rsplit_once('#').ok_or_else(|| {
        format!("'{text}' names no subtask: write <operator>#<subtask>, e.g. count-per-key#1")
    })?;
    let subtask = index
        .parse()
        .map_err(|_| format!("'{text}': '{index}' is not a subtask index"))?;
    if op.is_empty() {
        return Err(format!("'{text}': the operator name is empty"));
    }
    Ok(TaskRef {
        operator: op.to_string(),
        subtask,
    })
}

/// `--fail '<operator>#<subtask>@<time>'`: a kill.
pub fn parse_fail_flag(text: &str) -> Result<Fault, String> {
    let (task, at) = text.rsplit_once('@').ok_or_else(|| {
        format!("--fail '{text}': write <operator>#<subtask>@<time>, e.g. count-per-key#1@12s")
    })?;
    parse_task_ref(task)?;
    parse_duration(at).map_err(|e| format!("--fail '{text}': {e}"))?;
    Ok(Fault::Kill {
        task: task.to_string(),
        at: at.to_string(),
    })
}

/// A fault with its times parsed and its subtask resolved against the scenario's operators.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ResolvedFault {
    Kill {
        operator: usize,
        subtask: u32,
        at: Micros,
    },
    Slow {
        operator: usize,
        from: Micros,
        cost: Micros,
    },
    StorageFailure {
        from: Micros,
        until: Micros,
    },
    Decline {
        operator: usize,
        subtask: u32,
        checkpoint: CheckpointId,
    },
    LoseNotification {
        operator: usize,
        subtask: u32,
        checkpoint: CheckpointId,
    },
    DelayAcks {
        operator: usize,
        subtask: u32,
        by: Micros,
        from: Micros,
        until: Micros,
    },
    /// Edges are scenario operator indices; `Simulation::new` checks they cross the network.
    NetworkDelay {
        from_op: usize,
        to_op: usize,
        by: Micros,
        from: Micros,
        until: Micros,
    },
    ConnectionLoss {
        from_op: usize,
        to_op: usize,
        at: Micros,
    },
}

impl ResolvedFault {
    /// The edge an edge fault acts on, as scenario operator indices.
    pub fn edge(&self) -> Option<(usize, usize)> {
        match *self {
            ResolvedFault::NetworkDelay { from_op, to_op, .. }
            | ResolvedFault::ConnectionLoss { from_op, to_op, .. } => Some((from_op, to_op)),
            _ => None,
        }
    }

    /// When the fault needs an event of its own (the others act when an ack or notification
    /// passes by).
    pub fn time(&self) -> Option<Micros> {
        match self {
            ResolvedFault::Kill { at, .. } => Some(*at),
            ResolvedFault::Slow { from, .. } => Some(*from),
            ResolvedFault::ConnectionLoss { at, .. } => Some(*at),
            _ => None,
        }
    }
}

impl Fault {
    /// Checks names and times against the scenario; `parallelism(op)` gives each operator's
    /// parallelism. Errors name the fault.
    pub fn resolve(
        &self,
        operator_index: impl Fn(&str) -> Option<usize>,
        parallelism: impl Fn(usize) -> u32,
    ) -> Result<ResolvedFault, String> {
        let task = |text: &str| -> Result<(usize, u32), String> {
            let r = parse_task_ref(text)?;
            let op = operator_index(&r.operator)
                .ok_or_else(|| format!("fault names unknown operator '{}'", r.operator))?;
            let p = parallelism(op);
            if r.subtask >= p {
                return Err(format!(
                    "fault names {text}, but '{}' has parallelism {p} (subtasks 0..{})",
                    r.operator,
                    p - 1
                ));
            }
            Ok((op, r.subtask))
        };
        let time =
            |what: &str, text: &str| parse_duration(text).map_err(|e| format!("fault {what}: {e}"));
        let edge = |text: &str| -> Result<(usize, usize), String> {
            let (from, to) = parse_edge_ref(text)?;
            let index = |name: &str| {
                operator_index(name).ok_or_else(|| {
                    format!("fault on edge '{text}' names unknown operator '{name}'")
                })
            };
            Ok((index(&from)?, index(&to)?))
        };
        Ok(match self {
            Fault::Kill { task: t, at } => {
                let (operator, subtask) = task(t)?;
                ResolvedFault::Kill {
                    operator,
                    subtask,
                    at: time("at", at)?,
                }
            }
            Fault::Slow {
                operator,
                from,
                cost_per_record,
            } => ResolvedFault::Slow {
                operator: operator_index(operator)
                    .ok_or_else(|| format!("fault names unknown operator '{operator}'"))?,
                from: time("from", from)?,
                cost: time("cost-per-record", cost_per_record)?,
            },
            Fault::StorageFailure { from, until } => {
                let (from, until) = (time("from", from)?, time("until", until)?);
                if until <= from {
                    return Err("storage-failure: until must be after from".into());
                }
                ResolvedFault::StorageFailure { from, until }
            }
            Fault::Decline {
                task: t,
                checkpoint,
            } => {
                let (operator, subtask) = task(t)?;
                ResolvedFault::Decline {
                    operator,
                    subtask,
                    checkpoint: *checkpoint,
                }
            }
            Fault::LoseNotification {
                task: t,
                checkpoint,
            } => {
                let (operator, subtask) = task(t)?;
                ResolvedFault::LoseNotification {
                    operator,
                    subtask,
                    checkpoint: *checkpoint,
                }
            }
            Fault::DelayAcks {
                task: t,
                by,
                from,
                until,
            } => {
                let (operator, subtask) = task(t)?;
                ResolvedFault::DelayAcks {
                    operator,
                    subtask,
                    by: time("by", by)?,
                    from: from
                        .as_deref()
                        .map(|f| time("from", f))
                        .transpose()?
                        .unwrap_or(0),
                    until: until
                        .as_deref()
                        .map(|u| time("until", u))
                        .transpose()?
                        .unwrap_or(Micros::MAX),
                }
            }
            Fault::NetworkDelay {
                edge: e,
                by,
                from,
                until,
            } => {
                let (from_op, to_op) = edge(e)?;
                let (from, until) = (
                    time("from", from)?,
                    until
                        .as_deref()
                        .map(|u| time("until", u))
                        .transpose()?
                        .unwrap_or(Micros::MAX),
                );
                if until <= from {
                    return Err(format!("network-delay on '{e}': until must be after from"));
                }
                let by = time("by", by)?;
                if by == 0 {
                    return Err(format!("network-delay on '{e}': by must be more than 0"));
                }
                ResolvedFault::NetworkDelay {
                    from_op,
                    to_op,
                    by,
                    from,
                    until,
                }
            }
            Fault::ConnectionLoss { edge: e, at } => {
                let (from_op, to_op) = edge(e)?;
                ResolvedFault::ConnectionLoss {
                    from_op,
                    to_op,
                    at: time("at", at)?,
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fail_flag_parses_and_rejects_garbage() {
        assert_eq!(
            parse_fail_flag("count-per-key#1@12s"),
            Ok(Fault::Kill {
                task: "count-per-key#1".into(),
                at: "12s".into()
            })
        );
        assert!(parse_fail_flag("count-per-key@12s").is_err());
        assert!(parse_fail_flag("count-per-key#x@12s").is_err());
        assert!(parse_fail_flag("count-per-key#1").is_err());
        assert!(parse_fail_flag("count-per-key#1@soon").is_err());
    }

    #[test]
    fn faults_round_trip_as_json() {
        let text = r#"[{"kill":{"task":"a#0","at":"1s"}},{"slow":{"operator":"a","from":"2s","cost-per-record":"5ms"}},{"storage-failure":{"from":"1s","until":"2s"}},{"decline":{"task":"a#0","checkpoint":3}},{"lose-notification":{"task":"a#0","checkpoint":2}},{"delay-acks":{"task":"a#0","by":"1s"}},{"network-delay":{"edge":"a -> b","by":"50ms","from":"1s","until":"3s"}},{"connection-loss":{"edge":"a -> b","at":"4s"}}]"#;
        let faults: Vec<Fault> = serde_json::from_str(text).unwrap();
        assert_eq!(faults.len(), 8);
        assert_eq!(serde_json::to_string(&faults).unwrap(), text);
        assert!(serde_json::from_str::<Vec<Fault>>(r#"[{"explode":{}}]"#).is_err());
    }

    #[test]
    fn resolve_checks_names_and_subtasks() {
        let index = |n: &str| (n == "a").then_some(0);
        let p = |_| 2;
        let kill = Fault::Kill {
            task: "a#2".into(),
            at: "1s".into(),
        };
        assert!(kill
            .resolve(index, p)
            .unwrap_err()
            .contains("parallelism 2"));
        let unknown = Fault::Kill {
            task: "b#0".into(),
            at: "1s".into(),
        };
        assert!(unknown
            .resolve(index, p)
            .unwrap_err()
            .contains("unknown operator 'b'"));
    }

    #[test]
    fn edge_faults_parse_their_edge_and_times() {
        let index = |n: &str| match n {
            "a" => Some(0),
            "Source: b" => Some(1),
            _ => None,
        };
        let delay = |edge: &str, from: &str, until: Option<&str>| Fault::NetworkDelay {
            edge: edge.into(),
            by: "20ms".into(),
            from: from.into(),
            until: until.map(Into::into),
        };
        assert_eq!(
            delay("Source: b->a", "1s", Some("2s")).resolve(index, |_| 2),
            Ok(ResolvedFault::NetworkDelay {
                from_op: 1,
                to_op: 0,
                by: 20_000,
                from: 1_000_000,
                until: 2_000_000
            })
        );
        let err = |f: Fault| f.resolve(index, |_| 2).unwrap_err();
        assert!(err(delay("a", "1s", None)).contains("names no edge"));
        assert!(err(delay("a -> ", "1s", None)).contains("both operator names"));
        assert!(err(delay("a -> c", "1s", None)).contains("unknown operator 'c'"));
        assert!(err(delay("a -> a", "2s", Some("1s"))).contains("until must be after from"));
        let lost = Fault::ConnectionLoss {
            edge: "a -> Source: b".into(),
            at: "5s".into(),
        };
        assert_eq!(lost.resolve(index, |_| 2).unwrap().time(), Some(5_000_000));
        assert_eq!(lost.resolve(index, |_| 2).unwrap().edge(), Some((0, 1)));
    }
}
