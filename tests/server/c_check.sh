#!/bin/bash
# Build c_check.c against the system libmongoc (libmongoc-dev) and run it
# against a freshly started odm test server.  Exits with c_check's status.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/odm-c-check.XXXXXX")
cleanup() {
    "$HERE/ctl.sh" stop "$WORK/server" > /dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
# shellcheck disable=SC2046
gcc -Wall -Wextra -o "$WORK/c_check" "$HERE/c_check.c" \
    $(pkg-config --cflags --libs libmongoc-1.0) -lpthread || exit 1
"$HERE/ctl.sh" start "$WORK/server" || exit 1
"$WORK/c_check" "$(cat "$WORK/server/uri")"
rc=$?
if [ $rc -ne 0 ]; then
    echo "--- server log ---"
    cat "$WORK/server/server.log"
fi
exit $rc
