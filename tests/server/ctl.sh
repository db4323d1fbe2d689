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
ENGINE_NAME="odm test server"
ENGINE_MATCH=odm_test_server.py
ENGINE_START_TIMEOUT_S=15
. "$HERE/../engine_ctl.sh"

engine_launch() {  # DIR
    if [ ! -x "$PYTHON" ]; then
        echo "odm test server: $PYTHON not found (install Debian's python3)" >&2
        return 1
    fi
    nohup "$PYTHON" "$SERVER" --host 127.0.0.1 --port 0 --port-file "$1/port" \
        > "$1/server.log" 2>&1 < /dev/null &
    echo $!
}

engine_ctl "$@"
