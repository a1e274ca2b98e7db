#!/usr/bin/env python3
"""Differential harness: Barrier Lab's simulator against real Apache Flink 2.3.

For each scenario: `barrierlab export` writes a runnable Flink job; the harness runs it (a local
MiniCluster) several times, polls its REST API while it runs, saves every response under
tests/flink/out/<scenario>/run-N/, runs the simulator on the same scenario, and prints a table
real (median [min-max], over checkpoints, subtasks and runs) vs simulated, with a verdict per
measure against a tolerance declared in TOLERANCES below. Exits 1 when a measure FAILs.

Standard library only. See tests/flink/README.md.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import re
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import derive_check  # tests/flink/derive_check.py, beside this file

REPO = Path(__file__).resolve().parents[2]
OUT_DEFAULT = REPO / "tests" / "flink" / "out"
DOC = REPO / "docs" / "fidelity.md"
DOC_BEGIN = "<!-- harness:begin -->"
DOC_END = "<!-- harness:end -->"
FLINK_VERSION = "2.3.0"
JOB_LINE = re.compile(r"^BARRIERLAB-JOB ([0-9a-f]{32}) (http://127\.0\.0\.1:(\d+))\s*$")

# --------------------------------------------------------------------------------------------
# Scenarios: a preset plus --set / --fail, or a scenario JSON the harness derives from a preset.
# --------------------------------------------------------------------------------------------


@dataclass
class Scenario:
    name: str
    preset: str
    sets: list[str] = field(default_factory=list)
    fail: list[str] = field(default_factory=list)
    # Changes to the scenario JSON that --set cannot make (e.g. the cluster's TaskManagers).
    # When set, the harness writes the preset (with `sets`) as JSON, applies this, and passes
    # the file to both `export` and `run`.
    patch: dict | None = None
    quick: bool = False
    note: str = ""


SEED_OPERATORS = ["datagen", "count-per-key", "checkpoint-aware-map", "discard-sink"]

SCENARIOS = [
    Scenario("seed-demo", "seed-demo", quick=True, note="aligned, no backpressure"),
    Scenario("seed-backpressure", "seed-backpressure", quick=True,
             note="aligned, 5 ms per record in count-per-key"),
    Scenario("seed-unaligned", "seed-unaligned", quick=True,
             note="unaligned, 5 ms per record in count-per-key"),
    Scenario("seed-unaligned-timeout-1s", "seed-unaligned",
             sets=["execution.checkpointing.aligned-checkpoint-timeout=1s"],
             note="aligned for 1 s after the trigger, then unaligned"),
    Scenario("seed-demo-cost-1ms", "seed-demo",
             sets=["operator.count-per-key.cost-per-record=1ms"],
             note="1 ms per record: ~1000 records/s capacity against ~1000 arriving per subtask"),
    Scenario("parallelism-4", "seed-demo",
             sets=[f"operator.{op}.parallelism=4" for op in SEED_OPERATORS],
             note="every operator at parallelism 4"),
    Scenario("two-taskmanagers", "seed-demo", patch={"cluster": {"taskmanagers": 2}},
             note="2 TaskManagers with 1 slot each: the hash edge crosses TaskManagers (remote channels)"),
    Scenario("seed-debloat", "seed-backpressure", quick=True,
             sets=["taskmanager.network.memory.buffer-debloat.enabled=true"],
             note="as seed-backpressure, with buffer debloating (seed 000 §10.3)"),
    Scenario("two-taskmanagers-debloat", "seed-backpressure",
             sets=["taskmanager.network.memory.buffer-debloat.enabled=true"],
             patch={"cluster": {"taskmanagers": 2}},
             note="seed-debloat on 2 TaskManagers: new buffer sizes travel to remote producers"),
    Scenario("large-state", "large-state",
             note="100 000 records/s over 1 M keys: keyed state grows to ~12 MB (sync and async "
                  "grow with it)"),
    Scenario("rocksdb-full", "rocksdb-full",
             note="large-state on EmbeddedRocksDBStateBackend, full checkpoints"),
    Scenario("rocksdb-incremental", "rocksdb-incremental",
             note="large-state on RocksDB with incremental checkpoints: one new L0 file a "
                  "checkpoint, the compacted level re-uploaded every fourth"),
    Scenario("forst", "forst",
             note="rocksdb-incremental on ForSt with the async state API: the flush writes the "
                  "SST file to checkpoint storage, and the checkpoint references it"),
    Scenario("state-ttl", "state-ttl",
             note="large-state with a 5 s state TTL: the heap's incremental cleanup keeps the "
                  "state at the keys written in the last 5 s"),
    Scenario("state-ttl-rocksdb", "state-ttl-rocksdb",
             note="state-ttl on RocksDB, incremental: expired keys leave at compaction"),
    Scenario("list-state", "list-state",
             note="a keyed ListState with a 10 s TTL, 20 000 appends/s over 100 000 keys"),
    Scenario("list-state-rocksdb", "list-state-rocksdb",
             note="list-state on RocksDB, incremental: appends are merge operands"),
    Scenario("two-input-join", "two-input-join", note="two sources, one behind a slow map"),
    Scenario("seed-2pc-kill", "seed-2pc", fail=["count-per-key#1@12s"],
             note="two-phase-commit sink; count-per-key#1 killed at 12 s"),
]

# --------------------------------------------------------------------------------------------
# Tolerances: one rule per measure, all in this table. A simulated median passes when it is
# within `abs` of the real median (in the measure's unit), or -- for real medians of at least
# `long_from` -- within `long_rel` of it, or otherwise within the ratio band `ratio`.
# No band is wider than [0.5, 2]: a 2x error always fails unless it is within `abs`.
# The values come from real Flink's own run-to-run spread (see tests/flink/README.md); the table
# flags a rule that is tighter than the spread actually observed ("< noise").
# `info` measures are reported without a verdict.
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rule:
    abs: float = 0.0
    ratio: tuple[float, float] | None = (0.5, 2.0)
    long_from: float | None = None
    long_rel: float | None = None
    info: bool = False
    exact_set: bool = False
    # Per-checkpoint values spread over a range (a subtask's in-flight data at its barrier): the
    # median of a few dozen of them moves by more than the rule between machines, so the
    # simulated median also passes inside the real values' interquartile range.
    iqr: bool = False

    def describe(self, unit: str) -> str:
        if self.info:
            return "info only"
        if self.exact_set:
            return "same set"
        parts = []
        if self.abs:
            parts.append(f"±{fmt_value(self.abs, unit)}")
        if self.long_from is not None and self.long_rel is not None:
            parts.append(f"≥{fmt_value(self.long_from, unit)}: ±{self.long_rel * 100:.0f} %")
        if self.ratio is not None:
            parts.append(f"×[{self.ratio[0]:g}, {self.ratio[1]:g}]")
        if self.iqr:
            parts.append("in real's IQR")
        return " or ".join(parts) if parts else "exact"

    def check(self, real: float, sim: float) -> bool:
        if abs(sim - real) <= self.abs:
            return True
        if self.long_from is not None and self.long_rel is not None and real >= self.long_from:
            return abs(sim - real) <= self.long_rel * real
        if self.ratio is not None and real > 0:
            return self.ratio[0] <= sim / real <= self.ratio[1]
        return False

    def band(self, real: float) -> tuple[float, float]:
        """The interval of simulated values this rule accepts around `real`."""
        lo, hi = real - self.abs, real + self.abs
        if self.long_from is not None and self.long_rel is not None and real >= self.long_from:
            lo, hi = min(lo, real * (1 - self.long_rel)), max(hi, real * (1 + self.long_rel))
        elif self.ratio is not None and real > 0:
            lo, hi = min(lo, real * self.ratio[0]), max(hi, real * self.ratio[1])
        return lo, hi


KIB = 1024.0
BUFFER = 32 * KIB  # one network buffer (taskmanager.memory.segment-size)

TOLERANCES: dict[str, Rule] = {
    # Durations in ms. Short figures: a few ms of slack (JVM, RPC and thread hand-offs are noise
    # at that scale), else within 2x. Long figures (backpressured start delay, aligned timeouts):
    # +-25 %.
    "end_to_end_duration": Rule(abs=5, long_from=200, long_rel=0.25),
    "end_to_end_duration_cp1": Rule(abs=5, long_from=200, long_rel=0.25),
    "ack_after_trigger": Rule(abs=5, long_from=200, long_rel=0.25),
    "start_delay": Rule(abs=5, long_from=200, long_rel=0.25),
    "alignment": Rule(abs=5, long_from=200, long_rel=0.25),
    "sync": Rule(abs=3),
    "async": Rule(abs=3),
    # Bytes. State is deterministic: +-10 %. In-flight data (persisted, processed during
    # alignment) has a slack of two 1 KiB records, +-25 % once it reaches a network buffer.
    "checkpointed_size": Rule(abs=0, ratio=(0.9, 1.1)),
    "state_size": Rule(abs=0, ratio=(0.9, 1.1)),
    "vertex_checkpointed_size": Rule(abs=0, ratio=(0.9, 1.1)),
    # A vertex that persists channel state: its size is mostly in-flight data, as noisy as that.
    "vertex_checkpointed_size_inflight": Rule(abs=2 * KIB, long_from=BUFFER, long_rel=0.25),
    "persisted_data": Rule(abs=2 * KIB, long_from=BUFFER, long_rel=0.25),
    "persisted_data_cp1": Rule(abs=2 * KIB, long_from=BUFFER, long_rel=0.25),
    "subtask_persisted": Rule(abs=2 * KIB, long_from=BUFFER, long_rel=0.25, iqr=True),
    # A checkpoint's processed data is its keyed subtasks' sum, each 0 B (the gate read the
    # later channel's buffer before the first barrier) or 1-32 KiB: over 11 real runs of
    # seed-demo the run medians spread 0-40 KiB, so, as per subtask, the real IQR also passes.
    "processed_data": Rule(abs=2 * KIB, long_from=BUFFER, long_rel=0.25, iqr=True),
    "subtask_processed": Rule(abs=2 * KIB, long_from=BUFFER, long_rel=0.25, iqr=True),
    # Ratios of a second (busyTimeMsPerSecond / 1000 etc.): absolute +-0.10.
    "busy_ratio": Rule(abs=0.10, ratio=None),
    "backpressure_ratio": Rule(abs=0.10, ratio=None),
    # The buffer debloater's size (bytes): a moving average of a measured throughput, applied
    # only when it moves by 25 % or more (threshold-percentages, BufferDebloater.skipUpdate).
    # So the size a run ends on is anywhere in [0.8, 1.33] of its target: the same hysteresis
    # band bounds the simulated size (real runs alone differ by x1.22: 8.2 KiB against 10 KiB).
    "debloated_buffer_size": Rule(abs=0, ratio=(0.75, 1.34)),
    "debloat_time_to_consume": Rule(info=True),
    # Counts over the run.
    "completed": Rule(abs=1, ratio=None),
    "failed": Rule(abs=0, ratio=None),
    "restored": Rule(abs=0, ratio=None),
    "restored_id": Rule(abs=0, ratio=None),
    # Failover (scenarios with --fail): the restart delay and the next trigger after the restore.
    "failure_after_start": Rule(info=True),
    "restore_after_failure": Rule(abs=5, long_from=200, long_rel=0.25),
    "trigger_after_restore": Rule(abs=250),
    "backpressured_subtasks": Rule(exact_set=True, ratio=None),
    # When checkpoint 1 is triggered, in ms after the last subtask switched to RUNNING (the
    # simulator's tasks run from time 0). It decides how full the queues are at checkpoint 1.
    "first_trigger_after_running": Rule(abs=250),
    # Reported for context, no verdict.
    "submit_to_running": Rule(info=True),
    "idle_ratio": Rule(info=True),
}

# Scenario-scoped rules, by "scenario:measure", where Flink's own spread is wider than the
# measure's general rule. Incremental RocksDB and ForSt checkpoints hold whatever SST files the
# background flushes and compactions have written by then: over 8 real runs on two days (2026-12-03
# and -04, same kind of machine) the run medians of checkpointed size spread x1.34 for forst
# (3.6-4.8 MB) and x1.25 for state-ttl-rocksdb (5.2-6.4 MB, its expired keys leave only at
# compaction), and its state size x1.30 (9.7-12.7 MB). Within a session runs agree to a few %.
# The debloater's band fits that spread and still fails a 2x error.
COMPACTION_SIZE = Rule(abs=0, ratio=(0.75, 1.34))
SCENARIO_TOLERANCES: dict[str, Rule] = {
    f"{scenario}:{measure}": COMPACTION_SIZE
    for scenario in ("forst", "state-ttl-rocksdb")
    for measure in ("checkpointed_size", "state_size", "vertex_checkpointed_size")
}


def rule_of(row) -> Rule:
    return SCENARIO_TOLERANCES.get(f"{row.scenario}:{row.measure}") or TOLERANCES[row.measure]


# Known gaps: measures where the simulator is known to differ from Flink for a reason stated
# here (and in docs/fidelity.md, "Not modelled yet"). A row outside its tolerance is reported as
# "known gap" and does not fail the run; a gap that closes shows "ok" like any other row. Every
# entry is a modelling task left open, not a tolerance.
KNOWN_GAPS: dict[str, str] = {
    # Each checkpoint's value is 0 B (the gate read the later source's channel before the first
    # barrier) or that channel's partial buffer, flushed ahead of its barrier (1-32 KiB), so the
    # median flips with the share of non-zero checkpoints. 2026-12-05: Flink 13 of 19 on each
    # subtask (3 runs; CI's 6 runs gave medians of 6.1-14 KiB), the simulator 48 of 96 on #0 and
    # 58 of 96 on #1 (seeds 1..16, 32 s): its later barrier trails the earlier one by less.
    # The job-level row and #1 passed until a rehearsal the same day gave Flink medians of
    # 32 KiB (job, runs 10-42 KiB) and 22 KiB (#1) against the simulator's 4.1 KiB and 262 B:
    # the same gap, on all three rows.
    "seed-demo:processed_data": "each checkpoint processes 0 B or the later channel's partial "
        "buffer (1-32 KiB) in each count-per-key subtask: Flink does in about two thirds of its "
        "checkpoints, the simulator in half to three fifths, so its median is often lower",
    "seed-demo:subtask_processed": "each checkpoint processes 0 B or the later "
        "channel's partial buffer (1-32 KiB): Flink's count-per-key subtasks do in 13 of 19 "
        "checkpoints, the simulator's in 48 (#0) and 58 (#1) of 96 (seeds 1..16), so its "
        "median is often 0 B",
    # Checkpoint 1: the JVM warm-up is modelled on the checkpoint paths (task/warm_up.rs), and
    # the sources' head start (build.rs, `barrierlab.source-open-lead`): the tasks without keyed
    # state RUNNING `task-running-spread` (40 ms) before the keyed ones. A keyed RocksDB or ForSt
    # subtask builds its native backend while INITIALIZING: in the real runs the sources are
    # RUNNING 290-460 ms before it, and queue that much more in front of the first barrier.
    "forst:end_to_end_duration_cp1": "Flink's keyed ForSt subtasks are RUNNING 320-460 ms after "
        "the sources (the native backend is built while INITIALIZING), the simulator's 40 ms "
        "after (task-running-spread): fewer records queue in front of checkpoint 1's barrier",
    "list-state-rocksdb:end_to_end_duration_cp1": "as forst: the keyed RocksDB subtasks are "
        "RUNNING 330-385 ms after the sources in Flink",
    # 2026-12-05 (4 runs, 16 seeds, the harness giving the simulator the measured 312 ms of
    # task-running-spread): Flink's keyed RocksDB subtasks spend 42-48 ms in checkpoint 1's async
    # phase (11-28 ms from checkpoint 2 on), the simulator 10 ms: RocksDB's snapshot strategy
    # and uploader are a cold path of their own, which task/warm_up.rs does not have (it warms
    # the heap's, 8 ms). rocksdb-full (177 ms) and state-ttl-rocksdb (195 ms) pass under 200 ms.
    "rocksdb-incremental:end_to_end_duration_cp1": "Flink's keyed RocksDB subtasks take 42-48 "
        "ms in checkpoint 1's async phase (11-28 ms later on), the simulator 10 ms: RocksDB's "
        "snapshot classes are a cold path the simulator's warm-up does not have; 200-223 ms "
        "end to end against 148 ms",
    # 2026-12-04: Flink's state was 12.5 MB against 10.9 MB the day before (compaction drops
    # the expired keys later), its flushes ran longer (sync 257 ms, simulated 185 ms) and the
    # subtask whose flush waits for the other's acked at 356-432 ms (run medians; 212-406 the day
    # before, when the simulator's 235 ms passed).
    "state-ttl-rocksdb:end_to_end_duration": "the keyed state's size at the flush follows "
        "RocksDB's compaction timing: on a day Flink holds 12.5 MB (simulated 10.8 MB) its two "
        "flushes, one after the other, take 412 ms end to end against 298 ms",
    "state-ttl-rocksdb:ack − trigger · count-per-key→…#1": "as its end-to-end duration: the "
        "subtask whose flush waits for the other's",
    # CI's quick runs (22 s) 2026-12-03..05: real 61, 46, 40, 51, 34 ms, simulated x1.24, x1.30,
    # x1.85, x1.68, x2.31; the full runs: 43 against 60 ms. CI of 2026-12-05: outside x2 after 3
    # runs, 48 against 68 ms (x1.43) after 6. The 9-key subtask's row agrees.
    "seed-debloat:start delay · count-per-key→…#0": "the starved 7-key subtask's barrier waits "
        "1.2-2.3x longer here than in Flink (68 against 48 ms over 6 runs of CI on 2026-12-05, "
        "78 against 34 ms at the worst): more of its records queue ahead of it with debloating; "
        "not identified",
    "rocksdb-full:busy_ratio": "as large-state: the datagen at 50 000 records/s is 0.36-0.51 busy "
        "in Flink (0.47-0.51 on 2026-12-04, 0.36-0.44 on -05) and 0.01-0.02 in the simulator; "
        "the keyed count on RocksDB read 0.42-0.47 on -05 (simulated 0.4, calibrated so) and "
        "0.64-0.72 before: the machine's speed, which the harness does not scale costs by",
    "rocksdb-incremental:busy_ratio": "as rocksdb-full",
    "rocksdb-incremental:backpressured_subtasks": "RocksDB's flushes and compactions run on "
        "background threads that share this 2-core machine with the task threads: Flink's "
        "sources are 9-13 % backpressured and its barriers wait 10-124 ms behind the keyed "
        "subtasks; the simulator's background work takes no CPU from the tasks",
    "rocksdb-full:backpressured_subtasks": "as rocksdb-incremental",
    # 2026-12-04's 2 runs against 8 and 16 seeds: the gauges' first slot adds ~0.04 to the
    # simulator's 0.10 over its last seconds, which passed at the rule's edge before.
    "rocksdb-full:backpressure_ratio": "the simulator's sources are 0.12-0.15 backpressured by "
        "the gauges (0.10 over their last seconds), Flink's 0.03-0.06; as its backpressured "
        "subtasks, not identified",
    "rocksdb-incremental:start_delay": "as its backpressured subtasks",
    "rocksdb-full:start_delay": "as rocksdb-incremental",
    # Flink flushes the two keyed subtasks' memtables one after the other on its one flush
    # thread (state/flush_thread.rs): each subtask's ack - trigger is ~150 ms when it goes first
    # and ~280 ms when it waits, about half the time each, in Flink and in the simulator alike.
    # The median of such a two-mode list lands in either mode by chance; end to end agrees.
    "rocksdb-incremental:ack − trigger · count-per-key→…#0": "two modes (~150 ms when this "
        "subtask flushes first, ~280 ms when it waits for the other's flush, about half the "
        "time each in Flink and in the simulator): the median lands in either by chance; the "
        "job's end to end agrees",
    "rocksdb-incremental:ack − trigger · count-per-key→…#1": "as count-per-key#0",
    "rocksdb-full:ack − trigger · count-per-key→…#0": "as rocksdb-incremental",
    "rocksdb-full:ack − trigger · count-per-key→…#1": "as rocksdb-incremental",
    "state-ttl-rocksdb:ack − trigger · count-per-key→…#0": "as rocksdb-incremental",
    "forst:ack − trigger · count-per-key→…#0": "as rocksdb-incremental",
    "forst:ack − trigger · count-per-key→…#1": "as rocksdb-incremental",
    "forst:busy_ratio": "as large-state for the datagen (0.48-0.50 busy in Flink); the keyed "
        "count passes (0.12-0.14 in Flink, its state access on ForSt's executor threads)",
    "forst:start_delay": "as rocksdb-incremental",
    # 2026-12-05: the sources' ack 20-24 ms after the trigger (start delay 11-13 ms), the
    # simulator's 9-11 ms: the trigger reaches the sources later while ForSt's threads and the
    # datagen (0.5 busy) share the 2 cores, which the simulator does not model.
    "forst:ack_after_trigger": "the sources ack 20-24 ms after the trigger in Flink (start "
        "delay 11-13 ms), 9-11 ms here: as its start delay",
    # Thread CPU from /proc/<jvm>/task/*/stat over 15 s of one run each (2026-12-05, the machine
    # at 1.3 and 1.0 of its 2 cores): at 50 000 and 25 000 records/s a subtask the datagen's task
    # thread uses 5.7 and 9.2 us of CPU a record and reads busy 0.60 and 0.50, its
    # flink-rate-limiter thread as much CPU again; at 10 000 (list-state) it reads 0.00. The
    # heap keyed chain's thread uses 0.6-0.7 us a record and reads 0.00: the kinds' default
    # costs are calibrated to it (scenario/model.rs), so the keyed rows pass.
    "large-state:busy_ratio": "at 50 000 records/s a subtask Flink's datagen is 0.51-0.59 busy "
        "(0.50 at 25 000, 0.00 at 10 000: the rate limiter's thread hand-off per record, not a "
        "per-record cost); the simulator's 2 us a record gives 0.01",
    "state-ttl:busy_ratio": "as large-state for the datagen; the keyed count passes (0.05-0.14 "
        "in Flink with a TTL, whose incremental cleanup visits 10 entries a record)",
    "state-ttl:start_delay": "Flink's keyed subtasks start 6-16 ms after the trigger with a TTL "
        "(7 ms without, large-state): its tasks are busier (0.05-0.14 against 0.00, the TTL's "
        "incremental cleanup), the simulator models no cleanup cost (4 ms against 9.5 ms)",
    "state-ttl-rocksdb:busy_ratio": "as rocksdb-incremental",
    "state-ttl-rocksdb:start_delay": "as rocksdb-incremental",
    "state-ttl-rocksdb:backpressured_subtasks": "a keyed subtask's ~250 ms flush backs its "
        "sources up to about the 10 % threshold: the simulator's datagen#1 crosses it in some "
        "seeds, Flink's sources here in none of 4 runs (in rocksdb-incremental's at 9-13 %)",
}

# A subtask counts as backpressured when its backPressuredTimeMsPerSecond is above Flink's
# "ok" threshold (10 %, JobVertexBackPressureHandler / the Web UI).
BACKPRESSURED = 0.10


# --------------------------------------------------------------------------------------------
# Formatting
# --------------------------------------------------------------------------------------------


def fmt_value(v: float | None, unit: str) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    if unit == "B":
        if abs(v) >= 10 * KIB:
            return f"{v / KIB:.0f} KiB"
        if abs(v) >= KIB:
            return f"{v / KIB:.1f} KiB"
        return f"{v:.0f} B"
    if unit == "ms":
        if abs(v) >= 10_000:
            return f"{v / 1000:.1f} s"
        return f"{v:.0f} ms" if v == int(v) or abs(v) >= 10 else f"{v:.1f} ms"
    if unit == "ratio":
        return f"{v:.2f}"
    return f"{v:g}"


def fmt_stats(values: list[float], unit: str) -> str:
    if not values:
        return "–"
    med = statistics.median(values)
    lo, hi = min(values), max(values)
    if lo == hi:
        return fmt_value(med, unit)
    return f"{fmt_value(med, unit)} [{fmt_value(lo, unit)}–{fmt_value(hi, unit)}]"


def short_vertex(name: str) -> str:
    """`count-per-key -> checkpoint-aware-map -> discard-sink: Writer` -> `count-per-key→…`."""
    head = name.split(" -> ")[0]
    head = head.removeprefix("Source: ")
    return head + ("→…" if " -> " in name else "")


# --------------------------------------------------------------------------------------------
# Processes and REST
# --------------------------------------------------------------------------------------------

_children: list[subprocess.Popen] = []


def kill_group(proc: subprocess.Popen, grace: float = 10.0) -> None:
    """SIGTERM the process group, SIGKILL it after `grace` seconds."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            pass
    # Whatever is left in the group (the JVM if run.sh did not exec it).
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass
    if proc in _children:
        _children.remove(proc)


