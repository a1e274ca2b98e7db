#!/usr/bin/env bash
# Writes a Barrier Lab bundle (docs/collect.md) from a running Flink 2.x job's REST API: the same
# bundle as `barrierlab collect`, for machines where the CLI cannot be installed.
#
#   scripts/collect.sh --rest URL --job ID [--checkpoints N] [--out FILE] [--timeout SECONDS]
#
# Needs only bash (3.2 or later), curl and jq (1.6 or later). Flink's answers are kept as Flink
# sent them (re-indented by jq). Failed requests are listed in the bundle's header and on stderr;
# the exit status is 1 only when the job itself could not be read (then nothing is written).
set -euo pipefail

REST=""
JOB=""
N=10
OUT=""
TIMEOUT=10

usage() {
    sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

while [ $# -gt 0 ]; do
    case "$1" in
        --rest) REST=${2:-}; shift 2 ;;
        --job) JOB=${2:-}; shift 2 ;;
        --checkpoints) N=${2:-}; shift 2 ;;
        --out) OUT=${2:-}; shift 2 ;;
        --timeout) TIMEOUT=${2:-}; shift 2 ;;
        -h|--help) usage ;;
        *) echo "collect.sh: unknown argument '$1'" >&2; usage ;;
    esac
done

say() { echo "collect.sh: $*" >&2; }

for tool in curl jq; do
    command -v "$tool" >/dev/null 2>&1 || { say "needs $tool (curl and jq 1.6 or later)"; exit 2; }
done
[ -n "$REST" ] && [ -n "$JOB" ] || usage
[[ $N =~ ^[0-9]+$ ]] || { say "--checkpoints takes a number"; exit 2; }
[[ $TIMEOUT =~ ^[0-9]+(\.[0-9]+)?$ ]] || { say "--timeout takes seconds, e.g. 10 or 0.5"; exit 2; }

REST=${REST%/}
case "$REST" in
    http://*|https://*) ;;
    *://*) say "--rest $REST: only http:// and https:// URLs are supported"; exit 2 ;;
    *) REST="http://$REST" ;;
esac
JOB=$(printf '%s' "$JOB" | tr 'A-F' 'a-f')
[[ $JOB =~ ^[0-9a-f]{32}$ ]] || { say "'$JOB' is not a Flink job id (32 hex digits; GET $REST/jobs lists them)"; exit 2; }

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
: >"$WORK/index"    # one JSON array per kept body: its path in the bundle, e.g. ["details","12"]
: >"$WORK/bodies"   # the kept bodies, in the same order
: >"$WORK/failed"   # {"request","status","error"} per failed request
: >"$WORK/skipped"  # {"request","reason"} per skipped request

MS=$(date -u +%s%3N 2>/dev/null || true)
[[ $MS =~ ^[0-9]+$ ]] || MS=$(($(date -u +%s) * 1000))
NOW=$(date -u +%Y-%m-%dT%H:%M:%SZ)

# METRICS: the metrics asked for, waited for and reported missing. Per subtask, SUBTASK_METRICS
# adds the debloater's size, whose absence means buffer debloating is off (rest.rs
# OPTIONAL_METRICS); not in the aggregated request, which Flink answers with [] when one of the
# metrics asked is registered on none of the subtasks.
METRICS=busyTimeMsPerSecond,backPressuredTimeMsPerSecond,idleTimeMsPerSecond,numRecordsInPerSecond,numRecordsOutPerSecond,numBytesInPerSecond,numBytesOutPerSecond
SUBTASK_METRICS=$METRICS,Shuffle.Netty.Input.0.debloatedBufferSize
GIVE_UP_AFTER=3
IN_A_ROW=0

# fetch PATH: 0 with the JSON body in $WORK/body; else 1 with STATUS (empty without an HTTP
# answer) and MESSAGE (Flink's first line, without the exception class) saying why.
fetch() {
    STATUS=""
    MESSAGE=""
    if [ "$IN_A_ROW" -ge "$GIVE_UP_AFTER" ]; then
        MESSAGE="not requested: the REST API stopped answering ($GIVE_UP_AFTER requests in a row failed)"
        return 1
    fi
    local code
    if ! code=$(curl -sS --max-time "$TIMEOUT" -o "$WORK/body" -w '%{http_code}' "$REST$1" 2>"$WORK/err"); then
        IN_A_ROW=$((IN_A_ROW + 1))
        MESSAGE=$(head -c 300 "$WORK/err" | tr '\n' ' ' | sed 's/^curl: ([0-9]*) //')
        return 1
    fi
    IN_A_ROW=0
    STATUS=$code
    if [ "$code" -ge 200 ] && [ "$code" -lt 300 ]; then
        if jq empty "$WORK/body" >/dev/null 2>&1 && [ -s "$WORK/body" ]; then
            return 0
        fi
        MESSAGE="the answer is not JSON: is $REST Flink's REST API?"
        return 1
    fi
    MESSAGE=$(jq -r '(.errors[0] // "") | split("\n")[0] | sub("^[A-Za-z0-9_.$]+(Exception|Error): "; "")' \
        "$WORK/body" 2>/dev/null || head -c 200 "$WORK/body" | tr '\n' ' ')
    return 1
}

