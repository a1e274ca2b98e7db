//! `run.sh` and `log4j2.properties`: compile and run the job against Flink 2.3's jars with a clean
//! stdout (the harness reads one line from it).

/// `run.sh [--rest-port P] [--seconds N] [--conf-dir DIR]`, from any working directory.
pub(super) const RUN_SH: &str = r#"#!/usr/bin/env bash
# Compiles the exported Barrier Lab job and runs it on a local Flink 2.3 MiniCluster.
#   run.sh [--rest-port P] [--seconds N] [--conf-dir DIR]
# stdout gets exactly one line, "BARRIERLAB-JOB <job id> http://127.0.0.1:<port>", once the job is
# submitted; Flink's log goes to build/flink.log, warnings also to stderr.
# Jars: $FLINK_LIB (flink-dist-2.3.0.jar + log4j jars), else the pyflink package's lib directory.
set -euo pipefail

DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

find_flink_lib() {
    if [ -n "${FLINK_LIB:-}" ]; then
        if [ -f "$FLINK_LIB/flink-dist-2.3.0.jar" ]; then
            echo "$FLINK_LIB"
            return 0
        fi
        echo "run.sh: FLINK_LIB=$FLINK_LIB has no flink-dist-2.3.0.jar" >&2
        return 1
    fi
    local d
    d="$(python3 -c 'import pyflink,os;print(os.path.dirname(pyflink.__file__)+"/lib")' 2>/dev/null || true)"
    if [ -n "$d" ] && [ -f "$d/flink-dist-2.3.0.jar" ]; then
        echo "$d"
        return 0
    fi
    for d in /opt/flink-venv/lib/python3*/site-packages/pyflink/lib; do
        if [ -f "$d/flink-dist-2.3.0.jar" ]; then
            echo "$d"
            return 0
        fi
    done
    echo "run.sh: no Flink 2.3.0 jars found. Set FLINK_LIB to a directory holding flink-dist-2.3.0.jar" >&2
    echo "and the log4j jars, or install PyFlink 2.3.0 (pip install apache-flink==2.3.0)." >&2
    return 1
}

LIB="$(find_flink_lib)" || exit 1
CP="$LIB/flink-dist-2.3.0.jar"
for jar in "$LIB"/log4j-*.jar; do
    [ -f "$jar" ] && CP="$CP:$jar"
done

# Compile only when a source is newer than the last build.
CLASSES="$DIR/build/classes"
STAMP="$DIR/build/.compiled"
mkdir -p "$CLASSES"
if [ ! -f "$STAMP" ] || [ -n "$(find "$DIR/src" -name '*.java' -newer "$STAMP" | head -n 1)" ]; then
    javac -encoding UTF-8 -nowarn -d "$CLASSES" -cp "$CP" "$DIR"/src/main/java/barrierlab/*.java >&2
    touch "$STAMP"
fi

# Flink 2.3 on Java 17 needs some JDK internals opened (as Flink's own config.yaml does).
OPENS="--add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED
 --add-opens=java.base/java.lang.reflect=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED
 --add-opens=java.base/java.net=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED
 --add-opens=java.base/java.time=ALL-UNNAMED --add-opens=java.base/java.util.concurrent=ALL-UNNAMED
 --add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED --add-opens=java.base/java.lang.invoke=ALL-UNNAMED
 --add-exports=java.base/sun.net.util=ALL-UNNAMED"

# shellcheck disable=SC2086
exec java $OPENS ${JAVA_OPTS:-} \
    -Dlog4j.configurationFile="$DIR/log4j2.properties" \
    -Dlog.file="$DIR/build/flink.log" \
    -Dbarrierlab.home="$DIR" \
    -cp "$CLASSES:$CP" barrierlab.BarrierLabJob "$@"
"#;

/// Flink's log to a file (INFO, so "Completed checkpoint" lines are there), warnings to stderr.
pub(super) const LOG4J2_PROPERTIES: &str = r#"# Logging of the exported Barrier Lab job. stdout carries only the BARRIERLAB-JOB line, so Flink
# logs to build/flink.log (INFO, like Flink's own log files) and warnings also go to stderr.
# run.sh sets log.file, Flink's own property, so the web UI shows the log too.
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = File
rootLogger.appenderRef.console.ref = Console

appender.file.name = File
appender.file.type = File
appender.file.fileName = ${sys:log.file:-build/flink.log}
appender.file.append = false
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = %d{yyyy-MM-dd HH:mm:ss,SSS} %-5p %-60c %x - %m%n

appender.console.name = Console
appender.console.type = Console
appender.console.target = SYSTEM_ERR
appender.console.filter.threshold.type = ThresholdFilter
appender.console.filter.threshold.level = WARN
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss,SSS} %-5p %c{1} - %m%n

# Chatty at INFO and of no use here.
logger.netty.name = org.apache.flink.shaded.netty4
logger.netty.level = WARN
logger.pekko.name = org.apache.pekko
logger.pekko.level = WARN
"#;
