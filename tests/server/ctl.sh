#!/bin/bash
# Start/stop the odm test server (a MongoDB wire-protocol stand-in) for CTest
# fixtures.
#
#   tests/server/ctl.sh start DIR   start in the background; writes DIR/pid,
#                                   DIR/port, DIR/uri, DIR/server.log
#   tests/server/ctl.sh stop DIR    stop it (SIGTERM, then SIGKILL after 10 s)
#   tests/server/ctl.sh status DIR  exit 0 if running
#
# Both start and stop are idempotent.  The server must run with Debian's
# /usr/bin/python3 (python3-mockupdb, python3-mongomock).
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PYTHON=${ODM_TEST_SERVER_PYTHON:-/usr/bin/python3}
SERVER="$HERE/odm_test_server.py"
START_TIMEOUT_S=15

usage() {
    echo "usage: $0 start|stop|status DIR" >&2
    exit 2
}

[ $# -eq 2 ] || usage
action=$1
dir=$2

# True if the pid in DIR/pid is alive and is our server (guards against pid reuse).
running_pid() {
    local pid
    [ -f "$dir/pid" ] || return 1
    pid=$(cat "$dir/pid" 2>/dev/null) || return 1
    case "$pid" in ''|*[!0-9]*) return 1 ;; esac
    kill -0 "$pid" 2>/dev/null || return 1
    if [ -r "/proc/$pid/cmdline" ]; then
        tr '\0' ' ' < "/proc/$pid/cmdline" | grep -q 'odm_test_server.py' || return 1
    fi
    echo "$pid"
}

write_uri() {
    local port
    port=$(cat "$dir/port")
    echo "mongodb://127.0.0.1:${port}/?serverSelectionTimeoutMS=5000" > "$dir/uri.tmp.$$"
    mv -f "$dir/uri.tmp.$$" "$dir/uri"
}

do_start() {
    mkdir -p "$dir" || exit 1
    local pid
    if pid=$(running_pid); then
        if [ -s "$dir/port" ]; then
            [ -s "$dir/uri" ] || write_uri
            echo "odm test server already running (pid $pid): $(cat "$dir/uri")"
            exit 0
        fi
        # Half-started leftover: stop it and start afresh.
        do_stop_quiet
    fi
    rm -f "$dir/pid" "$dir/port" "$dir/uri"
    if [ ! -x "$PYTHON" ]; then
        echo "odm test server: $PYTHON not found (install Debian's python3)" >&2
        exit 1
    fi
    nohup "$PYTHON" "$SERVER" --host 127.0.0.1 --port 0 --port-file "$dir/port" \
        > "$dir/server.log" 2>&1 < /dev/null &
    pid=$!
    echo "$pid" > "$dir/pid"
    local waited=0
    while [ ! -s "$dir/port" ]; do
        if ! kill -0 "$pid" 2>/dev/null; then
            echo "odm test server exited during startup; log ($dir/server.log):" >&2
            cat "$dir/server.log" >&2
            rm -f "$dir/pid"
            exit 1
        fi
        if [ "$waited" -ge $((START_TIMEOUT_S * 10)) ]; then
            echo "odm test server did not start within ${START_TIMEOUT_S}s; log ($dir/server.log):" >&2
            cat "$dir/server.log" >&2
            kill -TERM "$pid" 2>/dev/null
            sleep 1
            kill -KILL "$pid" 2>/dev/null
            rm -f "$dir/pid"
            exit 1
        fi
        sleep 0.1
        waited=$((waited + 1))
    done
    write_uri
    echo "odm test server running (pid $pid): $(cat "$dir/uri")"
    exit 0
}

do_stop_quiet() {
    local pid i
    if pid=$(running_pid); then
        kill -TERM "$pid" 2>/dev/null
        for i in $(seq 1 100); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        if kill -0 "$pid" 2>/dev/null; then
            echo "odm test server (pid $pid) did not stop on SIGTERM; killing it" >&2
            kill -KILL "$pid" 2>/dev/null
            for i in $(seq 1 50); do
                kill -0 "$pid" 2>/dev/null || break
                sleep 0.1
            done
        fi
    fi
    rm -f "$dir/pid" "$dir/port" "$dir/uri"
}

case "$action" in
    start) do_start ;;
    stop)
        do_stop_quiet
        echo "odm test server stopped ($dir)"
        exit 0
        ;;
    status)
        if pid=$(running_pid); then
            echo "running (pid $pid): $(cat "$dir/uri" 2>/dev/null)"
            exit 0
        fi
        echo "not running"
        exit 1
        ;;
    *) usage ;;
esac
