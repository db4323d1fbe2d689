#!/bin/bash
# Which lines of the test server the C++ suite reaches: runs the integration tests and
# every example of a build tree against one server started under python3-coverage
# (Debian's python3-coverage), then prints the report.
#
#   tests/server/coverage.sh BUILD_DIR [OUT_DIR]
#
# BUILD_DIR is a configured and built tree (e.g. build/gcc). OUT_DIR (default
# BUILD_DIR/server-coverage) gets the data file, server.log and report.txt (with the
# unreached line numbers). This measures; it is no test and asserts nothing.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ $# -ge 1 ] || { echo "usage: $0 BUILD_DIR [OUT_DIR]" >&2; exit 2; }
build=$(cd "$1" && pwd)
out=${2:-$build/server-coverage}
mkdir -p "$out"
out=$(cd "$out" && pwd)
python=/usr/bin/python3
if ! "$python" -m coverage --version >/dev/null 2>&1; then
  echo "coverage: install Debian's python3-coverage (apt-get install python3-coverage)" >&2
  exit 1
fi
rm -f "$out/.coverage" "$out/port"

# Only the server's own modules are measured.
"$python" -m coverage run --data-file="$out/.coverage" --include="$HERE/odm_*.py" \
  "$HERE/odm_test_server.py" --port-file "$out/port" >"$out/server.log" 2>&1 &
pid=$!
trap 'kill -TERM $pid 2>/dev/null || true' EXIT
for _ in $(seq 150); do [ -s "$out/port" ] && break; sleep 0.1; done
[ -s "$out/port" ] || { cat "$out/server.log" >&2; exit 1; }
export MONGODB_URI="mongodb://127.0.0.1:$(cat "$out/port")/?serverSelectionTimeoutMS=5000"
unset ODM_TEST_SERVER_URI_FILE

status=0
"$build/tests/driver/odm_integration_tests" --gtest_brief=1 || status=$?
for example in "$build"/examples/example_*; do
  "$example" >/dev/null || { echo "coverage: ${example##*/} failed" >&2; status=1; }
done

kill -TERM $pid
wait $pid || true
trap - EXIT
"$python" -m coverage report --data-file="$out/.coverage" -m | tee "$out/report.txt"
exit $status
