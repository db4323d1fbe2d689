# Start, stop and status of a MongoDB engine running in the background for the tests;
# sourced by tests/server/ctl.sh (odm's test server) and tests/java-server/ctl.sh
# (mongo-java-server). The sourcing script sets
#   ENGINE_NAME             for messages ("odm test server")
#   ENGINE_MATCH            a string in the engine's command line: stop signals a pid only
#                           if it matches, so a reused pid is never killed
#   ENGINE_START_TIMEOUT_S  how long start waits for the port
# defines engine_launch DIR (starts the engine in the background with its output in
# DIR/server.log, tells it to write its port to DIR/port once it listens, and prints its
# pid), then calls engine_ctl "$@". start and stop are idempotent; start writes
# DIR/pid, DIR/port, DIR/uri and DIR/server.log.

engine_usage() {
    echo "usage: $0 start|stop|status DIR" >&2
    exit 2
}

# The pid in DIR/pid if it is alive and is our engine.
engine_running_pid() {
    local pid
    [ -f "$dir/pid" ] || return 1
    pid=$(cat "$dir/pid" 2>/dev/null) || return 1
    case "$pid" in ''|*[!0-9]*) return 1 ;; esac
    kill -0 "$pid" 2>/dev/null || return 1
    if [ -r "/proc/$pid/cmdline" ]; then
        tr '\0' ' ' < "/proc/$pid/cmdline" | grep -qF -- "$ENGINE_MATCH" || return 1
    fi
    echo "$pid"
}

engine_write_uri() {
    echo "mongodb://127.0.0.1:$(cat "$dir/port")/?serverSelectionTimeoutMS=5000" > "$dir/uri.tmp.$$"
    mv -f "$dir/uri.tmp.$$" "$dir/uri"
}

engine_wait_gone() {  # pid, tenths of a second
    local i
    for i in $(seq 1 "$2"); do
        kill -0 "$1" 2>/dev/null || return 0
        sleep 0.1
    done
    return 1
}

engine_stop_quiet() {
    local pid
    if pid=$(engine_running_pid); then
        kill -TERM "$pid" 2>/dev/null
        if ! engine_wait_gone "$pid" 100; then
            echo "$ENGINE_NAME (pid $pid) did not stop on SIGTERM; killing it" >&2
            kill -KILL "$pid" 2>/dev/null
            engine_wait_gone "$pid" 50
        fi
    fi
    rm -f "$dir/pid" "$dir/port" "$dir/uri"
}

engine_start() {
    mkdir -p "$dir" || exit 1
    local pid waited=0
    if pid=$(engine_running_pid); then
        if [ -s "$dir/port" ]; then
            [ -s "$dir/uri" ] || engine_write_uri
            echo "$ENGINE_NAME already running (pid $pid): $(cat "$dir/uri")"
            exit 0
        fi
        engine_stop_quiet  # a half-started leftover: start afresh
    fi
    rm -f "$dir/pid" "$dir/port" "$dir/uri"
    pid=$(engine_launch "$dir") || exit 1
    echo "$pid" > "$dir/pid"
    while [ ! -s "$dir/port" ]; do
        if ! kill -0 "$pid" 2>/dev/null; then
            echo "$ENGINE_NAME exited during startup; log ($dir/server.log):" >&2
            cat "$dir/server.log" >&2
            rm -f "$dir/pid"
            exit 1
        fi
        if [ "$waited" -ge $((ENGINE_START_TIMEOUT_S * 10)) ]; then
            echo "$ENGINE_NAME did not start within ${ENGINE_START_TIMEOUT_S}s; log ($dir/server.log):" >&2
            cat "$dir/server.log" >&2
            kill -TERM "$pid" 2>/dev/null
            engine_wait_gone "$pid" 10 || kill -KILL "$pid" 2>/dev/null
            rm -f "$dir/pid"
            exit 1
        fi
        sleep 0.1
        waited=$((waited + 1))
    done
    engine_write_uri
    echo "$ENGINE_NAME running (pid $pid): $(cat "$dir/uri")"
    exit 0
}

engine_ctl() {
    [ $# -eq 2 ] || engine_usage
    local action=$1
    dir=$2
    local pid
    case "$action" in
        start) engine_start ;;
        stop)
            engine_stop_quiet
            echo "$ENGINE_NAME stopped ($dir)"
            exit 0
            ;;
        status)
            if pid=$(engine_running_pid); then
                echo "running (pid $pid): $(cat "$dir/uri" 2>/dev/null)"
                exit 0
            fi
            echo "not running"
            exit 1
            ;;
        *) engine_usage ;;
    esac
}
