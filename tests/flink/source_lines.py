#!/usr/bin/env python3
"""The event log's links into Flink's source: re-derive or check the lines of
crates/engine/src/trace/source.rs (one `src!(kind, label, class, method, [call "x",] dir, line)` per
TraceKind).

  FLINK_SRC=~/flink python3 tests/flink/source_lines.py [--write]
      Re-derives every line from a Flink checkout (of the tag in FLINK_REF): a declaration entry is the
      line of `method`'s signature in `dir/class.java` (the top-level class's member; HINTS picks an
      overload), a `call` entry the first line in that method's body holding its anchor (HINTS, else
      `call(`). Prints the differences; --write puts the derived lines into source.rs. For a Flink
      upgrade: check out the new tag, change FLINK_REF and the URL prefix in source.rs, run with --write.

  python3 tests/flink/source_lines.py --jar [flink-dist-2.3.0.jar]
      Checks every line against the compiled release (what CI runs): the class's LineNumberTable
      (javap -l) must put a call entry's `call` on exactly its line inside `method`, and a declaration
      entry just above the first line of `method`'s code, with no code of the class in between. Jar:
      the argument, else $FLINK_DIST_JAR, $FLINK_LIB/flink-dist-*.jar, or the apache-flink-libraries
      venv that .ci/bootstrap installs.

  python3 tests/flink/source_lines.py --self-test
      Runs the checkout parser on small invented Java files (no Flink needed).

Exit status 1 when a line differs or fails a check.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCE_RS = ROOT / "crates/engine/src/trace/source.rs"

# How to find an entry in a checkout when the method name alone is not enough.
#   params: a word of the wanted overload's parameter list
#   anchor: the text of the call's line (call entries; default `call(`)
# and what else the jar check asks of a call's line when the call alone is not enough:
#   descriptor: part of the called method's JVM descriptor (which overload)
#   new: a class instantiated on the same line
HINTS: dict[str, dict[str, str]] = {
    "TriggerRejected": {"params": "newRequest"},  # the public chooseRequestToExecute(request, …)
    "CheckpointAborted": {"params": "ExecutionAttemptID"},  # the 3-argument abortPendingCheckpoint
    # checkpointState step (0): broadcastEvent(new CancelCheckpointMarker(id))
    "CancelMarkerEmitted": {"anchor": "broadcastEvent(new CancelCheckpointMarker(", "new": "CancelCheckpointMarker"},
    # step (2): broadcastEvent(checkpointBarrier, options.isUnalignedCheckpoint())
    "BarrierEmitted": {"anchor": "broadcastEvent(checkpointBarrier", "descriptor": "AbstractEvent;Z)"},
    "SyncStart": {"anchor": "takeSnapshotSync("},  # step (5)
}

# At most this many lines from a signature's first line to the first line with code (annotations
# sit above the signature; multi-line parameter lists, `throws`, comments and blank lines below).
MAX_HEAD = 12

ENTRY = re.compile(
    r'src!\(\s*"(?P<kind>\w+)",\s*"(?P<label>[^"]+)",\s*"(?P<cls>\w+)",\s*"(?P<method>\w+)",\s*'
    r'(?:call\s+"(?P<call>\w+)",\s*)?"(?P<dir>[^"]+)",\s*(?P<line>\d+),?\s*\)',
    re.S,
)


@dataclass
class Entry:
    kind: str
    cls: str
    method: str
    call: str | None
    dir: str
    line: int
    span: tuple[int, int]  # of the line number in source.rs

    @property
    def path(self) -> str:
        return f"{self.dir}/{self.cls}.java"

    @property
    def fqcn(self) -> str:
        return self.path.split("/src/main/java/", 1)[1].removesuffix(".java").replace("/", ".")


def read_entries(text: str) -> list[Entry]:
    entries = []
    for m in ENTRY.finditer(text):
        entries.append(
            Entry(m["kind"], m["cls"], m["method"], m["call"], m["dir"], int(m["line"]), m.span("line"))
        )
    if not entries:
        sys.exit(f"source_lines: no src!(…) entries in {SOURCE_RS}")
    return entries


# ---------------------------------------------------------------------------------------------
# A checkout: find the lines in the .java files.

MODIFIERS = r"(?:(?:public|protected|private|static|final|synchronized|abstract|default|native|strictfp)\s+)*"
TYPE = r"(?:<[^()]*>\s+)?[\w$.]+(?:\s*<[^()]*>)?(?:\[\])*"
NOT_A_DECLARATION = re.compile(r"^\s*(?:return|new|throw|else|case|assert|yield)\b")


def strip_comments(lines: list[str]) -> list[str]:
    """The lines with comments and string literals blanked out (line count unchanged)."""
    out, in_block = [], False
    for line in lines:
        res, i = [], 0
        while i < len(line):
            if in_block:
                end = line.find("*/", i)
                if end < 0:
                    i = len(line)
                else:
                    in_block, i = False, end + 2
            elif line.startswith("/*", i):
                in_block, i = True, i + 2
            elif line.startswith("//", i):
                break
            elif line[i] in "\"'":
                q, j = line[i], i + 1
                while j < len(line) and line[j] != q:
                    j += 2 if line[j] == "\\" else 1
                res.append(q + q)
                i = j + 1
            else:
                res.append(line[i])
                i += 1
        out.append("".join(res))
    return out


def declarations(code: list[str], method: str) -> list[tuple[int, str]]:
    """(0-based line, signature up to its `{`) of every method body named `method`."""
    head = re.compile(rf"^\s*(?:@\w+(?:\([^)]*\))?\s+)*{MODIFIERS}{TYPE}\s+{re.escape(method)}\s*\(")
    found = []
    for i, line in enumerate(code):
        if not head.match(line) or NOT_A_DECLARATION.match(line) or "=" in line.split(method)[0]:
            continue
        sig, j = "", i
        while j < len(code) and j < i + MAX_HEAD:
            sig += " " + code[j].strip()
            if "{" in code[j] or ";" in code[j]:
                break
            j += 1
        if "{" in sig and not sig.split("{")[0].rstrip().endswith(";"):
            found.append((i, sig))
    return found


def body_end(code: list[str], start: int) -> int:
    """The 0-based line closing the body opened on or after `start`."""
    depth, opened = 0, False
    for i in range(start, len(code)):
        for ch in code[i]:
            if ch == "{":
                depth, opened = depth + 1, True
            elif ch == "}":
                depth -= 1
                if opened and depth == 0:
                    return i
    return len(code) - 1


def derive(entry: Entry, text: str) -> int:
    """The 1-based line of `entry` in the source `text`; ValueError when it cannot be told."""
    lines = text.split("\n")
    code = strip_comments(lines)
    found = declarations(code, entry.method)
    if found:  # members of the top-level class: the least indented
        indent = min(len(code[i]) - len(code[i].lstrip()) for i, _ in found)
        found = [(i, s) for i, s in found if len(code[i]) - len(code[i].lstrip()) == indent]
    hint = HINTS.get(entry.kind, {})
    if "params" in hint:
        found = [(i, s) for i, s in found if hint["params"] in s.split("(", 1)[1]]
    if len(found) != 1:
        where = ", ".join(str(i + 1) for i, _ in found) or "none"
        raise ValueError(f"{entry.cls}.{entry.method}: {len(found)} declarations (lines {where}); add a HINT")
    decl = found[0][0]
    if entry.call is None:
        return decl + 1
    anchor = hint.get("anchor", f"{entry.call}(")
    for i in range(decl + 1, body_end(code, decl) + 1):
        if anchor in code[i]:
            return i + 1
    raise ValueError(f"{entry.cls}.{entry.method}: no line with {anchor!r} in its body")


def from_checkout(entries: list[Entry], src: Path) -> dict[str, int | str]:
    derived: dict[str, int | str] = {}
    for e in entries:
        f = src / e.path
        if not f.is_file():
            derived[e.kind] = f"no file {e.path}"
            continue
        try:
            derived[e.kind] = derive(e, f.read_text(encoding="utf-8"))
        except ValueError as err:
            derived[e.kind] = str(err)
    return derived


def run_checkout(entries: list[Entry], text: str, src: Path, write: bool) -> int:
    derived = from_checkout(entries, src)
    failed, edits = 0, []
    for e in entries:
        got = derived[e.kind]
        if isinstance(got, str):
            print(f"FAIL {e.kind}: {got}")
            failed += 1
        elif got != e.line:
            print(f"{'WRITE' if write else 'DIFF'} {e.kind}: {e.path}:{e.line} -> {got}")
            edits.append((e.span, got))
            failed += 0 if write else 1
        else:
            print(f"ok   {e.kind}: {e.path}:{e.line}")
    if write and edits:
        for (a, b), line in sorted(edits, reverse=True):
            text = text[:a] + str(line) + text[b:]
        SOURCE_RS.write_text(text, encoding="utf-8")
        print(f"wrote {len(edits)} line(s) into {SOURCE_RS.relative_to(ROOT)}")
    print(f"{len(entries) - failed} passed, {failed} failed")
    return 1 if failed else 0


# ---------------------------------------------------------------------------------------------
# The release jar: check the lines against the bytecode's LineNumberTable.


@dataclass
class Method:
    name: str
    header: str
    lines: list[int]  # LineNumberTable lines
    calls: list[tuple[int, str, str]]  # (line, invoked method name, its descriptor)
    news: list[tuple[int, str]]  # (line, simple name of a class instantiated)


def parse_javap(out: str) -> list[Method]:
    methods: list[Method] = []
    for block in re.split(r"\n(?=  \S)", out):
        header = block.strip().split("\n", 1)[0]
        m = re.search(r"([\w$]+)\(", header)
        if not m or "Code:" not in block:
            continue
        name = m.group(1).rsplit(".", 1)[-1]
        table = [(int(l), int(pc)) for l, pc in re.findall(r"^\s+line (\d+): (\d+)$", block, re.M)]
        by_pc = sorted((pc, line) for line, pc in table)

        def line_of(pc: str) -> int:
            before = [line for p, line in by_pc if p <= int(pc)]
            return before[-1] if before else 0

        calls, news = [], []
        for pc, target in re.findall(r"^\s+(\d+): invoke\w+\s+#\d+(?:,\s+\d+)?\s+// \w*Method (\S+)", block, re.M):
            callee, _, descriptor = target.partition(":")
            calls.append((line_of(pc), callee.rsplit(".", 1)[-1].strip('"'), descriptor))
        for pc, cls in re.findall(r"^\s+(\d+): new\s+#\d+\s+// class (\S+)", block, re.M):
            news.append((line_of(pc), cls.rsplit("/", 1)[-1]))
        methods.append(Method(name, header, [line for line, _ in table], calls, news))
    return methods


def find_jar(arg: str | None) -> Path:
    candidates = [arg, os.environ.get("FLINK_DIST_JAR")]
    if os.environ.get("FLINK_LIB"):
        candidates += sorted(str(p) for p in Path(os.environ["FLINK_LIB"]).glob("flink-dist-*.jar"))
    candidates += sorted(str(p) for p in Path("/opt/flink-venv/lib").glob("python3*/site-packages/pyflink/lib/flink-dist-*.jar"))
    for c in candidates:
        if c and Path(c).is_file():
            return Path(c)
    sys.exit("source_lines: no flink-dist jar: pass one, set FLINK_DIST_JAR or FLINK_LIB, or run .ci/bootstrap")


def check_entry(e: Entry, methods: list[Method]) -> str | None:
    """None when the release's bytecode agrees with the entry's line, else why not."""
    own = [m for m in methods if m.name == e.method]
    if not own:
        return f"{e.cls} has no method {e.method} in the jar"
    if e.call is not None:
        # The call may sit in a lambda of the method (javac names those lambda$method$N).
        scope = own + [m for m in methods if m.name.startswith(f"lambda${e.method}$")]
        hint = HINTS.get(e.kind, {})
        lines = sorted(
            {line for m in scope for line, callee, desc in m.calls if callee == e.call and hint.get("descriptor", "") in desc}
        )
        if "new" in hint:
            lines = [l for l in lines if any((l, hint["new"]) in m.news for m in scope)]
        if e.line in lines:
            return None
        return f"{e.method} calls {e.call} {hint or ''} on line(s) {lines}, not {e.line}"
    code = {line for m in methods for line in m.lines}
    starts = []
    for m in own:
        if not m.lines:
            continue
        first = min(m.lines)
        starts.append(first)
        if e.line < first <= e.line + MAX_HEAD and not any(e.line <= line < first for line in code):
            return None
    return f"{e.method}'s code starts on line(s) {sorted(starts)}: line {e.line} is not its head"


def run_jar(entries: list[Entry], jar: Path, expect_version: str) -> int:
    with zipfile.ZipFile(jar) as z:
        manifest = z.read("META-INF/MANIFEST.MF").decode("utf-8", "replace")
    version = re.search(r"^Implementation-Version: (\S+)", manifest, re.M)
    if not version or version.group(1) != expect_version:
        sys.exit(f"source_lines: {jar} is Flink {version and version.group(1)}, the lines are for {expect_version}")
    classes = sorted({e.fqcn for e in entries})
    out = subprocess.run(
        ["javap", "-c", "-l", "-p", "-cp", str(jar), *classes], capture_output=True, text=True, check=False
    )
    if out.returncode != 0:
        sys.exit(f"source_lines: javap failed: {out.stderr.strip()}")
    per_class: dict[str, list[Method]] = {}
    for chunk in re.split(r"^(?=Compiled from )", out.stdout, flags=re.M):
        m = re.search(r"^(?:[\w ]*?)(?:class|interface|enum) ([\w.$]+)", chunk, re.M)
        if m:
            per_class[m.group(1)] = parse_javap(chunk)
    failed = 0
    for e in entries:
        why = check_entry(e, per_class.get(e.fqcn, []))
        if why:
            failed += 1
            print(f"FAIL {e.kind}: {e.path}:{e.line}: {why}")
        else:
            print(f"ok   {e.kind}: {e.path}:{e.line}{f' (call to {e.call})' if e.call else ''}")
    print(f"{jar.name}: {len(entries) - failed} passed, {failed} failed")
    return 1 if failed else 0


# ---------------------------------------------------------------------------------------------
# Self-test of the checkout parser on invented Java (formatted the way Flink's sources are).

SELF_TEST = {
    "a/src/main/java/x/Coordinator.java": """package x;

