//! The Java sources: fixed classes shipped verbatim (`java/*.java`, real Java files so they read
//! and diff as Java) and the scenario's `Topology.java`, generated here.

use std::fmt::Write;

use super::plan::{OpPlan, Plan, RecordType};
use crate::scenario::{KeyDistribution, OperatorKind, Partitioner, Scenario};
use crate::types::{parse_duration, MICROS_PER_MS};

/// Where the Java package lives in the export.
pub const JAVA_DIR: &str = "src/main/java/barrierlab";

/// The scenario-independent classes: (file name, text).
pub const FIXED_SOURCES: &[(&str, &str)] = &[
    (
        "BarrierLabJob.java",
        include_str!("java/BarrierLabJob.java"),
    ),
    ("Records.java", include_str!("java/Records.java")),
    ("Work.java", include_str!("java/Work.java")),
    ("Operators.java", include_str!("java/Operators.java")),
    ("Sinks.java", include_str!("java/Sinks.java")),
];

/// A Java string literal. Non-ASCII stays UTF-8 (javac runs with `-encoding UTF-8`); control
/// characters become octal escapes (a `\u000a` escape would end the literal).
pub(super) fn java_string(text: &str) -> String {
    let mut s = String::with_capacity(text.len() + 2);
    s.push('"');
    for c in text.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            '\n' => s.push_str("\\n"),
            '\t' => s.push_str("\\t"),
            '\r' => s.push_str("\\r"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(s, "\\{:03o}", c as u32);
            }
            c => s.push(c),
        }
    }
    s.push('"');
    s
}

/// Text safe inside a comment: one line, no Unicode escape for javac to trip over, no `*/`.
fn comment(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .replace("\\u", "\\ u")
        .replace("*/", "* /")
}

/// ForSt keeps its working state on the primary storage only for operators on the async state
/// API (`state.backend.forst.sync.enforce-local` defaults to true): keyed operators then run as
/// `AsyncKeyedProcessOperator` and `AsyncWindowOperator`, as the simulator's ForSt assumes.
fn async_state(scenario: &Scenario) -> bool {
    crate::scenario::FlinkConfig::from_map(&scenario.config)
        .is_ok_and(|c| c.state_backend == crate::scenario::StateBackendType::ForSt)
}

fn var(op: usize) -> String {
    format!("s{op}")
}

/// The input stream expression for an edge: the upstream variable with its partitioner.
fn partitioned(from: usize, partitioner: Partitioner) -> String {
    let s = var(from);
    match partitioner {
        Partitioner::Forward => format!("{s}.forward()"),
        // Integer keys: key group = murmurHash(key) % max parallelism, as in the engine.
        Partitioner::Hash => format!("{s}.keyBy(new Records.KeyOf<>(), Types.INT)"),
        Partitioner::Rebalance => format!("{s}.rebalance()"),
        Partitioner::Rescale => format!("{s}.rescale()"),
        Partitioner::Broadcast => format!("{s}.broadcast()"),
    }
}

/// `Work.of(...)` with the operator's explicit cost and its faults.
fn work(name: &str, p: &OpPlan) -> String {
    let mut w = format!("Work.of({}, start)", java_string(name));
    if p.cost_nanos > 0 {
        let _ = write!(w, ".cost({}L)", p.cost_nanos);
    }
    for (from, nanos) in &p.slow {
        let _ = write!(w, ".slow({from}L, {nanos}L)");
    }
    for (subtask, at) in &p.kills {
        let _ = write!(w, ".kill({subtask}, {at}L)");
    }
    w
}

/// `.name(..).uid(..).setParallelism(..)` and the optional settings, one per line.
fn settings(out: &mut String, name: &str, p: &OpPlan, parallelism: u32, sink: bool) {
    let lit = java_string(name);
    let _ = write!(
        out,
        "\n                .name({lit})\n                .uid({lit})"
    );
    let _ = write!(out, "\n                .setParallelism({parallelism})");
    if let Some(m) = p.max_parallelism {
        let _ = write!(out, "\n                .setMaxParallelism({m})");
    }
    if p.new_chain {
        // The engine chains only straight lines of equal max parallelism; Flink would chain more.
        out.push_str(if sink {
            "\n                .disableChaining()"
        } else {
            "\n                .startNewChain()"
        });
    }
}