def _on_signal(signum, _frame):
    raise SystemExit(128 + signum)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rest_get(base: str, path: str, timeout: float = 5.0, retries: int = 2):
    """GET base+path as JSON; on failure a dict with `__error__`."""
    url = base + path
    err = None
    for attempt in range(retries + 1):
        try:
            with urllib.request.urlopen(url, timeout=timeout) as r:
                return json.loads(r.read().decode())
        except urllib.error.HTTPError as e:
            try:
                body = e.read().decode()[:2000]
            except Exception:  # noqa: BLE001
                body = ""
            err = f"HTTP {e.code}: {body}"
            if e.code == 404:
                break
        except Exception as e:  # noqa: BLE001
            err = f"{type(e).__name__}: {e}"
        time.sleep(0.3 * (attempt + 1))
    return {"__error__": err, "__url__": path}


def ok(body) -> bool:
    return isinstance(body, (dict, list)) and not (isinstance(body, dict) and "__error__" in body)


def run_cmd(cmd: list[str], timeout: float, cwd: Path | None = None) -> str:
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError(f"{shlex.join(cmd)} failed ({r.returncode}): {r.stderr.strip()[-2000:]}")
    return r.stdout


# --------------------------------------------------------------------------------------------
# Scenario arguments for barrierlab (export and run take the same ones)
# --------------------------------------------------------------------------------------------


