#!/bin/bash
# Start/stop mongo-java-server (de.bwaldvogel, in-memory backend, the version pinned in
# pom.xml next to this script), a MongoDB engine independent of odm, for CTest fixtures
# and scripts. Needs a JDK (17) and Maven.
#
#   tests/java-server/ctl.sh start DIR   start in the background on 127.0.0.1 and a free
#                                        port; writes DIR/pid, DIR/port, DIR/uri,
#                                        DIR/server.log (and DIR/maven.log)
#   tests/java-server/ctl.sh stop DIR    stop it (SIGTERM, then SIGKILL after 10 s)
#   tests/java-server/ctl.sh status DIR  exit 0 if running
#
# The jars come from Maven's local repository (~/.m2): Maven is asked offline first, and
# goes to Maven Central only when something is missing, so a second run needs no network.
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ENGINE_NAME="mongo-java-server"
ENGINE_MATCH=odm.engine.JavaServer
ENGINE_START_TIMEOUT_S=60
. "$HERE/../engine_ctl.sh"

engine_launch() {  # DIR
    local state=$1
    for tool in java javac mvn; do
        if ! command -v "$tool" >/dev/null; then
            echo "mongo-java-server: $tool not found (install Debian's openjdk-17-jdk-headless and maven)" >&2
            return 1
        fi
    done
    local maven=(mvn -B -q -Dstyle.color=never -f "$HERE/pom.xml" dependency:build-classpath
                 "-Dmdep.outputFile=$state/classpath")
    if ! "${maven[@]}" -o > "$state/maven.log" 2>&1 && ! "${maven[@]}" >> "$state/maven.log" 2>&1; then
        echo "mongo-java-server: Maven could not resolve the engine's jars; log ($state/maven.log):" >&2
        cat "$state/maven.log" >&2
        return 1
    fi
    if ! javac -nowarn -d "$state/classes" -cp "$(cat "$state/classpath")" \
            "$HERE/src/main/java/odm/engine/JavaServer.java" > "$state/javac.log" 2>&1; then
        echo "mongo-java-server: javac failed; log ($state/javac.log):" >&2
        cat "$state/javac.log" >&2
        return 1
    fi
    nohup java -Xmx2g -XX:+UseSerialGC -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
        -cp "$state/classes:$(cat "$state/classpath")" odm.engine.JavaServer --port-file "$state/port" \
        > "$state/server.log" 2>&1 < /dev/null &
    echo $!
}

engine_ctl "$@"
