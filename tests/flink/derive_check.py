"""Issue #15 part 4: the collected bundles of a scenario's real runs, each through
`barrierlab derive`, simulated, and compared with the real checkpoints they came from, by the
harness's own tolerances.

Only what derive claims to reproduce is judged: the end-to-end duration, the slowest subtask's
start delay and the persisted (in-flight) data of the bundles' completed checkpoints. Each bundle
is one real run of the row (its last three checkpoints), so one slow run on a shared machine
weighs as Flink's run-to-run spread does in the main tables ("< noise"), not as the whole truth.
A bundle derive refuses (a two-input vertex) is reported with its reason, not failed: the
refusal is derive's documented answer (docs/collect.md).
"""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass, field
from pathlib import Path

# The harness module as it runs (its `__main__`, whose calibration globals judge() reads); set
# by harness.main before the first check.
h = None

# Simulator seeds per derived scenario: enough for a steady median of a few checkpoints each.
SEEDS = 4


@dataclass
class Outcome:
    scenario: str
    bundles: list[Path]
    refused: str | None = None
    rows: list[list[str]] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)


def completed_obs(checkpoints: dict, subtasks: dict, names: dict[str, str]) -> list[dict]:
    out = []
    for cid, d in sorted(checkpoints.items(), key=lambda kv: int(kv[0])):
        if d.get("status") != "COMPLETED":
            continue
        tasks = {names.get(vid, vid): t for vid, t in d.get("tasks", {}).items()}
        subs = {names.get(vid, vid): b for vid, b in subtasks.get(cid, {}).items()}
        out.append(h._cp_obs(d, tasks, subs))
    return out


def figures(cps: list[dict]) -> dict[str, list[float]]:
    """Per checkpoint: end to end, the slowest subtask's start delay, the persisted data."""
    delays = []
    for c in cps:
        subs = [s["start_delay"] for v in c["vertices"].values() for s in v["subtasks"]]
        if subs:
            delays.append(max(subs))
    return {
        "end_to_end_duration": [c["end_to_end_duration"] for c in cps],
        "start_delay": delays,
        "persisted_data": [c["persisted_data"] for c in cps],
    }


LABELS = {"end_to_end_duration": ("end-to-end duration", "ms"),
          "start_delay": ("start delay, slowest subtask", "ms"),
          "persisted_data": ("persisted data", "B")}


def simulate(bl: str, scenario: Path, seconds: int, ids: tuple[int, int], speed: float,
             out: Path) -> list[dict[str, list[float]]]:
    """The derived scenario over `seconds`, per seed the figures of the checkpoints with the
    bundle's ids (the real job's first checkpoints are not in a bundle of its last three)."""
    runs = []
    for seed in range(1, SEEDS + 1):
        report = json.loads(h.run_cmd(
            [bl, "run", str(scenario), *h.calibration_sets(speed), "--seconds", str(seconds),
             "--seed", str(seed), "--format", "json", "--start-time", "0"], timeout=600))
        (out / f"derived-sim-{seed}{'' if speed == 1.0 else '-scaled'}.json").write_text(
            json.dumps(report, indent=1) + "\n")
        names = {v["id"]: v["name"] for v in report["job"]["vertices"]}
        cps = [c for c in completed_obs(report["details"], report["subtasks"], names)
               if ids[0] <= c["id"] <= ids[1]]
        runs.append(figures(cps))
    return runs


def derive_and_simulate(bl: str, bundle_path: Path, speed: float) -> tuple[dict, list, list]:
    """One bundle: its real figures, the derived scenario's per seed (at the calibrated
    latencies), and the same at the engine's defaults when the calibration scaled them (else [])."""
    out = bundle_path.parent
    derived = out / "derived-scenario.json"
    h.run_cmd([bl, "derive", str(bundle_path), "--out", str(derived)], timeout=120)
    bundle = json.loads(bundle_path.read_text())
    names = {v["id"]: v["name"] for v in bundle["job"]["vertices"]}
    real_cps = completed_obs(bundle.get("details", {}), bundle.get("subtasks", {}), names)
    if not real_cps:
        raise ValueError(f"no completed checkpoint in {bundle_path}")
    ids = (min(c["id"] for c in real_cps), max(c["id"] for c in real_cps))
    # Long enough for the simulated job to reach the bundle's newest checkpoint.
    uptime_s = (bundle["barrierlab_bundle"]["collected_at_ms"] - bundle["job"]["start-time"]) / 1000
    seconds = max(30, int(uptime_s) + 10)
    sims = simulate(bl, derived, seconds, ids, speed, out)
    base = simulate(bl, derived, seconds, ids, 1.0, out) if abs(speed - 1.0) > 1e-9 else []
    return figures(real_cps), sims, base


def check(bl: str, scenario: str, bundle_paths: list[Path], speed: float) -> Outcome:
    res = Outcome(scenario, bundle_paths)
    reals, sims, base = [], [], []
    for path in bundle_paths:
        try:
            real, s, b = derive_and_simulate(bl, path, speed)
        except Exception as e:  # noqa: BLE001
            res.refused = str(e).strip().splitlines()[-1] if str(e).strip() else repr(e)
            return res
        reals.append(real)
        sims += s
        base += b
    for measure, (label, unit) in LABELS.items():
        row = h.Row(measure, label, unit, [r[measure] for r in reals], [s[measure] for s in sims])
        row.scenario = scenario
        if base:
            row.base = [v for s in base for v in s[measure]]
        if not row.real or not row.sim:
            missing = ("no simulated checkpoint with the bundles' ids" if row.real
                       else "not in the bundles")
            res.failed.append(f"{label}: {missing}")
            continue
        res.rows += h.table_rows([row])
        v = h.judge(row)
        if v.failed:
            r, s = statistics.median(row.real), statistics.median(row.sim)
            res.failed.append(f"{label}: real {h.fmt_value(r, unit)}, derived {h.fmt_value(s, unit)}")
    return res


def report(outcomes: list[Outcome]) -> tuple[str, bool]:
    """The printed section and whether any derived scenario failed."""
    lines = ["== derive: each scenario's collected bundles, derived, simulated and judged "
             "against their own checkpoints (one bundle, one real run)"]
    any_failed = False
    for o in outcomes:
        if o.refused:
            lines.append(f"[{o.scenario}] derive refused: {o.refused}")
            continue
        lines.append(h.render_text(f"[{o.scenario}] {len(o.bundles)} bundle(s): "
                                   + ", ".join(str(b) for b in o.bundles), o.rows))
        for f in o.failed:
            lines.append(f"FAIL derive {o.scenario}: {f}")
        any_failed |= bool(o.failed)
    judged = [o for o in outcomes if not o.refused]
    lines.append(f"derive: {len(judged)} scenario(s) derived and judged "
                 f"({sum(len(o.bundles) for o in judged)} bundle(s)), "
                 f"{sum(1 for o in judged if o.failed)} failed, "
                 f"{len(outcomes) - len(judged)} refused")
    return "\n".join(lines), any_failed