def barrierlab_bin(args) -> str:
    if args.barrierlab:
        return args.barrierlab
    built = REPO / "target" / "release" / "barrierlab"
    if not args.no_build:
        run_cmd(["cargo", "build", "--release", "-q", "-p", "barrierlab-cli"], timeout=1800, cwd=REPO)
    if not built.exists():
        raise RuntimeError(f"{built} missing; build it with cargo build --release -p barrierlab-cli")
    return str(built)


def scenario_args(bl: str, sc: Scenario, workdir: Path) -> list[str]:
    """`--preset P --set ... --fail ...`, or `FILE.json --fail ...` when the scenario is patched."""
    if sc.patch is None:
        out = ["--preset", sc.preset]
        for s in sc.sets:
            out += ["--set", s]
    else:
        link_cmd = [bl, "share", "--preset", sc.preset]
        for s in sc.sets:
            link_cmd += ["--set", s]
        link = run_cmd(link_cmd, timeout=60).strip()
        decoded = json.loads(run_cmd([bl, "share", "--decode", link], timeout=60))
        scenario = decoded["scenario"]
        deep_merge(scenario, sc.patch)
        scenario["name"] = sc.name
        path = workdir / f"{sc.name}.scenario.json"
        path.write_text(json.dumps(scenario, indent=2) + "\n")
        out = [str(path)]
    for f in sc.fail:
        out += ["--fail", f]
    return out


def deep_merge(into: dict, patch: dict) -> None:
    for k, v in patch.items():
        if isinstance(v, dict) and isinstance(into.get(k), dict):
            deep_merge(into[k], v)
        else:
            into[k] = v


# --------------------------------------------------------------------------------------------
# One real run
# --------------------------------------------------------------------------------------------


class Collector:
    """Polls a running job's REST API and saves every response under `out`."""

    def __init__(self, base: str, job: str, out: Path, t0: float):
        self.base, self.job, self.out, self.t0 = base, job, out, t0
        self.jp = f"/jobs/{job}"
        self.vertices: list[dict] = []
        self.details_done: set[int] = set()
        self.initial_times = False
        self.samples: dict[str, list] = {"backpressure": [], "metrics": [], "metrics_aggregated": [],
                                          "job": [], "checkpoints": []}

    def t(self) -> float:
        return round(time.monotonic() - self.t0, 3)

    def save(self, name: str, body) -> None:
        (self.out / name).write_text(json.dumps(body, indent=1, sort_keys=True) + "\n")

    def job_info(self):
        body = rest_get(self.base, self.jp)
        if ok(body):
            self.vertices = body.get("vertices", [])
            running = all(v.get("tasks", {}).get("RUNNING") == v.get("parallelism")
                          for v in self.vertices)
            if running and self.vertices and not self.initial_times:
                # The first attempts' state timestamps, before any failover replaces them.
                for v in self.vertices:
                    self.save(f"subtasktimes-initial-{v['id']}.json",
                              rest_get(self.base, f"{self.jp}/vertices/{v['id']}/subtasktimes"))
                self.initial_times = True
        self.samples["job"].append({"t": self.t(), "body": body})
        return body

    def checkpoints(self, fetch_details: bool = True):
        body = rest_get(self.base, self.jp + "/checkpoints")
        self.samples["checkpoints"].append({"t": self.t(), "body": body})
        if ok(body) and fetch_details:
            for cp in body.get("history", []):
                if cp.get("status") == "IN_PROGRESS" or cp["id"] in self.details_done:
                    continue
                self.details(cp["id"])
        return body

    def details(self, cid: int) -> None:
        body = rest_get(self.base, f"{self.jp}/checkpoints/details/{cid}")
        if not ok(body):
            return
        self.save(f"details-{cid}.json", body)
        for v in self.vertices:
            sub = rest_get(self.base, f"{self.jp}/checkpoints/details/{cid}/subtasks/{v['id']}")
            self.save(f"subtasks-{cid}-{v['id']}.json", sub)
        self.details_done.add(cid)

    def ratios(self) -> None:
        names = ("busyTimeMsPerSecond,backPressuredTimeMsPerSecond,idleTimeMsPerSecond,"
                 + ",".join(DEBLOAT_METRICS.values()))
        for v in self.vertices:
            vid = v["id"]
            bp = rest_get(self.base, f"{self.jp}/vertices/{vid}/backpressure")
            self.samples["backpressure"].append({"t": self.t(), "vertex": vid, "body": bp})
            agg = rest_get(self.base, f"{self.jp}/vertices/{vid}/subtasks/metrics?get={names}")
            self.samples["metrics_aggregated"].append({"t": self.t(), "vertex": vid, "body": agg})
            for i in range(v.get("parallelism", 1)):
                m = rest_get(self.base, f"{self.jp}/vertices/{vid}/subtasks/{i}/metrics?get={names}")
                self.samples["metrics"].append({"t": self.t(), "vertex": vid, "subtask": i, "body": m})

    def final(self) -> None:
        self.save("job.json", self.job_info())
        self.save("config.json", rest_get(self.base, self.jp + "/checkpoints/config"))
        self.save("checkpoints.json", self.checkpoints())
        self.save("exceptions.json", rest_get(self.base, self.jp + "/exceptions"))
        for v in self.vertices:
            self.save(f"subtasktimes-{v['id']}.json",
                      rest_get(self.base, f"{self.jp}/vertices/{v['id']}/subtasktimes"))
        for k, v in self.samples.items():
            self.save(f"samples-{k}.json", v)


# `--collect`: each real run's still-running job through `barrierlab collect` and
# `collect --check` (docs/collect.md). What was checked, and what failed.
COLLECTED: list[str] = []
# `--derive`: each scenario's bundles, derived and judged (derive_check.py).
DERIVED: list = []
COLLECT_FAILURES: list[str] = []


def collect_bundle(bl: str, base: str, job: str, out: Path) -> None:
    """`barrierlab collect` against the running job into out/collect-bundle.json, then
    `collect --check`: the bundle must read, hold the job and at least one checkpoint's details."""
    bundle = out / "collect-bundle.json"
    try:
        run_cmd([bl, "collect", "--rest", base, "--job", job, "--checkpoints", "3",
                 "--out", str(bundle)], timeout=120)
        run_cmd([bl, "collect", "--check", str(bundle)], timeout=60)
        body = json.loads(bundle.read_text())
        if not body.get("details"):
            raise RuntimeError("no checkpoint details in the bundle")
        COLLECTED.append(str(bundle))
    except Exception as e:  # noqa: BLE001
        COLLECT_FAILURES.append(f"{out}: {e}")


def poll(col, seconds: float, now, sleep, alive) -> float:
    """Polls `col` (a Collector) for `seconds` after the job line (`now()` counts from it): the
    job every second, checkpoints and ratios every 5 s. Then the run's last ratios, as the
    TaskManagers' gauges are at its end: the requests that make the MetricFetcher fetch stop for
    the last METRIC_QUIET_S, so one `ratios()` at the end makes it fetch (that request still
    answers from the old snapshot) and a second, once the fetch is in, reads the new one. The
    simulator reads its gauges at the end of its run; a snapshot up to 10 s old compared the job
    at two moments (a subtask whose queued input runs dry in between: busy 1.00 against 0.86).
    Returns when the final fetch was asked for."""
    next_poll = 0.0
    while (el := now()) < seconds:
        alive(el)
        quiet = el >= seconds - METRIC_QUIET_S and col.initial_times
        if not quiet:
            col.job_info()
        if el >= next_poll:
            col.checkpoints()
            if not quiet:
                col.ratios()
            next_poll += 5.0
        sleep(max(0.0, min(1.0, seconds - now())))
    at = now()
    col.ratios()
    sleep(METRIC_FETCH_WAIT_S)
    col.ratios()
    return at