# keep KEY... : the last fetched body goes into the bundle at that path.
keep() {
    jq -cn '$ARGS.positional' --args "$@" >>"$WORK/index"
    cat "$WORK/body" >>"$WORK/bodies"
    echo >>"$WORK/bodies"
}

failed() {  # failed PATH: after fetch returned 1
    local why=$MESSAGE
    [ -n "$STATUS" ] && why="HTTP $STATUS: $MESSAGE"
    say "GET $1: $why"
    jq -cn --arg r "$1" --arg s "$STATUS" --arg e "$MESSAGE" \
        '{request: $r, status: (if $s == "" then null else ($s | tonumber) end), error: $e}' >>"$WORK/failed"
}

skipped() {  # skipped PATH REASON
    say "GET $1: skipped: $2"
    jq -cn --arg r "$1" --arg why "$2" '{request: $r, reason: $why}' >>"$WORK/skipped"
}

# The Flink version first.
FLINK_VERSION=""
if fetch /config; then
    keep flink_config
    FLINK_VERSION=$(jq -r '."flink-version" // empty' "$WORK/body")
    case "$FLINK_VERSION" in
        2.*|"") ;;
        *) say "this is Flink $FLINK_VERSION; Barrier Lab reads Flink 2.x (collecting anyway)" ;;
    esac
else
    failed /config
fi

# The job: without it nothing else means anything.
JP=/jobs/$JOB
if ! fetch "$JP"; then
    if [ "$STATUS" = 404 ]; then
        say "job $JOB not found at $REST ($MESSAGE): it finished longer ago than the JobManager keeps jobs (jobstore.expiration-time), or the id is wrong; GET $REST/jobs lists the jobs"
    else
        say "GET $REST$JP: ${STATUS:+HTTP $STATUS: }$MESSAGE; nothing collected"
    fi
    exit 1
fi
keep job
jq -r '.vertices[]? | "\(.id) \(.parallelism)"' "$WORK/body" >"$WORK/vertices"

# Start Flink's MetricFetcher early, so the metrics asked for below are there.
FIRST_VERTEX=$(head -n 1 "$WORK/vertices" | cut -d' ' -f1)
[ -n "$FIRST_VERTEX" ] && fetch "$JP/vertices/$FIRST_VERTEX/subtasks/metrics?get=$METRICS" || true

: >"$WORK/history"
if fetch "$JP/checkpoints"; then
    keep checkpoints
    # The newest N of the history, oldest first, with their status.
    jq -r --argjson n "$N" '(.history // []) | sort_by(.id) | reverse | .[:$n] | reverse | .[] | "\(.id) \(.status)"' \
        "$WORK/body" >"$WORK/history"
else
    failed "$JP/checkpoints"
fi
if fetch "$JP/checkpoints/config"; then keep config; else failed "$JP/checkpoints/config"; fi

: >"$WORK/detailed"
while read -r cid status; do
    path="$JP/checkpoints/details/$cid"
    if fetch "$path"; then
        keep details "$cid"
        echo "$cid $status" >>"$WORK/detailed"
    elif [ "$STATUS" = 404 ] && [ "$status" = IN_PROGRESS ]; then
        skipped "$path" "checkpoint $cid is still in progress and Flink has no statistics for it yet ($MESSAGE)"
    elif [ "$STATUS" = 404 ]; then
        skipped "$path" "checkpoint $cid left Flink's history (web.checkpoints.history) before it was asked for ($MESSAGE)"
    else
        failed "$path"
    fi
done <"$WORK/history"

while read -r cid status; do
    while read -r vid _; do
        path="$JP/checkpoints/details/$cid/subtasks/$vid"
        if fetch "$path"; then
            keep subtasks "$cid" "$vid"
        elif [ "$STATUS" = 404 ] && [ "$status" = IN_PROGRESS ]; then
            skipped "$path" "checkpoint $cid is still in progress and vertex $vid has no statistics for it yet ($MESSAGE)"
        else
            failed "$path"
        fi
    done <"$WORK/vertices"
