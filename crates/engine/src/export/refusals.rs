//! What a plain Flink job cannot express, refused by name rather than silently dropped. Every
//! problem is listed at once, like validation does.

use crate::scenario::{Fault, OperatorKind, ResolvedFault, Scenario};
use crate::types::{parse_duration, MICROS_PER_MS};

/// The smallest datagen record the export can build: `Tuple2<Integer, byte[]>` is an int key and
/// the array's length before any payload.
pub const MIN_RECORD_SIZE: u64 = 8;

/// Why a fault kind cannot be exported, or `None` when it can.
fn fault_refusal(fault: &Fault) -> Option<&'static str> {
    match fault {
        Fault::Kill { .. } | Fault::Slow { .. } => None,
        Fault::StorageFailure { .. } => Some(
            "a plain job cannot make Flink's checkpoint storage fail for a while (the simulator fails its own storage model)",
        ),
        Fault::Decline { .. } => Some(
            "a plain job cannot make a task decline a given checkpoint (the simulator injects the decline into its task)",
        ),
        Fault::LoseNotification { .. } => Some(
            "a plain job cannot drop Flink's notifyCheckpointComplete RPC (the simulator drops it between its JobManager and task)",
        ),
        Fault::DelayAcks { .. } => Some(
            "a plain job cannot delay a task's checkpoint acknowledgements (the simulator delays its own RPCs)",
        ),
        Fault::NetworkDelay { .. } => Some(
            "a plain job cannot slow the network between TaskManagers (the simulator delays its own wire)",
        ),
        Fault::ConnectionLoss { .. } => Some(
            "a plain job cannot drop a TCP connection between TaskManagers (the simulator fails its own channel)",
        ),
    }
}

fn describe(fault: &Fault) -> String {
    // The fault's own JSON names its kind and fields exactly as the user wrote them.
    serde_json::to_string(fault).unwrap_or_else(|_| format!("{fault:?}"))
}

/// Resolves the scenario's faults and checks everything the export cannot express. The error
/// lists every refusal, one per line.
pub(super) fn check(scenario: &Scenario) -> Result<Vec<ResolvedFault>, String> {
    let mut problems: Vec<String> = Vec::new();
    let mut resolved = Vec::new();
    for (i, fault) in scenario.faults.iter().enumerate() {
        let subject = format!("fault #{} {}", i + 1, describe(fault));
        if let Some(why) = fault_refusal(fault) {
            problems.push(format!(
                "{subject}: not exportable: {why}; only kill and slow faults are"
            ));
            continue;
        }
        let r = fault.resolve(
            |name| scenario.operator_index(name),
            |op| scenario.parallelism(op),
        );
        match r {
            Ok(f) => resolved.push(f),
            Err(e) => problems.push(format!("{subject}: {e}")),
        }
    }
    for op in &scenario.operators {
        let subject = format!("operator '{}'", op.name);
        match &op.kind {
            OperatorKind::Datagen { record_size, .. } => {
                if *record_size < MIN_RECORD_SIZE {
                    problems.push(format!(
                        "{subject}: record-size {record_size} is below {MIN_RECORD_SIZE} bytes, the smallest exported record (Tuple2<Integer, byte[]>: int key + array length)"
                    ));
                } else if *record_size > i32::MAX as u64 {
                    problems.push(format!(
                        "{subject}: record-size {record_size} does not fit a Java byte[]"
                    ));
                }
            }
            OperatorKind::KeyedWindowSum { window } => {
                if let Ok(us) = parse_duration(window) {
                    if !us.is_multiple_of(MICROS_PER_MS) {
                        problems.push(format!(
                            "{subject}: window '{window}' is not a whole number of milliseconds, the unit of Flink's processing-time windows"
                        ));
                    }
                }
            }
            _ => {}
        }
    }
    if problems.is_empty() {
        Ok(resolved)
    } else {
        Err(format!(
            "cannot export scenario '{}' as a Flink job:\n  - {}",
            scenario.name,
            problems.join("\n  - ")
        ))
    }
}