def real_run(job_dir: Path, out: Path, seconds: int, run_no: int, start_timeout: float,
             origin: str = "", collect_with: str | None = None) -> dict:
    """Runs DIR/run.sh once, collects REST for `seconds` after submission, kills it.
    With `collect_with` (a barrierlab binary), also `collect`s the job before killing it."""
    out.mkdir(parents=True, exist_ok=True)
    for old in out.iterdir():
        old.unlink()
    port = free_port()
    # The job must outlive the collection: ask for more seconds than we poll, then stop it.
    cmd = [str(job_dir / "run.sh"), "--rest-port", str(port), "--seconds", str(seconds + 60)]
    meta = {"command": shlex.join(cmd), "job_from": origin, "port": port, "seconds": seconds,
            "run": run_no,
            "started": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}
    # The job's own log (an export writes build/flink.log): only this run's lines.
    for stale_log in (job_dir / "flink.log", job_dir / "build" / "flink.log"):
        if stale_log.exists():
            stale_log.unlink()
    stderr = open(out / "stderr.txt", "w")
    # The MiniCluster unpacks its RPC jar (~20 MB) into java.io.tmpdir and deletes it only on a
    # clean shutdown; the job is killed, so give it a directory of its own and remove it after.
    java_tmp = Path(tempfile.mkdtemp(prefix="barrierlab-flink-tmp-"))
    env = dict(os.environ)
    env["JAVA_TOOL_OPTIONS"] = (env.get("JAVA_TOOL_OPTIONS", "") +
                                f" -Djava.io.tmpdir={java_tmp}").strip()
    t_launch = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=job_dir, stdout=subprocess.PIPE, stderr=stderr, text=True,
                            start_new_session=True, env=env)
    _children.append(proc)
    lines: list[str] = []
    found: dict = {}
    got_line = threading.Event()

    def reader():
        for line in proc.stdout:
            lines.append(line.rstrip("\n"))
            m = JOB_LINE.match(line.strip())
            if m and not found:
                found.update(job=m.group(1), base=m.group(2), t=time.monotonic())
                got_line.set()

    th = threading.Thread(target=reader, daemon=True)
    th.start()
    try:
        while not got_line.wait(0.2):
            if proc.poll() is not None:
                raise RuntimeError(f"run.sh exited ({proc.returncode}) before the BARRIERLAB-JOB "
                                   f"line; see {out / 'stderr.txt'}")
            if time.monotonic() - t_launch > start_timeout:
                raise RuntimeError(f"no BARRIERLAB-JOB line within {start_timeout:.0f} s")
        meta.update(job=found["job"], base=found["base"],
                    launch_to_job_line_s=round(found["t"] - t_launch, 3))
        col = Collector(found["base"], found["job"], out, found["t"])

        def alive(el: float) -> None:
            if proc.poll() is not None:
                raise RuntimeError(f"job process exited ({proc.returncode}) after {el:.1f} s")
        meta["metrics_fetched_at_s"] = poll(col, seconds, col.t, time.sleep, alive)
        col.final()
        meta["collected_after_s"] = round(time.monotonic() - found["t"], 3)
        if collect_with:
            collect_bundle(collect_with, found["base"], found["job"], out)
    finally:
        kill_group(proc)
        th.join(timeout=2)
        stderr.close()
        shutil.rmtree(java_tmp, ignore_errors=True)
        meta["stdout"] = lines[-50:]
        meta["wall_s"] = round(time.monotonic() - t_launch, 3)
        (out / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
        for log in (job_dir / "flink.log", job_dir / "build" / "flink.log"):
            if log.exists():
                shutil.copy(log, out / "flink.log")
    return meta


# --------------------------------------------------------------------------------------------
# Normalised observations (real run dir or simulator JSON -> the same shape)
# --------------------------------------------------------------------------------------------


def _subtask_obs(s: dict, trigger: int) -> dict:
    return {
        "index": s["index"],
        "start_delay": s["start_delay"],
        "alignment": s["alignment"]["duration"],
        "sync": s["checkpoint"]["sync"],
        "async": s["checkpoint"]["async"],
        "persisted": s["alignment"]["persisted"],
        "processed": s["alignment"]["processed"],
        "ack_after_trigger": s["ack_timestamp"] - trigger,
        "checkpointed_size": s["checkpointed_size"],
        "unaligned": s.get("unaligned_checkpoint"),
    }


def _cp_obs(cp: dict, tasks: dict[str, dict], subtasks: dict[str, dict]) -> dict:
    trig = cp["trigger_timestamp"]
    vertices = {}
    for name, task in tasks.items():
        sub = subtasks.get(name) or {}
        vertices[name] = {
            "checkpointed_size": task["checkpointed_size"],
            "state_size": task["state_size"],
            "persisted": task["persisted_data"],
            "processed": task["processed_data"],
            "subtasks": [_subtask_obs(s, trig) for s in sub.get("subtasks", [])
                         if s.get("className") == "completed" or "ack_timestamp" in s],
        }
    return {
        "id": cp["id"], "status": cp["status"], "trigger": trig,
        "type": cp.get("checkpoint_type"),
        "end_to_end_duration": cp["end_to_end_duration"],
        "checkpointed_size": cp["checkpointed_size"], "state_size": cp["state_size"],
        "persisted_data": cp["persisted_data"], "processed_data": cp["processed_data"],
        "failure_message": cp.get("failure_message"),
        "vertices": vertices,
    }


def _metric(body, key: str) -> float | None:
    if not ok(body):
        return None
    for m in body:
        if m.get("id") == key:
            try:
                v = float(m["value"]) / 1000.0
            except (KeyError, ValueError):
                return None
            return None if math.isnan(v) else v
    return None


# Flink's MetricFetcher fetches on a request when the last fetch is more than
# `metrics.fetcher.update-interval` (10 s) old, and answers from what it had
# (`MetricFetcherImpl.update`); `/jobs/:id`, the backpressure and the metrics handlers ask it.
METRIC_QUIET_S = 10.5
# A fetch from the MiniCluster's own TaskManagers is in within milliseconds.
METRIC_FETCH_WAIT_S = 1.0
RATIO_METRICS = {"busy": "busyTimeMsPerSecond", "backpressure": "backPressuredTimeMsPerSecond",
                 "idle": "idleTimeMsPerSecond"}
# The first input gate's BufferDebloater gauges (absent without buffer debloating).
DEBLOAT_METRICS = {"buffer_size": "Shuffle.Netty.Input.0.debloatedBufferSize",
                   "time_to_consume": "Shuffle.Netty.Input.0.estimatedTimeToConsumeBuffersMs"}


def _raw_metric(body, key: str) -> float | None:
    if not ok(body):
        return None
    for m in body:
        if m.get("id") == key:
            try:
                return float(m["value"])
            except (KeyError, ValueError):
                return None
    return None


def _ratio_snapshots(samples: list[dict]) -> list[dict]:
    """Distinct metric snapshots, in time order. The REST metric store is refreshed only every
    `metrics.fetcher.update-interval` (10 s), so consecutive polls often repeat one snapshot;
    each snapshot counts once."""
    out: list[dict] = []
    for s in sorted(samples, key=lambda s: s["t"]):
        snap = {k: _metric(s["body"], m) for k, m in RATIO_METRICS.items()}
        if all(v is None for v in snap.values()):
            continue
        if not out or out[-1] != snap:
            out.append(snap)
    return out


def load_real(run_dir: Path, seconds: int) -> dict:
    job = json.loads((run_dir / "job.json").read_text())
    names = {v["id"]: v["name"] for v in job["vertices"]}
    parallelism = {v["name"]: v["parallelism"] for v in job["vertices"]}
    cps_body = json.loads((run_dir / "checkpoints.json").read_text())
    cps = []
    for f in sorted(run_dir.glob("details-*.json"), key=lambda p: int(p.stem.split("-")[1])):
        d = json.loads(f.read_text())
        cid = d["id"]
        # Flink keys `tasks` by job vertex id; the simulator by vertex name.
        tasks = {names.get(vid, vid): t for vid, t in d.get("tasks", {}).items()}
        subtasks = {}
        for vid in names:
            p = run_dir / f"subtasks-{cid}-{vid}.json"
            if p.exists():
                body = json.loads(p.read_text())
                if ok(body):
                    subtasks[names[vid]] = body
        cps.append(_cp_obs(d, tasks, subtasks))
    # Ratios: the last metric snapshot of the run, fetched afresh at its end (`poll`), per
    # subtask.
    samples = json.loads((run_dir / "samples-metrics.json").read_text())
    ratios: dict[str, list[dict]] = {}
    for vid, name in names.items():
        rows = []
        for i in range(parallelism[name]):
            mine = [s for s in samples if s["vertex"] == vid and s["subtask"] == i
                    and s["t"] >= seconds / 2]
            # The last snapshot: the gauges at the run's end, where the simulator reads its own.
            snaps = _ratio_snapshots(mine)[-1:]
            row = {"subtask": i}
            for k in RATIO_METRICS:
                vals = [sn[k] for sn in snaps if sn[k] is not None]
                row[k] = statistics.median(vals) if vals else None
            # Debloater gauges: the last value polled.
            for k, m in DEBLOAT_METRICS.items():
                vals = [v for s in sorted(mine, key=lambda s: s["t"])
                        if (v := _raw_metric(s["body"], m)) is not None]
                row[k] = vals[-1] if vals else None
            rows.append(row)
        ratios[name] = rows
    ts = job.get("timestamps", {})
    running_at = ts.get("RUNNING") or None
    # All subtasks RUNNING: the latest RUNNING timestamp over every subtask of every vertex.
    all_running = None
    for vid in names:
        p = run_dir / f"subtasktimes-initial-{vid}.json"
        if not p.exists():
            p = run_dir / f"subtasktimes-{vid}.json"
        if p.exists():
            body = json.loads(p.read_text())
            for s in body.get("subtasks", []) if ok(body) else []:
                r = s.get("timestamps", {}).get("RUNNING")
                if r:
                    all_running = max(all_running or 0, r)
    first_trigger = min((c["trigger"] for c in cps), default=None)
    counts = cps_body.get("counts", {})
    restored = (cps_body.get("latest") or {}).get("restored") or {}
    failure_ts = None
    exc = run_dir / "exceptions.json"
    if exc.exists():
        body = json.loads(exc.read_text())
        entries = (body.get("exceptionHistory") or {}).get("entries", []) if ok(body) else []
        failure_ts = min((e["timestamp"] for e in entries if e.get("timestamp")), default=None)
    return {
        "restored_id": restored.get("id"),
        **recovery(cps, restored.get("restore_timestamp"), failure_ts,
                   failure_ts - job["start-time"] if failure_ts else None),
        "source": str(run_dir),
        "vertices": parallelism,
        "checkpoints": cps,
        "counts": counts,
        "ratios": ratios,
        "submit_to_running": (all_running - job["start-time"]) if all_running else None,
        "first_trigger_after_running": (first_trigger - all_running)
        if (first_trigger and all_running) else None,
        "job_running_ts": running_at,
    }


def recovery(cps: list[dict], restore_ts, failure_ts, failure_after_start) -> dict:
    """Failover figures: failure -> restore, restore -> next checkpoint trigger."""
    after = [c["trigger"] for c in cps if restore_ts is not None and c["trigger"] >= restore_ts]
    return {
        "failure_after_start": failure_after_start,
        "restore_after_failure": (restore_ts - failure_ts)
        if (restore_ts is not None and failure_ts is not None) else None,
        "trigger_after_restore": (min(after) - restore_ts) if after else None,
    }


def fault_time_ms(fail: list[str]) -> int | None:
    """`op#n@12s` -> 12000 (the first --fail of a scenario)."""
    for f in fail:
        m = re.search(r"@(\d+(?:\.\d+)?)\s*(ms|s|min)?$", f)
        if m:
            scale = {"ms": 1, "s": 1000, "min": 60000, None: 1000}[m.group(2)]
            return int(float(m.group(1)) * scale)
    return None


def load_sim(report: dict, fail_at_ms: int | None = None) -> dict:
    # Like Flink's, the simulator's maps are keyed by JobVertexID; `job.vertices` names them.
    names = {v["id"]: v["name"] for v in report["job"]["vertices"]}
    cps = []
    for cid, d in sorted(report["details"].items(), key=lambda kv: int(kv[0])):
        tasks = {names.get(vid, vid): t for vid, t in d.get("tasks", {}).items()}
        subtasks = {names.get(vid, vid): b for vid, b in report["subtasks"].get(cid, {}).items()}
        cps.append(_cp_obs(d, tasks, subtasks))
    ratios = {}
    vertices = {}
    for vid, bp in report["backpressure"].items():
        name = names.get(vid, vid)
        vertices[name] = len(bp["subtasks"])
        metrics = report.get("metrics", {}).get(vid, [])
        ratios[name] = [{"subtask": s["subtask"], "busy": s["busyRatio"],
                         "backpressure": s["ratio"], "idle": s["idleRatio"],
                         **{k: _raw_metric(metrics[i], m) if i < len(metrics) else None
                            for k, m in DEBLOAT_METRICS.items()}}
                        for i, s in enumerate(bp["subtasks"])]
    first_trigger = min((c["trigger"] for c in cps), default=None)
    restored = (report["checkpoints"].get("latest") or {}).get("restored") or {}
    # When the first deployment's tasks were RUNNING (run with --start-time 0, so every time is
    # simulated milliseconds).
    running = report["job"].get("first-tasks-running")
    return {
        "restored_id": restored.get("id"),
        # Simulated time 0 is the job's start; the fault fires at its scripted time.
        **recovery(cps, restored.get("restore_timestamp"), fail_at_ms, fail_at_ms),
        "source": "simulator",
        "vertices": vertices,
        "checkpoints": cps,
        "counts": report["checkpoints"]["counts"],
        "ratios": ratios,
        "submit_to_running": None,
        "first_trigger_after_running": (first_trigger - running)
        if (first_trigger is not None and running is not None) else first_trigger,
    }


# --------------------------------------------------------------------------------------------
# Measures
# --------------------------------------------------------------------------------------------


@dataclass
class Row:
    measure: str  # key into TOLERANCES
    label: str
    unit: str
    real_runs: list[list[float]]  # values per real run
    sim_runs: list[list[float]]  # values per simulator seed
    real_set: list[str] | None = None
    sim_set: list[str] | None = None
    scenario: str = ""
    # The simulator's values at the engine's default latencies, when the machine calibration
    # scaled them (see `bracketed`); None otherwise.
    base: list[float] | None = None

    @property
    def real(self) -> list[float]:
        return [v for r in self.real_runs for v in r]

    @property
    def sim(self) -> list[float]:
        return [v for r in self.sim_runs for v in r]


def completed(obs: dict) -> list[dict]:
    return [c for c in obs["checkpoints"] if c["status"] == "COMPLETED"]


def steady(obs: dict) -> list[dict]:
    """Completed checkpoints except checkpoint 1 (reported on its own rows)."""
    return [c for c in completed(obs) if c["id"] != 1]


def extract_rows(reals: list[dict], sims: list[dict]) -> list[Row]:
    rows: list[Row] = []
    # The simulator's jobs start at once, Flink's after a cold start: in the same time a
    # simulated run may complete one checkpoint more, and with growing state that last one is
    # the largest. Per-checkpoint measures compare the checkpoint ids every real run reached.
    last_real = min((max((c["id"] for c in completed(o)), default=0) for o in reals),
                    default=0)
    if last_real:
        sims = [dict(o, checkpoints=[c for c in o["checkpoints"] if c["id"] <= last_real])
                for o in sims]

    def add(measure, label, unit, fn):
        rows.append(Row(measure, label, unit, [fn(o) for o in reals], [fn(o) for o in sims]))

    add("end_to_end_duration", "end-to-end duration (cp ≥ 2)", "ms",
        lambda o: [c["end_to_end_duration"] for c in steady(o)])
    add("end_to_end_duration_cp1", "end-to-end duration, cp 1", "ms",
        lambda o: [c["end_to_end_duration"] for c in completed(o) if c["id"] == 1])
    add("checkpointed_size", "checkpointed size (cp ≥ 2)", "B",
        lambda o: [c["checkpointed_size"] for c in steady(o)])
    add("state_size", "state size (cp ≥ 2)", "B", lambda o: [c["state_size"] for c in steady(o)])
    add("persisted_data", "persisted data (cp ≥ 2)", "B",
        lambda o: [c["persisted_data"] for c in steady(o)])
    add("persisted_data_cp1", "persisted data, cp 1", "B",
        lambda o: [c["persisted_data"] for c in completed(o) if c["id"] == 1])
    add("processed_data", "processed data (cp ≥ 2)", "B",
        lambda o: [c["processed_data"] for c in steady(o)])

    names = []
    for o in reals + sims:
        for n in o["vertices"]:
            if n not in names:
                names.append(n)
    for name in names:
        sv = short_vertex(name)

        def per_vertex(key, o, name=name):
            return [s[key] for c in steady(o) if name in c["vertices"]
                    for s in c["vertices"][name]["subtasks"]]

        def per_subtask(key, i, o, name=name):
            return [s[key] for c in steady(o) if name in c["vertices"]
                    for s in c["vertices"][name]["subtasks"] if s["index"] == i]

        n_sub = max([o["vertices"].get(name, 0) for o in reals + sims] or [0])
        inflight = any(c["vertices"][name]["persisted"] > 0 for o in reals for c in steady(o)
                       if name in c["vertices"])
        add("vertex_checkpointed_size_inflight" if inflight else "vertex_checkpointed_size",
            f"checkpointed size · {sv}", "B",
            lambda o, name=name: [c["vertices"][name]["checkpointed_size"] for c in steady(o)
                                  if name in c["vertices"]])
        # Skewed keys (7 / 9 of 16 on two subtasks) make subtasks differ by seconds under
        # backpressure: these go per subtask, async too (with a shared channel-state file one
        # subtask may wait for another's barriers). Sync is pooled per vertex.
        for key, measure, label, unit in [
            ("start_delay", "start_delay", "start delay", "ms"),
            ("alignment", "alignment", "alignment", "ms"),
            ("async", "async", "async", "ms"),
            ("ack_after_trigger", "ack_after_trigger", "ack − trigger", "ms"),
            ("persisted", "subtask_persisted", "persisted data", "B"),
            ("processed", "subtask_processed", "processed data", "B"),
        ]:
            for i in range(n_sub):
                add(measure, f"{label} · {sv}#{i}", unit,
                    lambda o, key=key, i=i: per_subtask(key, i, o))
        add("sync", f"sync · {sv}", "ms", lambda o: per_vertex("sync", o))
        for i in range(n_sub):
            for key, measure, label in [("busy", "busy_ratio", "busy"),
                                        ("backpressure", "backpressure_ratio", "backpressured"),
                                        ("idle", "idle_ratio", "idle")]:
                def rf(o, name=name, i=i, key=key):
                    rs = o["ratios"].get(name, [])
                    v = rs[i][key] if i < len(rs) else None
                    return [] if v is None else [v]
                add(measure, f"{label} ratio · {sv}#{i}", "ratio", rf)
            for key, measure, label, unit in [
                    ("buffer_size", "debloated_buffer_size", "debloated buffer size", "B"),
                    ("time_to_consume", "debloat_time_to_consume", "estimated time to consume",
                     "ms")]:
                def mf(o, name=name, i=i, key=key):
                    rs = o["ratios"].get(name, [])
                    v = rs[i].get(key) if i < len(rs) else None
                    return [] if v is None else [v]
                if any(mf(o) for o in reals + sims):
                    add(measure, f"{label} · {sv}#{i}", unit, mf)

    def bp_set(o):
        out = []
        for name, rs in o["ratios"].items():
            for r in rs:
                if r["backpressure"] is not None and r["backpressure"] > BACKPRESSURED:
                    out.append(f"{short_vertex(name)}#{r['subtask']}")
        return sorted(out)

    row = Row("backpressured_subtasks", "backpressured subtasks (> 10 %)", "set", [], [])
    row.real_set = [", ".join(bp_set(o)) or "none" for o in reals]
    row.sim_set = [", ".join(bp_set(o)) or "none" for o in sims]
    rows.append(row)

    add("completed", "completed checkpoints", "", lambda o: [o["counts"].get("completed", 0)])
    add("failed", "failed checkpoints", "", lambda o: [o["counts"].get("failed", 0)])
    add("restored", "restored", "", lambda o: [o["counts"].get("restored", 0)])
    add("restored_id", "restored from checkpoint", "",
        lambda o: [] if o["restored_id"] is None else [o["restored_id"]])
    for key, label in [("failure_after_start", "failure, after job start"),
                       ("restore_after_failure", "failure → restore"),
                       ("trigger_after_restore", "restore → next checkpoint trigger")]:
        add(key, label, "ms", lambda o, key=key: [] if o.get(key) is None else [o[key]])
    add("first_trigger_after_running", "first trigger after tasks RUNNING", "ms",
        lambda o: [] if o["first_trigger_after_running"] is None else [o["first_trigger_after_running"]])
    add("submit_to_running", "job submission → all tasks RUNNING", "ms",
        lambda o: [] if o["submit_to_running"] is None else [o["submit_to_running"]])
    return rows


# --------------------------------------------------------------------------------------------
# Machine calibration. The simulator's latency knobs (`barrierlab.*`, config_keys.rs) are Flink's
# thread hand-offs, RPCs and storage writes as measured on one machine; on a slower (shared,
# throttled) machine every millisecond-scale figure of real Flink grows with them. The reference
# scenario (no backpressure: its acknowledgement delay is those latencies and nothing else) gives
# the factor: real median ack − trigger over simulated, bounded. Every later scenario's simulator
# runs with its latencies scaled by it; the factor is printed with the results.
# --------------------------------------------------------------------------------------------

CALIBRATION_SCENARIO = "seed-demo"
# The engine's defaults in µs (crates/engine/src/scenario/config_keys.rs).
LATENCY_DEFAULTS_US = {
    "barrierlab.trigger-latency": 2000,
    "barrierlab.trigger-dispatch": 1000,
    "barrierlab.ack-latency": 3000,
    "barrierlab.thread-jitter": 3000,
    "barrierlab.rpc-latency": 1000,
    "barrierlab.storage.write-latency": 3000,
    "barrierlab.warm-up.trigger": 27000,
    "barrierlab.warm-up.sync": 11000,
    "barrierlab.warm-up.async": 12000,
    "barrierlab.warm-up.keyed-sync": 5000,
    "barrierlab.warm-up.keyed-async": 8000,
}
SPEED_BOUNDS = (0.5, 3.0)
# Beyond the bound, the machine is too slow to judge millisecond-scale durations: the clamped
# factor no longer covers Flink's thread hand-offs, and phases the latencies do not model grow
# too (seen here: start delays of 50-90 ms where Flink usually takes 5, a factor of 10; at a
# factor just over 3, a keyed subtask's sync phase of 3.5 ms against the simulator's 0). Those rows
# are then reported as "not judged" instead of failing; sizes, counts, ratios and long
# durations are judged as always. The simulator cannot hide behind this: its own reference
# figure (seed-demo's ack - trigger, ~10 ms) is pinned natively by
# crates/engine/tests/fidelity.rs, so a too-slow verdict always means the real side was slow.
FRAMEWORK_DURATIONS = {"end_to_end_duration", "end_to_end_duration_cp1", "ack_after_trigger",
                       "start_delay", "alignment", "sync", "async"}
# Phases the simulator costs mostly in CPU constants (see `bracketed`).
CPU_PHASES = {"sync", "async"}
# The unbounded factor, once the reference scenario found the machine too slow (else None).
too_slow: list[float | None] = [None]
# The factor the simulator's latencies run at (1 until the reference scenario calibrated it).
machine_factor: list[float] = [1.0]


def bracketed(row: Row, rule: Rule, r: float) -> str | None:
    """On a calibrated, slower machine: whether a short framework duration is still explained.

    The reference scenario measures how much one path (seed-demo's trigger-to-ack) slowed down;
    others slow down by less or more (a source's ack barely moved on a CI machine at x2.4, a heap
    snapshot's async phase grew x5). So the real figure passes when it lies between the simulated
    figures at the engine's default latencies and at the calibrated ones, or within the rule of
    either with the absolute slack (the thread hand-off noise) scaled by the same factor. A
    simulator that is 2x off at both ends, or off by more than the scaled slack, still fails.

    A checkpoint's sync and async phases are mostly the engine's CPU constants (copying and
    serializing entries and key groups), which the latency knobs do not reach, while the
    machine slows Flink's CPU work as much as its hand-offs: for those phases the top of the
    bracket is the simulator at ×1 times the factor (stop 47's CI at ×1.52: a heap snapshot's
    async 7 ms against the simulator's 2 ms at both ×1 and ×1.52, 4-8 ms over six runs).
    Returns the note for the verdict, or None."""
    f = machine_factor[0]
    if f <= 1.0 or row.measure not in FRAMEWORK_DURATIONS or not row.sim:
        return None
    s = statistics.median(row.sim)
    b = statistics.median(row.base) if row.base else s
    top = max(b, s, b * f) if row.measure in CPU_PHASES else max(b, s)
    scaled = Rule(abs=rule.abs * f, ratio=rule.ratio)
    if min(b, s) <= r <= top:
        return f"machine ×{f:.2f}: between the simulator at ×1 ({fmt_value(b, row.unit)}) and ×{f:.2f}"
    if scaled.check(r, s) or scaled.check(r, b) or scaled.check(r, top):
        return f"machine ×{f:.2f}: within ±{fmt_value(scaled.abs, row.unit)}"
    return None


def machine_speed(reals: list[dict], sims: list[dict]) -> float | None:
    """Real over simulated median ack − trigger of the reference scenario."""
    real, sim = [], []
    for row in extract_rows(reals, sims):
        if row.measure == "ack_after_trigger":
            real += row.real
            sim += row.sim
    if not real or not sim or statistics.median(sim) <= 0:
        return None
    return statistics.median(real) / statistics.median(sim)


def calibration_sets(speed: float) -> list[str]:
    if abs(speed - 1.0) < 1e-9:
        return []
    out = []
    for key, us in LATENCY_DEFAULTS_US.items():
        out += ["--set", f"{key}={round(us * speed)}us"]
    return out


# The job's start, measured in each real run's log and given to the simulator as input (never
# judged): how long a source operator exists before its task is RUNNING (its rate limiter stores
# permits meanwhile) and how long the first task is RUNNING before the last. Both are the JVM's
# class loading and state backend set-up, 59-144 ms and 3-460 ms over the harness's runs; they
# set how much the sources queue before checkpoint 1 (seed-backpressure's checkpoint 1 took
# 458-1551 ms over 14 runs, tracking the first).
STARTUP_LOG_TS = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3})")


