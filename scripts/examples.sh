#!/usr/bin/env bash
# Installs what is missing, builds the library and the examples (nothing else) and runs
# each example. They store into the server named by MONGODB_URI; without one, a bundled
# engine is started: the odm test server, or mongo-java-server with
# ODM_TEST_ENGINE=java-server.
set -euo pipefail
cd "$(dirname "$0")/.."
engine=${ODM_TEST_ENGINE:-test-server}
case "$engine" in
  test-server) scripts/install-deps.sh; ctl=tests/server/ctl.sh ;;
  java-server) scripts/install-deps.sh --java-server; ctl=tests/java-server/ctl.sh ;;
  *) echo "ODM_TEST_ENGINE=$engine: expected test-server or java-server" >&2; exit 2 ;;
esac

root=${ODM_BUILD_ROOT:-build}
source scripts/build_env.sh
# The same configuration as scripts/test.sh's first build, so either reuses the other's
# work; only the target odm_examples (the library and the examples) is built here.
cmake -S . -B "$root/gcc" "${ODM_MAIN_TREE_FLAGS[@]}" "${ODM_LAUNCHER_ARGS[@]}" -DODM_WARNINGS_AS_ERRORS=ON >/dev/null
cmake --build "$root/gcc" --target odm_examples -j"${ODM_JOBS:-$(nproc)}"

server_dir=
if [[ -z "${MONGODB_URI:-}" ]]; then
  server_dir=$(mktemp -d)
  "$ctl" start "$server_dir"
  trap '"$ctl" stop "$server_dir"' EXIT
  MONGODB_URI=$(cat "$server_dir/uri")
  export MONGODB_URI
fi

for example in "$root"/gcc/examples/example_*; do
  echo "== ${example##*/example_}"
  "$example"
done
tests/crosscheck/run.sh
echo "== every example ran ($SECONDS s)"
