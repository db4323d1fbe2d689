#!/usr/bin/env bash
# Installs what is missing, builds the examples and runs each of them. They store into
# the server named by MONGODB_URI; without one, the bundled test server is started.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh

root=${ODM_BUILD_ROOT:-build}
# The same configuration as scripts/test.sh's first build, so either reuses the other's.
cmake -S . -B "$root/gcc" -DCMAKE_CXX_COMPILER=g++ -DCMAKE_BUILD_TYPE=RelWithDebInfo -DODM_WARNINGS_AS_ERRORS=ON >/dev/null
cmake --build "$root/gcc" -j"${ODM_JOBS:-$(nproc)}"

server_dir=
if [[ -z "${MONGODB_URI:-}" ]]; then
  server_dir=$(mktemp -d)
  tests/server/ctl.sh start "$server_dir"
  trap 'tests/server/ctl.sh stop "$server_dir"' EXIT
  MONGODB_URI=$(cat "$server_dir/uri")
  export MONGODB_URI
fi

for example in "$root"/gcc/examples/example_*; do
  echo "== ${example##*/example_}"
  "$example"
done
tests/crosscheck/run.sh
