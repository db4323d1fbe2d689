#!/usr/bin/env bash
# Builds odm's libFuzzer targets (tests/fuzz: clang 14, -fsanitize=fuzzer,address,undefined)
# and runs each one for a while, starting from the committed seed corpus.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [BUILD_DIR] [TARGET...]
#
# SECONDS_PER_TARGET defaults to 60, BUILD_DIR to build/fuzz, the targets to all four:
#   fuzz_from_bson       from_bson<T> on raw bytes, for models of every member kind
#   fuzz_from_json       from_json<T> and Document::from_json on text
#   fuzz_document_json   Document::from_bytes -> to_json -> from_json
#   fuzz_decimal         odm::Decimal's parser against libbson's
# Each target reads tests/fuzz/corpus/TARGET (the committed seeds and every input that
# ever crashed, kept as regression cases) and BUILD_DIR/corpus/TARGET, where it keeps
# what it finds. A crash stops the script with a non-zero status; libFuzzer prints the
# input's path (BUILD_DIR/artifacts/TARGET-crash-...): run the target on that file to
# reproduce it, and add the file to tests/fuzz/corpus/TARGET once fixed. Set
# ODM_FUZZ_JOBS=N to run N processes of each target (libFuzzer's -jobs).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh

seconds=${1:-60}
build=${2:-build/fuzz}
shift $(( $# < 2 ? $# : 2 ))
targets=("$@")
((${#targets[@]})) || targets=(fuzz_from_bson fuzz_from_json fuzz_document_json fuzz_decimal)
jobs=${ODM_JOBS:-$(nproc)}

source scripts/build_env.sh
# RelWithDebInfo: a crash's stack names files and lines.
cmake -S . -B "$build" -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE=RelWithDebInfo -DODM_BUILD_FUZZERS=ON \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g $ODM_DEBUG_PREFIX_MAP -DNDEBUG" "${ODM_LAUNCHER_ARGS[@]}" \
  -DODM_WARNINGS_AS_ERRORS=ON -DODM_BUILD_TESTS=OFF -DODM_BUILD_EXAMPLES=OFF -DODM_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build "$build" -j"$jobs" --target "${targets[@]}"

# The targets run side by side, ODM_JOBS at a time (each libFuzzer process uses one core;
# with ODM_FUZZ_JOBS, one target at a time); each one's output goes to
# BUILD_DIR/logs/TARGET.log and is printed when it ends.
mkdir -p "$build/artifacts" "$build/logs"
parallel=$jobs
[[ -n "${ODM_FUZZ_JOBS:-}" ]] && parallel=1
run_target() {  # target
  local target=$1 dictionary=()
  mkdir -p "$build/corpus/$target"
  [ -f "tests/fuzz/$target.dict" ] && dictionary=(-dict="tests/fuzz/$target.dict")
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "$build/tests/fuzz/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -print_final_stats=1 -artifact_prefix="$build/artifacts/$target-" "${dictionary[@]}" \
    ${ODM_FUZZ_JOBS:+-jobs="$ODM_FUZZ_JOBS" -workers="$ODM_FUZZ_JOBS"} \
    "$build/corpus/$target" "tests/fuzz/corpus/$target" >"$build/logs/$target.log" 2>&1
}
report() {  # target, status
  echo "== $1: ${seconds}s ($([[ $2 == 0 ]] && echo passed || echo "FAILED, status $2"))"
  cat "$build/logs/$1.log"
}
declare -A pids=()
failed=0
finish_one() {  # waits for any running target and reports it
  local pid status=0 target
  wait -n -p pid "${!pids[@]}" || status=$?
  target=${pids[$pid]}
  unset "pids[$pid]"
  report "$target" "$status"
  ((status == 0)) || failed=1
}
for target in "${targets[@]}"; do
  ((${#pids[@]} < parallel)) || finish_one
  run_target "$target" &
  pids[$!]=$target
done
while ((${#pids[@]})); do finish_one; done
exit "$failed"