/** A coordinator; its comment mentions trigger(now) and abort(a, b). */
class Coordinator {
    private final Object lock = new Object();

    @VisibleForTesting
    void trigger(long now) {
        abort(null, "trigger(now) in a string");
    }

    private void abort(
            Pending pending, Exception cause) {

        abort(pending, cause, null);
    }

    private void abort(
            Pending pending,
            Exception cause,
            @Nullable final AttemptId attempt) {
        // abort(pending) in a comment
        pending.dispose();
    }

    private final class Inner implements Runnable {
        @Override
        public void run() {
            trigger(1);
        }
    }

    public Optional<Request> choose(
            Request newRequest, boolean isTriggering) {
        return Optional.of(newRequest);
    }
}
""",
    "a/src/main/java/x/Task.java": """package x;

class Task {
    interface Chain {
        void broadcast(Object event, boolean priority);
    }

    public void checkpointState(
            Meta meta,
            Chain chain)
            throws Exception {

        // Step (0): cancel
        if (aborted) {
            chain.broadcast(new CancelMarker(meta.id()), false);
            return;
        }
        // Step (2): barrier
        Barrier barrier = new Barrier(meta.id());
        chain.broadcast(barrier, true);
    }
}
""",
}


def self_test() -> int:
    def entry(kind, cls, method, call=None):
        return Entry(kind, cls, method, call, "a/src/main/java/x", 0, (0, 0))

    cases = [
        (entry("T", "Coordinator", "trigger"), 8),
        (entry("Abort3", "Coordinator", "abort"), 18, {"params": "AttemptId"}),
        (entry("Abort2", "Coordinator", "abort"), 12, {"params": "Exception cause)"}),
        (entry("Choose", "Coordinator", "choose"), 33),
        (entry("Cancel", "Task", "checkpointState", "broadcast"), 15, {"anchor": "broadcast(new CancelMarker("}),
        (entry("Barrier", "Task", "checkpointState", "broadcast"), 20, {"anchor": "broadcast(barrier"}),
    ]
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for rel, text in SELF_TEST.items():
            (Path(tmp) / rel).parent.mkdir(parents=True, exist_ok=True)
            (Path(tmp) / rel).write_text(text)
        for case in cases:
            e, want = case[0], case[1]
            HINTS[e.kind] = case[2] if len(case) > 2 else {}
            got = from_checkout([e], Path(tmp))[e.kind]
            ok = got == want
            failed += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {e.kind}: {got} (want {want})")
        # An overload without a hint is ambiguous, not a guess.
        HINTS["Ambiguous"] = {}
        got = from_checkout([entry("Ambiguous", "Coordinator", "abort")], Path(tmp))["Ambiguous"]
        ok = isinstance(got, str) and "2 declarations" in got
        failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} Ambiguous: {got}")
    print(f"{len(cases) + 1 - failed} passed, {failed} failed")
    return 1 if failed else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", help="a Flink checkout (default: $FLINK_SRC)")
    ap.add_argument("--write", action="store_true", help="put the lines derived from --src into source.rs")
    ap.add_argument("--jar", nargs="?", const="", help="check against a flink-dist jar instead")
    ap.add_argument("--self-test", action="store_true", help="test the checkout parser on invented Java")
    args = ap.parse_args()
    if args.self_test:
        return self_test()
    text = SOURCE_RS.read_text(encoding="utf-8")
    entries = read_entries(text)
    ref = re.search(r'pub const FLINK_REF: &str = "release-([\d.]+)";', text)
    if not ref:
        sys.exit("source_lines: no FLINK_REF = \"release-X.Y.Z\" in source.rs")
    if args.jar is not None:
        return run_jar(entries, find_jar(args.jar or None), ref.group(1))
    src = args.src or os.environ.get("FLINK_SRC")
    if not src:
        sys.exit("source_lines: give a Flink checkout (--src DIR or FLINK_SRC=DIR), or --jar")
    return run_checkout(entries, text, Path(src).expanduser(), args.write)


if __name__ == "__main__":
    sys.exit(main())
