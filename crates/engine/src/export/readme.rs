//! The export's `README.md`: how to run it, what each scenario operator became, and what was not
//! exported.

use std::fmt::Write;

use super::plan::{OpPlan, Plan};
use crate::scenario::{JobGraph, OperatorKind, Scenario};

fn flink_api(kind: &OperatorKind, p: &OpPlan) -> &'static str {
    match kind {
        OperatorKind::Datagen { .. } => {
            "`DataGeneratorSource` + `RateLimiterStrategy.perSecond` (`Operators.Datagen`)"
        }
        OperatorKind::Map => "`map` (`Operators.PassMap`)",
        OperatorKind::Filter { .. } => "`filter` (`Operators.Filter`)",
        OperatorKind::KeyedCount => "`KeyedProcessFunction` with `ValueState<Long>` \"count\" (`Operators.KeyedCount`)",
        OperatorKind::KeyedList => "`KeyedProcessFunction` with `ListState<Long>` \"list\" (`Operators.KeyedList`)",
        OperatorKind::KeyedWindowSum { .. } => {
            "`window(TumblingProcessingTimeWindows)` + `aggregate` (`Operators.WindowAdd`, `WindowEmit`)"
        }
        OperatorKind::Union => "`connect` + `CoMapFunction`, a two-input task (`Operators.Union`)",
        OperatorKind::CheckpointAwareMap => {
            "`map` with `CheckpointedFunction` + `CheckpointListener` (`Operators.CheckpointAwareMap`)"
        }
        OperatorKind::DiscardSink if !p.has_work() => "Sink V2 `DiscardingSink`",
        OperatorKind::DiscardSink => "Sink V2 `Sinks.Discard` (a discarding writer with cost / faults)",
        OperatorKind::CollectSink => "Sink V2 `Sinks.Collect` (keeps the last 100 records)",
        OperatorKind::TwoPhaseCommitSink => {
            "Sink V2 + `SupportsCommitter` (`Sinks.TwoPhaseCommit`)"
        }
    }
}

pub(super) fn readme(scenario: &Scenario, graph: &JobGraph, plan: &Plan) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# {} as a Flink 2.3 job\n", scenario.name);
    if !scenario.description.is_empty() {
        let _ = writeln!(out, "{}\n", scenario.description);
    }
    out.push_str(
        "Written by `barrierlab export` from `scenario.json`. A self-contained DataStream job: it \
         compiles with `javac` against Flink 2.3.0's jars and runs on a local MiniCluster whose REST \
         API answers like any Flink cluster's.\n\n\
         ## Run\n\n\
         ```sh\n\
         ./run.sh --seconds 30                 # REST on http://127.0.0.1:8081\n\
         ./run.sh --seconds 30 --rest-port 18081\n\
         FLINK_LIB=/path/to/flink-2.3.0/lib ./run.sh\n\
         ```\n\n\
         `run.sh [--rest-port P] [--seconds N] [--conf-dir DIR]` compiles `src/` into `build/classes` \
         (when changed), loads `config.yaml` from DIR (default: this directory), starts a MiniCluster \
         with `minicluster.number-of-taskmanagers` TaskManagers of `taskmanager.numberOfTaskSlots` slots, submits \
         the job and prints one line to stdout:\n\n\
         ```\n\
         BARRIERLAB-JOB <32-hex job id> http://127.0.0.1:<port>\n\
         ```\n\n\
         It runs N seconds (default: until killed), keeping the cluster and its REST API up even after a \
         bounded job finished, then cancels the job and exits 0. Flink's log: `build/flink.log`. \
         Jars come from `$FLINK_LIB`, else the `pyflink` package's `lib`, else \
         `/opt/flink-venv/lib/python3*/site-packages/pyflink/lib`.\n\n\
         ```sh\n\
         curl -s http://127.0.0.1:8081/jobs/<id>/checkpoints\n\
         ```\n\n",
    );

    out.push_str("## What maps to what\n\n");
    out.push_str("| scenario operator | kind | Flink | parallelism | job vertex (simulator) |\n|---|---|---|---|---|\n");
    for p in &plan.ops {
        let spec = &scenario.operators[p.op];
        let vertex = graph
            .vertex_of_operator(p.op)
            .map(|v| v.name.clone())
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} | {} |",
            spec.name.replace('|', "\\|"),
            spec.kind.type_name(),
            flink_api(&spec.kind, p),
            scenario.parallelism(p.op),
            vertex.replace('|', "\\|")
        );
    }
    out.push_str(
        "\nOperator names and uids are the scenario's: sources show as `Source: <name>`, sinks as \
         `<name>: Writer` (and `<name>: Committer`), chains as `a -> b`, as in the simulator.\n\n\
         Records: a datagen record is a `Tuple2<Integer, byte[]>` (int key 4 + array length 4 + \
         `record-size - 8` payload bytes = `record-size` bytes), a keyed operator's output a \
         `Tuple2<Integer, Long>` (12 bytes). On the wire Flink adds 13 bytes to each: a 4-byte length (the \
         simulator's `RECORD_HEADER_BYTES`), a 1-byte tag and an 8-byte timestamp (sources stamp every \
         record), which the simulator counts as well. Keys are `Integer`s, so key groups are \
         `murmurHash(key) % max parallelism` as in the simulator, and each datagen split produces the \
         simulator's keys for that subtask (SplitMix64 of seed, origin and sequence number).\n\n",
    );

    let mut faults: Vec<String> = Vec::new();
    for p in &plan.ops {
        let name = &scenario.operators[p.op].name;
        for (subtask, at) in &p.kills {
            faults.push(format!(
                "- kill `{name}#{subtask}` at {at} ms after submission: its first record from then on throws, once per job (not again after the restore)"
            ));
        }
        for (from, nanos) in &p.slow {
            faults.push(format!(
                "- slow `{name}` from {from} ms after submission: {} µs per record",
                nanos / 1000
            ));
        }
    }
    if !faults.is_empty() {
        out.push_str("## Faults\n\n");
        for f in faults {
            let _ = writeln!(out, "{f}");
        }
        out.push('\n');
    }

    out.push_str("## Not exported\n\n");
    let mut not: Vec<String> = Vec::new();
    for e in &scenario.edges {
        if let Some(latency) = &e.latency {
            not.push(format!(
                "- edge `{}` -> `{}`: latency {latency} (simulator-only; a real network has its own)",
                e.from, e.to
            ));
        }
    }
    for key in scenario
        .config
        .keys()
        .filter(|k| k.starts_with("barrierlab."))
    {
        not.push(format!(
            "- `{key}`: a simulator model knob (a comment in `config.yaml`)"
        ));
    }
    not.push(
        "- default per-record costs: the JVM's own work stands for them; only an explicit \
         `cost-per-record` is exported (parked, not spun)"
            .to_string(),
    );
    for n in not {
        let _ = writeln!(out, "{n}");
    }
    out.push_str("\nSee the Barrier Lab repository's `docs/export.md` for the full mapping.\n");
    out
}