done <"$WORK/detailed"

# Backpressure and metrics per vertex and subtask. An answer without every metric (or a
# backpressure status "deprecated") means Flink's MetricFetcher had nothing yet: asked again,
# twice, 1.5 s apart; then the answer is kept as it is, with a note.
: >"$WORK/todo"
while read -r vid parallelism; do
    echo "backpressure $vid - $JP/vertices/$vid/backpressure" >>"$WORK/todo"
    echo "metrics_aggregated $vid - $JP/vertices/$vid/subtasks/metrics?get=$METRICS" >>"$WORK/todo"
    n=0
    while [ "$n" -lt "$parallelism" ]; do
        echo "metrics $vid $n $JP/vertices/$vid/subtasks/$n/metrics?get=$SUBTASK_METRICS" >>"$WORK/todo"
        n=$((n + 1))
    done
done <"$WORK/vertices"

# missing KIND: on $WORK/body, prints "all" when Flink had no value yet (an empty list, or a
# backpressure status "deprecated"), the metrics it lacks when some, nothing when none.
missing() {
    if [ "$1" = backpressure ]; then
        jq -r 'if .status == "deprecated" then "all" else empty end' "$WORK/body"
    else
        jq -r --arg want "$METRICS" '(($want | split(",")) - [.[]?.id]) as $m
            | if ($m | length) == ($want | split(",") | length) then "all"
              elif ($m | length) > 0 then $m | join(", ") else empty end' "$WORK/body"
    fi
}

for round in 0 1 2; do
    [ -s "$WORK/todo" ] || break
    [ "$round" -gt 0 ] && sleep 1.5
    : >"$WORK/again"
    while read -r kind vid n path; do
        if ! fetch "$path"; then
            failed "$path"
            continue
        fi
        lacks=$(missing "$kind")
        if [ -n "$lacks" ] && [ "$round" -lt 2 ]; then
            echo "$kind $vid $n $path" >>"$WORK/again"
            continue
        fi
        if [ "$lacks" = all ]; then
            skipped "$path" "Flink had no metric values for it yet (its MetricFetcher fetches at most every metrics.fetcher.update-interval, 10 s by default); its answer is kept"
        elif [ -n "$lacks" ]; then
            skipped "$path" "Flink sent no value for $lacks; the other metrics are kept"
        fi
        if [ "$kind" = metrics ]; then keep metrics "$vid" "$n"; else keep "$kind" "$vid"; fi
    done <"$WORK/todo"
    mv "$WORK/again" "$WORK/todo"
done

# The bundle: the header, then the bodies at their paths, in the order docs/collect.md lists.
jq -n \
    --slurpfile index "$WORK/index" \
    --slurpfile bodies "$WORK/bodies" \
    --slurpfile failed "$WORK/failed" \
    --slurpfile skipped "$WORK/skipped" \
    --arg collector "scripts/collect.sh (curl, $(jq --version))" \
    --arg rest "$REST" --arg job "$JOB" --arg at "$NOW" --argjson ms "$MS" \
    --arg version "$FLINK_VERSION" --argjson n "$N" '
    {
      barrierlab_bundle: {
        format_version: 1, collector: $collector, rest_url: $rest, job_id: $job,
        collected_at: $at, collected_at_ms: $ms,
        flink_version: (if $version == "" then null else $version end),
        checkpoints_requested: $n, failed: $failed, skipped: $skipped
      },
      details: {}, subtasks: {}, backpressure: {}, metrics: {}, metrics_aggregated: {}
    }
    | reduce range(0; $index | length) as $i (.; setpath($index[$i]; $bodies[$i]))
    | . as $b
    | reduce ("barrierlab_bundle", "flink_config", "job", "checkpoints", "config", "details",
              "subtasks", "backpressure", "metrics", "metrics_aggregated") as $k
        ({}; if $b | has($k) then . + {($k): $b[$k]} else . end)' >"$WORK/bundle.json"

say "job $JOB (Flink ${FLINK_VERSION:-version unknown}): $(wc -l <"$WORK/detailed" | tr -d ' ') of $N checkpoints in detail; requests: $(wc -l <"$WORK/failed" | tr -d ' ') failed, $(wc -l <"$WORK/skipped" | tr -d ' ') skipped"
if [ -n "$OUT" ]; then
    # Whole or not at all: a half-written bundle would read as truncated.
    cp "$WORK/bundle.json" "$OUT.partial" && mv "$OUT.partial" "$OUT"
    say "wrote $OUT"
else
    cat "$WORK/bundle.json"
fi