def startup_of(log: Path) -> tuple[float, float] | None:
    """(source operator created → its task RUNNING, first task RUNNING → last) in ms, from one
    run's log, over the first deployment (the lines before the first trigger)."""
    def ms(line: str) -> float | None:
        m = STARTUP_LOG_TS.match(line)
        if not m:
            return None
        t = datetime.datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S,%f")
        return t.timestamp() * 1000
    created, sources, running = [], [], []
    for line in log.read_text(errors="replace").splitlines():
        if "Triggering checkpoint" in line:
            break
        t = ms(line)
        if t is None:
            continue
        if "SourceOperator initialized" in line:
            created.append(t)
        elif "taskmanager.Task" in line and "INITIALIZING to RUNNING" in line:
            running.append(t)
            if "Source: " in line:
                sources.append(t)
    n = min(len(created), len(sources))
    if n == 0 or len(running) < 2:
        return None
    leads = [b - a for a, b in zip(sorted(created)[:n], sorted(sources)[:n])]
    return statistics.median(leads), max(running) - min(running)


def startup_sets(run_dirs: list[Path]) -> list[str]:
    measured = [m for d in run_dirs if (d / "flink.log").exists()
                and (m := startup_of(d / "flink.log"))]
    if not measured:
        return []
    lead = statistics.median(m[0] for m in measured)
    spread = statistics.median(m[1] for m in measured)
    return ["--set", f"barrierlab.source-open-lead={round(lead * 1000)}us",
            "--set", f"barrierlab.task-running-spread={round(spread * 1000)}us"]