fn datagen(out: &mut String, scenario: &Scenario, p: &OpPlan, w: &str) {
    let spec = &scenario.operators[p.op];
    let OperatorKind::Datagen {
        rate,
        record_size,
        keys,
        key_distribution,
        bounded,
    } = &spec.kind
    else {
        return;
    };
    let (hot_keys, hot_percent) = match key_distribution {
        KeyDistribution::Uniform => (0, 0),
        KeyDistribution::Skewed {
            hot_keys,
            hot_percent,
        } => (*hot_keys, *hot_percent),
    };
    let count = bounded.map_or("Long.MAX_VALUE".to_string(), |b| format!("{b}L"));
    let name = java_string(&spec.name);
    let _ = write!(
        out,
        "        // RateLimiterStrategy.perSecond is the total over all subtasks (each gets rate / parallelism).
        DataStream<Tuple2<Integer, byte[]>> {v} = env
                .fromSource(
                        new DataGeneratorSource<>(
                                new Operators.Datagen({seed:#x}L, {vertex}, {p}, {count}, {keys}, {hot_keys}, {hot_percent}, {record_size}, {w}),
                                {count},
                                RateLimiterStrategy.perSecond({rate}),
                                Records.BYTES),
                        WatermarkStrategy.noWatermarks(),
                        {name})
                .uid({name})
                .setParallelism({p})",
        v = var(p.op),
        seed = scenario.seed,
        vertex = p.vertex,
        p = scenario.parallelism(p.op),
    );
    if let Some(m) = p.max_parallelism {
        let _ = write!(out, "\n                .setMaxParallelism({m})");
    }
    out.push_str(";\n");
}

fn operator(out: &mut String, scenario: &Scenario, p: &OpPlan) {
    let spec = &scenario.operators[p.op];
    let kind = spec.kind.type_name();
    let _ = writeln!(
        out,
        "\n        // {kind} '{}' (parallelism {})",
        comment(&spec.name),
        scenario.parallelism(p.op)
    );
    for input in &p.inputs {
        if let Some(latency) = &input.latency {
            let _ = writeln!(
                out,
                "        // Edge '{}' -> '{}': latency {} is a simulator knob, not exported (a real network has its own).",
                comment(&scenario.operators[input.from].name),
                comment(&spec.name),
                comment(latency)
            );
        }
    }
    let w = work(&spec.name, p);
    if let OperatorKind::Datagen { .. } = spec.kind {
        datagen(out, scenario, p, &w);
        return;
    }
    // A committing sink's Committer inherits the sink's chaining strategy, so disableChaining()
    // would split Writer and Committer into two vertices where the engine has one. A rescale edge
    // of equal parallelism routes exactly as forward (subtask i to subtask i) and is never chained.
    let rescale_instead = p.new_chain && matches!(spec.kind, OperatorKind::TwoPhaseCommitSink);
    if rescale_instead {
        let _ = writeln!(
            out,
            "        // Not chained to its input, as in the engine: rescale routes like forward here."
        );
    }
    let inputs: Vec<String> = p
        .inputs
        .iter()
        .map(|i| match i.partitioner {
            Partitioner::Forward if rescale_instead => partitioned(i.from, Partitioner::Rescale),
            other => partitioned(i.from, other),
        })
        .collect();
    let input = inputs.first().cloned().unwrap_or_default();
    let out_type = p.out.unwrap_or(RecordType::Bytes);
    // state-ttl in milliseconds (0: none), as StateTtlConfig takes it.
    let ttl_ms = spec.state_ttl_millis().ok().flatten().unwrap_or(0);
    let ttl = if ttl_ms > 0 {
        format!(", {ttl_ms}L")
    } else {
        String::new()
    };
    let call = match &spec.kind {
        OperatorKind::Map => format!(
            "{input}\n                .map(new Operators.PassMap<>({w}), {})",
            out_type.type_info()
        ),
        OperatorKind::Filter { keep_percent } => {
            format!("{input}\n                .filter(new Operators.Filter<>({keep_percent}, {w}))")
        }
        OperatorKind::KeyedCount if async_state(scenario) => format!(
            "{input}\n                .enableAsyncState()\n                .process(new Operators.AsyncKeyedCount<>({w}{ttl}), Records.KEYED)"
        ),
        OperatorKind::KeyedCount => {
            format!(
                "{input}\n                .process(new Operators.KeyedCount<>({w}{ttl}), Records.KEYED)"
            )
        }
        OperatorKind::KeyedList if async_state(scenario) => format!(
            "{input}\n                .enableAsyncState()\n                .process(new Operators.AsyncKeyedList<>({w}, {ttl_ms}L), {})",
            out_type.type_info()
        ),
        OperatorKind::KeyedList => format!(
            "{input}\n                .process(new Operators.KeyedList<>({w}, {ttl_ms}L), {})",
            out_type.type_info()
        ),
        OperatorKind::KeyedWindowSum { window } => {
            let ms = parse_duration(window).unwrap_or(0) / MICROS_PER_MS;
            let _ = writeln!(out, "        Work w{} = {w};", p.op);
            let input = if async_state(scenario) {
                format!("{input}\n                .enableAsyncState()")
            } else {
                input
            };
            format!(
                "{input}\n                .window(TumblingProcessingTimeWindows.of(Duration.ofMillis({ms})))\n                .aggregate(new Operators.WindowAdd<>(w{op}), new Operators.WindowEmit(w{op}), Types.LONG, Records.KEYED)",
                op = p.op
            )
        }
        OperatorKind::CheckpointAwareMap => format!(
            "{input}\n                .map(new Operators.CheckpointAwareMap<>({w}), {})",
            out_type.type_info()
        ),
        OperatorKind::Union => {
            let second = inputs.get(1).cloned().unwrap_or_default();
            if p.union_to_bytes {
                let _ = writeln!(
                    out,
                    "        // The inputs' record types differ: keyed records leave as 16-byte BYTES records (Records.asBytes)."
                );
            }
            format!(
                "{input}\n                .connect({second})\n                .map(new Operators.Union<>({}, {w}), {})",
                p.union_to_bytes,
                out_type.type_info()
            )
        }
        OperatorKind::DiscardSink if !p.has_work() => {
            format!("{input}\n                .sinkTo(new DiscardingSink<>())")
        }
        OperatorKind::DiscardSink => {
            format!("{input}\n                .sinkTo(new Sinks.Discard<>({w}))")
        }
        OperatorKind::CollectSink => {
            format!("{input}\n                .sinkTo(new Sinks.Collect<>({w}))")
        }
        OperatorKind::TwoPhaseCommitSink => {
            format!("{input}\n                .sinkTo(new Sinks.TwoPhaseCommit<>({w}))")
        }
        OperatorKind::Datagen { .. } => unreachable!("handled above"),
    };
    let sink = spec.kind.is_sink();
    if sink {
        let _ = write!(out, "        {call}");
    } else {
        let _ = write!(
            out,
            "        DataStream<{}> {} = {call}",
            out_type.java(),
            var(p.op)
        );
    }
    let mut settings_plan = p.clone();
    settings_plan.new_chain &= !rescale_instead;
    settings(
        out,
        &spec.name,
        &settings_plan,
        scenario.parallelism(p.op),
        sink,
    );
    out.push_str(";\n");
}

/// `Topology.java`: the job name and the pipeline, one statement per scenario operator.
pub(super) fn topology(scenario: &Scenario, plan: &Plan) -> String {
    let mut body = String::new();
    for p in &plan.ops {
        operator(&mut body, scenario, p);
    }
    format!(
        r#"package barrierlab;

import java.time.Duration;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.streaming.api.windowing.assigners.TumblingProcessingTimeWindows;

/**
 * The Barrier Lab scenario {name} as a Flink job, generated by `barrierlab export`. Operator names
 * and uids are the scenario's, so Flink's vertex names read like the simulator's.
 */
final class Topology {{
    private Topology() {{}}

    static final String JOB_NAME = {job_name};

    /** Builds the pipeline; `start` is the submission time that fault times count from. */
    @SuppressWarnings({{"unchecked", "rawtypes"}})
    static void build(StreamExecutionEnvironment env, long start) {{{body}    }}
}}
"#,
        name = comment(&format!("'{}'", scenario.name)),
        job_name = java_string(&scenario.name),
    )
}