@dataclass
class Verdict:
    text: str  # ok / FAIL / info / –
    failed: bool
    noise_note: str = ""


def judge(row: Row) -> Verdict:
    rule = rule_of(row)
    gap = (KNOWN_GAPS.get(f"{row.scenario}:{row.label}")
           or KNOWN_GAPS.get(f"{row.scenario}:{row.measure}") or KNOWN_GAPS.get(row.measure))
    if rule.exact_set:
        if not row.real_set or not row.sim_set:
            return Verdict("–", False)
        real_sets, sim_sets = set(row.real_set), set(row.sim_set)
        if len(real_sets) > 1:
            # Flink itself disagrees between runs: the simulator must match one of them.
            good = sim_sets <= real_sets
        else:
            good = sim_sets == real_sets
        note = "runs differ" if len(real_sets) > 1 else ""
        if not good and gap:
            return Verdict("known gap", False, note)
        return Verdict("ok" if good else "FAIL", not good, note)
    real, sim = row.real, row.sim
    if rule.info:
        return Verdict("info", False)
    if not real and not sim:
        return Verdict("–", False)
    if not real or not sim:
        return Verdict("FAIL", True, "missing in " + ("real" if not real else "sim"))
    r, s = statistics.median(real), statistics.median(sim)
    good = rule.check(r, s)
    if not good and gap:
        return Verdict("known gap", False)
    note = ""
    run_meds = [statistics.median(v) for v in row.real_runs if v]
    if len(run_meds) > 1:
        lo, hi = rule.band(r)
        if min(run_meds) < lo or max(run_meds) > hi:
            note = "< noise"
    # Flink disagrees with itself beyond the rule: the simulator passes when it is within the
    # rule of one real run's median, as close as the real runs are to each other (never wider
    # than the rule around a real figure, so a 2x error still fails).
    if not good and note and any(rule.check(m, s) for m in run_meds):
        return Verdict("ok", False, "< noise: within the rule of one run")
    if not good and rule.iqr and len(real) >= 8:
        q1, _, q3 = statistics.quantiles(real, n=4)
        if q1 <= s <= q3:
            return Verdict("ok", False, f"in real's interquartile range "
                                        f"{fmt_value(q1, row.unit)}–{fmt_value(q3, row.unit)}")
    # The simulated median is a sample too: 8 seeds of a value spread evenly over a buffer
    # (0-32 KiB) put it anywhere within ±4 KiB. So the real median inside the simulated values'
    # interquartile range passes as well (both central halves hold the other's median).
    if not good and rule.iqr and len(sim) >= 8:
        q1, _, q3 = statistics.quantiles(sim, n=4)
        if q1 <= r <= q3:
            return Verdict("ok", False, f"real inside the simulated interquartile range "
                                        f"{fmt_value(q1, row.unit)}–{fmt_value(q3, row.unit)}")
    short = rule.long_from is None or r < rule.long_from
    if not good and too_slow[0] and row.measure in FRAMEWORK_DURATIONS and short:
        return Verdict("not judged", False, f"machine ×{too_slow[0]:.1f} slow")
    if not good and short and (why := bracketed(row, rule, r)):
        return Verdict("ok", False, why)
    return Verdict("ok" if good else "FAIL", not good, note)


def judged(reals: list[dict], sims: list[dict], scenario: str,
           base: list[dict] | None = None) -> list[list[str]]:
    if not reals:
        return []
    rows = extract_rows(reals, sims)
    base_rows = {(b.measure, b.label): b.sim for b in extract_rows(reals, base)} if base else {}
    for row in rows:
        row.scenario = scenario
        row.base = base_rows.get((row.measure, row.label))
    return table_rows(rows)


def table_rows(rows: list[Row]) -> list[list[str]]:
    out = []
    for row in rows:
        rule = rule_of(row)
        v = judge(row)
        if row.unit == "set":
            real_txt = " / ".join(row.real_set or ["–"])
            sim_txt = " / ".join(sorted(set(row.sim_set or ["–"])))
            ratio = ""
        else:
            if not row.real and not row.sim:
                continue
            real_txt = fmt_stats(row.real, row.unit)
            run_meds = [statistics.median(r) for r in row.real_runs if r]
            if len(run_meds) > 1:
                real_txt += " (runs " + ", ".join(fmt_value(m, row.unit) for m in run_meds) + ")"
            sim_txt = fmt_stats(row.sim, row.unit)
            ratio = ""
            if row.real and row.sim:
                r, s = statistics.median(row.real), statistics.median(row.sim)
                ratio = f"{s / r:.2f}" if r else ("1.00" if s == 0 else "∞")
        tol = rule.describe(row.unit)
        if v.noise_note:
            tol += f" ({v.noise_note})"
        out.append([row.label, real_txt, sim_txt, ratio, tol, v.text])
    return out


HEADERS = ["measure", "real Flink: median [min–max]", "simulated", "sim/real", "tolerance",
           "verdict"]


def render_text(title: str, rows: list[list[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
              for i, h in enumerate(HEADERS)]
    line = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()  # noqa: E731
    out = [title, line(HEADERS), line(["-" * w for w in widths])]
    out += [line(r) for r in rows]
    return "\n".join(out)


def render_md(rows: list[list[str]]) -> str:
    esc = lambda s: s.replace("|", "\\|")  # noqa: E731
    out = ["| " + " | ".join(HEADERS) + " |", "|" + "---|" * len(HEADERS)]
    for r in rows:
        cells = [esc(c) for c in r]
        if r[-1] == "FAIL":
            cells[-1] = "**FAIL**"
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


# --------------------------------------------------------------------------------------------
# --dump: every saved real run, per checkpoint and per subtask (for calibrating the engine)
# --------------------------------------------------------------------------------------------


def dump_run(run_dir: Path, seconds: int) -> str:
    o = load_real(run_dir, seconds)
    meta = json.loads((run_dir / "meta.json").read_text()) if (run_dir / "meta.json").exists() else {}
    job = json.loads((run_dir / "job.json").read_text())
    c = o["counts"]
    out = [f"#### {run_dir.parent.name} / {run_dir.name} (job {meta.get('job', '?')})", ""]
    out.append(f"- job submission (job start-time) → all subtasks RUNNING: {o['submit_to_running']} ms; "
               f"first trigger {o['first_trigger_after_running']} ms after that")
    out.append(f"- counts: completed {c.get('completed')}, failed {c.get('failed')}, "
               f"restored {c.get('restored')}, total {c.get('total')}")
    failed = [x for x in o["checkpoints"] if x["status"] == "FAILED"]
    for x in failed:
        out.append(f"- checkpoint {x['id']} FAILED: {x['failure_message']}")
    log = run_dir / "flink.log"
    if log.exists():
        for line in log.read_text(errors="replace").splitlines():
            if meta.get("job", "?") not in line and "Declin" not in line:
                continue
            if "Failed to trigger checkpoint" in line or "Declin" in line:
                out.append(f"- log: `{line.strip()[:300]}`")
    out += ["", "| cp | type | trigger − all RUNNING (ms) | e2e (ms) | checkpointed (B) | state (B) | "
            "persisted (B) | processed (B) |", "|---|---|---|---|---|---|---|---|"]
    running = (o["submit_to_running"] or 0) + job["start-time"] if o["submit_to_running"] else None
    for x in o["checkpoints"]:
        rel = x["trigger"] - running if running else "?"
        out.append(f"| {x['id']} | {x['type']} {x['status'].lower()} | {rel} | {x['end_to_end_duration']} | "
                   f"{x['checkpointed_size']} | {x['state_size']} | {x['persisted_data']} | "
                   f"{x['processed_data']} |")
    out += ["", "| cp | vertex#subtask | start delay | alignment | sync | async | persisted (B) | "
            "processed (B) | ack − trigger | checkpointed (B) | unaligned |",
            "|---|---|---|---|---|---|---|---|---|---|---|"]
    for x in o["checkpoints"]:
        for name, v in x["vertices"].items():
            for st in v["subtasks"]:
                out.append(f"| {x['id']} | {short_vertex(name)}#{st['index']} | {st['start_delay']} | "
                           f"{st['alignment']} | {st['sync']} | {st['async']} | {st['persisted']} | "
                           f"{st['processed']} | {st['ack_after_trigger']} | {st['checkpointed_size']} | "
                           f"{st['unaligned']} |")
    out += ["", "| vertex#subtask | busy | backpressured | idle (last metric snapshot) |",
            "|---|---|---|---|"]
    for name, rs in o["ratios"].items():
        for r in rs:
            f = lambda v: "–" if v is None else f"{v:.3f}"  # noqa: E731
            out.append(f"| {short_vertex(name)}#{r['subtask']} | {f(r['busy'])} | "
                       f"{f(r['backpressure'])} | {f(r['idle'])} |")
    return "\n".join(out)


# --------------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------------


def flink_lib() -> Path | None:
    """$FLINK_LIB, else the jars of apache-flink-libraries in /opt/flink-venv."""
    if os.environ.get("FLINK_LIB"):
        p = Path(os.environ["FLINK_LIB"])
        return p if (p / f"flink-dist-{FLINK_VERSION}.jar").exists() else None
    for p in sorted(Path("/opt/flink-venv/lib").glob("python3*/site-packages/pyflink/lib")):
        if (p / f"flink-dist-{FLINK_VERSION}.jar").exists():
            return p
    return None


def self_test() -> int:
    """The judging rules on figures from real CI runs (see `bracketed`): what must pass, what must
    still fail. Run by .ci/test before the harness itself."""
    def row(measure, real_runs, sim, base=None):
        r = Row(measure, measure, "ms" if measure in FRAMEWORK_DURATIONS else "B",
                real_runs, [[v] for v in sim])
        r.base = base
        return r

    def scoped(scenario, r):
        r.scenario = scenario
        return r
    cases = [
        # (what, factor, row, expected verdict)
        ("heap async at x2.4 (stop 24's CI)", 2.4,
         row("async", [[9], [17], [14], [9], [8], [8]], [3, 3, 3], [1, 1, 1]), "ok"),
        ("heap async at x1.52 (stop 47's CI)", 1.52,
         row("async", [[8, 12, 7], [6, 7, 5], [4, 1, 7], [7, 9, 6], [6, 8, 5], [8, 11, 7]],
             [2, 2, 2], [2, 2, 2]), "ok"),
        ("heap async 4x the simulator scaled to x1.52", 1.52,
         row("async", [[12], [14], [11], [13], [12], [12]], [2, 2, 2], [2, 2, 2]), "FAIL"),
        ("source async at x2.4", 2.4,
         row("async", [[1], [1], [1], [1], [1], [0]], [4.5, 4.5], [1, 1]), "ok"),
        ("source ack - trigger at x2.4", 2.4,
         row("ack_after_trigger", [[9], [13], [14], [10], [11], [15]], [26, 26], [10, 10]), "ok"),
        ("the same at the engine's defaults (no calibration)", 1.0,
         row("ack_after_trigger", [[9], [13], [14], [10], [11], [15]], [26, 26]), "FAIL"),
        ("a simulator 3x too slow at both ends", 2.4,
         row("ack_after_trigger", [[9], [13], [14], [10], [11], [15]], [80, 80], [36, 36]),
         "FAIL"),
        ("a simulator without the async phase", 2.4,
         row("async", [[19], [27], [24], [19], [18], [18]], [0, 0], [0, 0]), "FAIL"),
        ("debloated size at the edge of the hysteresis", 1.0,
         row("debloated_buffer_size", [[8.2 * KIB], [8.3 * KIB], [8.4 * KIB]], [10.6 * KIB]),
         "ok"),
        ("debloated size past it", 1.0,
         row("debloated_buffer_size", [[8.2 * KIB], [8.3 * KIB], [8.4 * KIB]], [12 * KIB]),
         "FAIL"),
        ("forst's checkpointed size x1.18 (its compactions' spread)", 1.0,
         scoped("forst", row("checkpointed_size", [[4095 * KIB], [3618 * KIB]], [4698 * KIB])),
         "ok"),
        ("forst's checkpointed size x2", 1.0,
         scoped("forst", row("checkpointed_size", [[4095 * KIB], [3618 * KIB]], [7900 * KIB])),
         "FAIL"),
        ("heap state size x1.18 (deterministic: x[0.9, 1.1])", 1.0,
         scoped("large-state", row("state_size", [[4095 * KIB], [3618 * KIB]], [4698 * KIB])),
         "FAIL"),
    ]
    failed = 0
    for what, factor, r, want in cases:
        machine_factor[0] = factor
        got = judge(r)
        ok = got.text == want
        failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {what}: {got.text} {got.noise_note}".rstrip())
    machine_factor[0] = 1.0
    failed += poll_self_test()
    print(f"harness self-test: {len(cases) + 1 - failed} passed, {failed} failed")
    return 1 if failed else 0


def poll_self_test() -> int:
    """`poll` against a model of Flink's MetricFetcher, over phases of its 10 s fetches: the
    ratios read last must come from a fetch at the run's end. 1 when one does not."""
    class Flink:
        def __init__(self, t: float, cost: float):
            self.t, self.cost, self.last, self.fetches = t, cost, None, []

        def request(self) -> float | None:
            # MetricFetcherImpl.update: a request answers from the fetches that are in (50 ms
            # each), and starts one when the last is more than 10 s old.
            self.t += self.cost
            answer = max((f for f in self.fetches if f + 0.05 <= self.t), default=None)
            if self.last is None or self.t - self.last > 10.0:
                self.last = self.t
                self.fetches.append(self.t)
            return answer

    class Col:
        def __init__(self, flink: Flink):
            self.flink, self.initial_times, self.read = flink, False, None

        def job_info(self):
            self.flink.request()
            self.initial_times = self.flink.t > 2.0

        def checkpoints(self):
            self.flink.t += self.flink.cost

        def ratios(self):
            self.read = [self.flink.request() for _ in range(6)][-1]

    stale = []
    for seconds in (22, 32):
        for start in range(10):
            for cost in (0.001, 0.02, 0.09):
                flink = Flink(start / 10, cost)
                col = Col(flink)
                at = poll(col, seconds, lambda: flink.t, lambda d: setattr(flink, "t", flink.t + d),
                          lambda el: None)
                # `at` is the end of the run: the final fetch must be no older.
                if col.read is None or col.read < at:
                    stale.append(f"{seconds} s, start {start / 10} s, {cost * 1000:g} ms a "
                                 f"request: read the fetch at {col.read} s")
    print(f"{'FAIL' if stale else 'ok  '} the last ratios are fetched at the run's end"
          + (": " + "; ".join(stale[:3]) if stale else ""))
    return 1 if stale else 0


def nproc() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


def main() -> int:
    derive_check.h = sys.modules[__name__]
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scenarios", help="comma-separated scenario names (default: all)")
    ap.add_argument("--runs", type=int, default=None, help="real runs per scenario (default 2)")
    ap.add_argument("--seconds", type=int, default=None,
                    help="seconds of each run, from job submission (default 32; --quick: 22)")
    ap.add_argument("--quick", action="store_true",
                    help="the CI subset: the quick scenarios, 3 runs of 22 s each")
    ap.add_argument("--sim-seeds", type=int, default=None,  # default: max(runs, 16)
                    help="simulator seeds per scenario, 1..N (default: --runs, at least 16)")
    ap.add_argument("--from-saved", action="store_true",
                    help="do not run Flink; compare the runs saved under --out")
    ap.add_argument("--out", type=Path, default=OUT_DEFAULT, help="where raw runs are saved")
    ap.add_argument("--job-dir", type=Path,
                    help="development: use DIR/<scenario>/run.sh instead of barrierlab export")
    ap.add_argument("--barrierlab", help="barrierlab binary (default: build and use target/release)")
    ap.add_argument("--no-build", action="store_true", help="do not cargo build the CLI")
    ap.add_argument("--markdown", type=Path, help="also write the tables as Markdown here")
    ap.add_argument("--update-docs", action="store_true",
                    help=f"rewrite {DOC.relative_to(REPO)} between {DOC_BEGIN} and {DOC_END}")
    ap.add_argument("--no-retry", dest="retry", action="store_false",
                    help="do not take a second round of real runs when a scenario fails")
    ap.add_argument("--report-only", action="store_true", help="print, but exit 0 on FAIL")
    ap.add_argument("--start-timeout", type=float, default=180,
                    help="seconds to wait for the BARRIERLAB-JOB line (javac + JVM start)")
    ap.add_argument("--list", action="store_true", help="list the scenarios and exit")
    ap.add_argument("--derive", action="store_true",
                    help="with --collect: derive a scenario from each of a scenario's bundles, "
                         "simulate them and judge them against the bundles' checkpoints, one "
                         "bundle as one real run (CI passes it)")
    ap.add_argument("--self-test", action="store_true",
                    help="check the judging rules on recorded figures, exit")
    ap.add_argument("--dump", action="store_true",
                    help="print every saved real run per checkpoint and subtask (Markdown), exit")
    ap.add_argument("--collect", action="store_true",
                    help="after each real run, `barrierlab collect` the still-running job and "
                         "check the bundle with `collect --check` (CI passes it)")
    args = ap.parse_args()

    if args.self_test:
        return self_test()
    explicit_seconds = args.seconds is not None
    if args.seconds is None:
        args.seconds = 22 if args.quick else 32
    if args.list:
        for sc in SCENARIOS:
            print(f"{sc.name:28} {'quick ' if sc.quick else '      '}{sc.note}")
        return 0

    if args.dump:
        names = [s.strip() for s in args.scenarios.split(",")] if args.scenarios else \
            [s.name for s in SCENARIOS if not args.quick or s.quick]
        for name in names:
            runs_dirs = sorted((args.out / name).glob("run-*"), key=lambda p: int(p.name.split("-")[1]))
            for rd in runs_dirs:
                if (rd / "job.json").exists():
                    secs = args.seconds
                    if not explicit_seconds and (rd / "meta.json").exists():
                        secs = json.loads((rd / "meta.json").read_text()).get("seconds", secs)
                    print(dump_run(rd, secs) + "\n")
        return 0

    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGHUP, _on_signal)

    chosen = SCENARIOS
    if args.scenarios:
        wanted = [s.strip() for s in args.scenarios.split(",") if s.strip()]
        known = {s.name: s for s in SCENARIOS}
        bad = [w for w in wanted if w not in known]
        if bad:
            ap.error(f"unknown scenario(s) {', '.join(bad)}; known: {', '.join(known)}")
        chosen = [known[w] for w in wanted]
    elif args.quick:
        chosen = [s for s in SCENARIOS if s.quick]
    # The CI subset takes a third, short run: a steadier real median against Flink's noise.
    runs = args.runs if args.runs is not None else (3 if args.quick else 2)
    # Simulator runs are cheap: several seeds give the simulated side a stable median.
    # 16: at 8 the medians of values spread over a buffer or in two modes still wander (a
    # persisted-data row passed at 16 and 32 seeds and failed at 8).
    sim_seeds = args.sim_seeds or max(runs, 16)

    t_start = time.monotonic()
    # Latencies' scale for the simulator: 1 until the reference scenario has run (see
    # machine_speed); [text] of the calibration for the report.
    speed = 1.0
    calibration_note = [""]
    if not args.from_saved:
        lib = flink_lib()
        if lib is None:
            print("harness: no Flink 2.3.0 jars: set FLINK_LIB or run .ci/bootstrap "
                  "(/opt/flink-venv, apache-flink-libraries==2.3.0)", file=sys.stderr)
            return 2
        os.environ["FLINK_LIB"] = str(lib)
        if shutil.which("javac") is None:
            print("harness: javac not found (JDK 17 needed)", file=sys.stderr)
            return 2
    bl = barrierlab_bin(args)
    work = Path(tempfile.mkdtemp(prefix="barrierlab-harness-"))
    sections_text, sections_md = [], []
    any_fail = False
    all_rows: list[list[list[str]]] = []
    failed_rows: list[str] = []
    try:
        for sc in chosen:
            t_sc = time.monotonic()
            sc_out = args.out / sc.name
            sc_out.mkdir(parents=True, exist_ok=True)
            sargs = scenario_args(bl, sc, work)
            reals, errors = [], []
            seconds = args.seconds
            job_dir = None
            saved_meta = sc_out / "run-1" / "meta.json"

            def run_round(job_dir, first: int, count: int) -> None:
                for n in range(first, first + count):
                    if job_dir is None:
                        break
                    run_dir = sc_out / f"run-{n}"
                    print(f"[{sc.name}] real run {n}/{first + count - 1} ({seconds} s) ...",
                          flush=True)
                    try:
                        meta = real_run(job_dir, run_dir, seconds, n, args.start_timeout,
                                        export_cmd, bl if args.collect else None)
                        print(f"[{sc.name}]   job {meta['job']}: JOB line after "
                              f"{meta['launch_to_job_line_s']} s, run wall {meta['wall_s']} s",
                              flush=True)
                    except Exception as e:  # noqa: BLE001
                        errors.append(f"run {n}: {e}")
                        print(f"[{sc.name}]   run {n} failed: {e}", flush=True)

            def load_reals() -> list[dict]:
                out = []
                for run_dir in sorted(sc_out.glob("run-*"),
                                      key=lambda p: int(p.name.split("-")[1])):
                    if (run_dir / "job.json").exists():
                        try:
                            out.append(load_real(run_dir, seconds))
                        except Exception as e:  # noqa: BLE001
                            errors.append(f"{run_dir.name}: unreadable ({type(e).__name__}: {e})")
                return out
            if args.from_saved and not explicit_seconds and saved_meta.exists():
                # Compare with the simulator over the saved runs' length.
                seconds = json.loads(saved_meta.read_text()).get("seconds", seconds)
            if not args.from_saved:
                if args.job_dir:
                    job_dir = (args.job_dir / sc.name).resolve()
                    export_cmd = f"(prepared job dir {job_dir})"
                else:
                    job_dir = work / f"job-{sc.name}"
                    cmd = [bl, "export", *sargs, "--out", str(job_dir)]
                    export_cmd = shlex.join(["barrierlab", *cmd[1:]])
                    try:
                        run_cmd(cmd, timeout=300)
                    except Exception as e:  # noqa: BLE001
                        errors.append(f"export failed: {e}")
                        job_dir = None
                run_round(job_dir, 1, runs)
                # Stale runs from an earlier, longer --runs would mix in: drop them.
                for extra in sc_out.glob("run-*"):
                    if extra.is_dir() and int(extra.name.split("-")[1]) > runs:
                        shutil.rmtree(extra)
            startup = startup_sets(sorted(sc_out.glob("run-*")))
            if startup:
                print(f"[{sc.name}] job start measured in the real runs' logs: "
                      f"{startup[1]}, {startup[3]}", flush=True)

            def run_sims(at: float | None = None, name: str = "sim-seed") -> list[dict]:
                out = []
                for seed in range(1, sim_seeds + 1):
                    cmd = [bl, "run", *sargs, *calibration_sets(speed if at is None else at),
                           *startup, "--seconds", str(seconds),
                           "--seed", str(seed), "--format", "json", "--start-time", "0"]
                    report = json.loads(run_cmd(cmd, timeout=600))
                    (sc_out / f"{name}-{seed}.json").write_text(
                        json.dumps(report, indent=1) + "\n")
                    out.append(load_sim(report, fault_time_ms(sc.fail)))
                return out

            base_sims: list[list[dict]] = []

            def base() -> list[dict] | None:
                # The simulator at the engine's default latencies, once per scenario (see
                # `bracketed`): only needed when the calibration scaled them.
                if abs(speed - 1.0) < 1e-9:
                    return None
                if not base_sims:
                    base_sims.append(run_sims(1.0, "sim-base-seed"))
                return base_sims[0]

            def calibrate() -> list[dict]:
                # The reference scenario sets the machine's speed for every later one.
                nonlocal speed
                ratio = machine_speed(reals, sims) if sc.name == CALIBRATION_SCENARIO else None
                if ratio is None:
                    return sims
                # `sims` ran at `speed` already: the ratio is relative to it.
                raw = speed * ratio
                too_slow[0] = raw if raw > SPEED_BOUNDS[1] else None
                if too_slow[0]:
                    print(f"[{sc.name}] machine ×{raw:.1f} slower than the reference (bound "
                          f"×{SPEED_BOUNDS[1]:g}): millisecond-scale durations are reported, "
                          f"not judged", flush=True)
                measured = min(max(raw, SPEED_BOUNDS[0]), SPEED_BOUNDS[1])
                if abs(measured - speed) < 0.15 * speed:
                    return sims
                speed = measured
                machine_factor[0] = speed
                calibration_note[0] = (f"machine calibration: latencies ×{speed:.2f} (from "
                                       f"{CALIBRATION_SCENARIO}'s ack − trigger)")
                print(f"[{sc.name}] {calibration_note[0]}", flush=True)
                return run_sims()

            sims = run_sims()
            reals = load_reals()
            sims = calibrate()
            trows = judged(reals, sims, sc.name, base())
            failing = [r[0] for r in trows if r[-1] == "FAIL"]
            if failing and not args.from_saved and job_dir is not None and args.retry:
                # One real run on a shared machine can land far from Flink's usual figures (a GC
                # pause, a neighbour's build). A second round of runs halves that chance; a
                # simulator error survives it, because the median moves little.
                print(f"[{sc.name}] outside tolerance after {len(reals)} run(s): "
                      f"{'; '.join(failing)}; a second round of {runs} run(s)", flush=True)
                run_round(job_dir, runs + 1, runs)
                reals = load_reals()
                sims = calibrate()
                trows = judged(reals, sims, sc.name, base())
            title = (f"== {sc.name}: {sc.note} — {len(reals)} real run(s) × {seconds} s, "
                     f"{len(sims)} simulator seed(s)")
            if not reals:
                errors.append("no real run to compare")
                any_fail = True
            else:
                all_rows.append(trows)
                any_fail |= any(r[-1] == "FAIL" for r in trows)
                failed_rows += [f"{sc.name}: {' · '.join(r[:3])} [{r[4]}]"
                                for r in trows if r[-1] == "FAIL"]
            text = render_text(title, trows)
            if errors:
                text += "\n" + "\n".join(f"  ! {e}" for e in errors)
            bundles = sorted(sc_out.glob("run-*/collect-bundle.json"),
                             key=lambda b: int(b.parent.name.split("-")[1]))
            if args.derive and bundles:
                o = derive_check.check(bl, sc.name, bundles, speed)
                DERIVED.append(o)
                text += "\n" + (f"  derive refused: {o.refused}" if o.refused else
                                render_text(f"  derived from {len(bundles)} bundle(s) "
                                            f"({', '.join(b.parent.name for b in bundles)})",
                                            o.rows))
            text += f"\n  ({time.monotonic() - t_sc:.0f} s)"
            print(text + "\n", flush=True)
            sections_text.append(text)
            md = [f"### {sc.name}", "", f"{sc.note}. `{scenario_desc(sc)}`; "
                  f"{len(reals)} real run(s) of {seconds} s{provenance(sc_out)}, "
                  f"{len(sims)} simulator seed(s).", ""]
            shown = [a if not a.startswith(str(work)) else "SCENARIO.json" for a in sargs]
            md.append(f"Simulator: `barrierlab run {shlex.join(shown)} --seconds {seconds} "
                      f"--seed K --format json`, K = 1..{len(sims)}"
                      + (f" (SCENARIO.json: {json.dumps(sc.patch)} on `{sc.preset}`)"
                         if sc.patch else "") + ".")
            md.append("")
            if trows:
                md.append(render_md(trows))
            for e in errors:
                md.append(f"\n- error: {e}")
            sections_md.append("\n".join(md))
    finally:
        for p in list(_children):
            kill_group(p)
        shutil.rmtree(work, ignore_errors=True)

    wall = time.monotonic() - t_start
    print(f"harness wall time: {wall:.0f} s")
    print(calibration_note[0] or "machine calibration: none (latencies at the engine's defaults)")
    if args.markdown or args.update_docs:
        md = markdown_document(args, sections_md, runs, sim_seeds, wall)
        if args.markdown:
            args.markdown.write_text(md + "\n")
            print(f"wrote {args.markdown}")
        if args.update_docs:
            update_docs(md)
            print(f"updated {DOC}")
    verdicts = [r[-1] for section in all_rows for r in section]
    gaps = verdicts.count("known gap")
    print(f"known gaps (reported, not failing): {gaps}; see KNOWN_GAPS in tests/flink/harness.py")
    unjudged = verdicts.count("not judged")
    if unjudged:
        print(f"not judged (machine too slow for millisecond-scale durations): {unjudged}")
    for line in failed_rows:
        print(f"FAIL {line}")
    if args.collect:
        print(f"collect: {len(COLLECTED)} bundle(s) collected from running jobs and read back, "
              f"{len(COLLECT_FAILURES)} failed")
        for line in COLLECT_FAILURES:
            print(f"FAIL collect {line}")
    if args.derive:
        text, derive_failed = derive_check.report(DERIVED)
        print(text)
        any_fail |= derive_failed
    collect_failed = bool(COLLECT_FAILURES) and not args.report_only
    if any_fail and not args.report_only:
        print("differential harness: FAIL (the rows above)")
        print(f"harness: {verdicts.count('ok')} passed, {verdicts.count('FAIL')} failed")
        return 1
    print("differential harness: " + ("FAIL (report only)" if any_fail else "ok"))
    print(f"harness: {verdicts.count('ok')} passed, {verdicts.count('FAIL')} failed")
    return 1 if collect_failed else 0


def provenance(sc_out: Path) -> str:
    """` (2026-12-01, job from `barrierlab export …`)` from the saved runs' meta.json."""
    metas = []
    for p in sorted(sc_out.glob("run-*/meta.json")):
        try:
            metas.append(json.loads(p.read_text()))
        except (OSError, ValueError):
            pass
    if not metas:
        return ""
    dates = sorted({m.get("started", "")[:10] for m in metas if m.get("started")})
    origin = metas[0].get("job_from") or ""
    origin = re.sub(r" --out \S+", "", origin)
    parts = [", ".join(dates)] + ([f"job from `{origin}`"] if origin else [])
    return " (" + "; ".join(p for p in parts if p) + ")"


def scenario_desc(sc: Scenario) -> str:
    parts = [f"--preset {sc.preset}"] + [f"--set {s}" for s in sc.sets] + \
            [f"--fail {f}" for f in sc.fail]
    if sc.patch:
        parts.append(f"scenario JSON patched with {json.dumps(sc.patch)}")
    return " ".join(parts)


def markdown_document(args, sections: list[str], runs: int, seeds: int, wall: float) -> str:
    argv = " ".join(shlex.quote(a) for a in sys.argv[1:])
    date = datetime.date.today().isoformat()
    head = [
        "## Measured against real Flink (generated)",
        "",
        f"Generated by `python3 tests/flink/harness.py {argv}` on {date}: Apache Flink "
        f"{FLINK_VERSION} (MiniCluster, {platform.system()} {platform.machine()}, "
        f"nproc {nproc()}, Python {platform.python_version()}), {runs} real run(s) per scenario "
        f"from job submission, simulator seeds 1..{seeds}"
        + ("." if args.from_saved else f"; harness wall time {wall:.0f} s."),
        "Do not edit by hand: rerun the harness with `--update-docs` (add `--from-saved` to "
        "reuse the raw runs under `tests/flink/out/`).",
        "",
        "Real values pool every completed checkpoint except checkpoint 1 (reported on its own "
        "rows), every subtask and every run; `runs` lists each run's median. Ratios are "
        "`busyTimeMsPerSecond` etc. / 1000 per subtask from each run's last metric snapshot, "
        "fetched afresh at the run's end (its REST metric store fetches at most every 10 s), "
        "against the simulator's gauges at the run's end: both are `TimerGauge`s, means over "
        "up to 60 s of 5 s slots. "
        "Tolerances: `TOLERANCES` in `tests/flink/harness.py`; `< noise` marks a rule tighter "
        "than the spread between real runs.",
    ]
    head += ["", "Known gaps (a row outside its tolerance shows `known gap` and does not fail):", ""]
    head += [f"- `{m}`: {why}." for m, why in KNOWN_GAPS.items()]
    return "\n".join(head) + "\n\n" + "\n\n".join(sections)


def update_docs(md: str) -> None:
    text = DOC.read_text()
    if DOC_BEGIN not in text or DOC_END not in text:
        raise SystemExit(f"{DOC} lacks the markers {DOC_BEGIN} / {DOC_END}")
    before, rest = text.split(DOC_BEGIN, 1)
    _, after = rest.split(DOC_END, 1)
    DOC.write_text(before + DOC_BEGIN + "\n" + md + "\n" + DOC_END + after)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        for p in list(_children):
            kill_group(p)
        sys.exit(130)
