#!/usr/bin/env bash
# Installs what is missing, builds odm and runs the whole test suite:
#   1. g++ 12, -O2, warnings as errors: unit, golden, compile-fail, header, install,
#      integration (against the bundled test server, or MONGODB_URI) and example tests;
#   2. clang++ 14, warnings as errors, assertions on: the unit tests (and the header checks);
#   3. AddressSanitizer + UndefinedBehaviorSanitizer: unit and integration tests;
#   4. ThreadSanitizer: the library and the shared-client concurrency test only;
#   5. the libFuzzer targets (tests/fuzz), ODM_FUZZ_SECONDS (default 30) each, from the
#      committed corpus (scripts/fuzz.sh; a longer run is in the README's Testing);
#   6. the integration tests and the examples of the g++ build again, against
#      mongo-java-server (tests/java-server), an engine independent of odm.
# Each tree builds only what it runs. Every compile goes through ccache when it is
# installed (scripts/build_env.sh). Each run lists the tests it skipped, with their
# reasons; the script ends with every run's CTest summary and the wall and CPU time of
# each stage (also in ${ODM_BUILD_ROOT:-build}/logs/stages.tsv, which
# scripts/bench_build.sh reads). Build trees and logs go under ${ODM_BUILD_ROOT:-build}/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --java-server
start=$SECONDS
source scripts/build_env.sh

root=${ODM_BUILD_ROOT:-build}
jobs=${ODM_JOBS:-$(nproc)}
mkdir -p "$root/logs"
summaries=()
failed=0

# Each stage's wall-clock and CPU time (user + system of the processes it waited for).
stages=()
ticks=$(getconf CLK_TCK)
children_cpu() {  # CPU seconds of this shell's finished children so far, in ticks
  local stat
  read -r stat < /proc/$$/stat
  stat=${stat##*) }  # the fields after the command name; cutime and cstime are 14th and 15th
  awk '{ print $14 + $15 }' <<<"$stat"
}
stage_wall=0 stage_cpu=0 stage_name=
stage() {  # name: ends the stage before, if any, and starts this one ("" ends the last)
  local now cpu
  now=$(date +%s.%N) cpu=$(children_cpu)
  if [[ -n "$stage_name" ]]; then
    stages+=("$(awk -v n="$stage_name" -v w="$now" -v w0="$stage_wall" -v c="$cpu" -v c0="$stage_cpu" -v t="$ticks" \
      'BEGIN { printf "%s\t%.0f\t%.0f", n, w - w0, (c - c0) / t }')")
  fi
  stage_name=$1 stage_wall=$now stage_cpu=$cpu
}

configure_and_build() {  # dir, targets ("" for all), extra cmake args...
  local dir=$1 targets=$2; shift 2
  stage "$dir: build"
  cmake -S . -B "$root/$dir" -DODM_WARNINGS_AS_ERRORS=ON "${ODM_LAUNCHER_ARGS[@]}" "$@" >/dev/null
  # shellcheck disable=SC2086  # the targets are words
  cmake --build "$root/$dir" -j"$jobs" ${targets:+--target $targets}
}

# The tests CTest's last run in a build tree skipped, each with the first line of its
# reason (GoogleTest's GTEST_SKIP message, or an example's `SKIPPED: ...`).
skipped_tests() {  # build dir
  awk '/^[0-9]+\/[0-9]+ Test: / { name = $3; reason = ""; next }
       want { if (reason == "") reason = $0; want = 0 }
       /: Skipped$/ { want = 1 }
       /^SKIPPED: / { if (reason == "") reason = substr($0, 10) }
       /^Skip regular expression found/ { print "  " name ": " reason }' \
    "$root/$1/Testing/Temporary/LastTest.log" | sort
}

run_ctest() {  # name, build dir, ctest args...
  local name=$1 dir=$2 log
  shift 2
  stage "$dir: $name"
  log="$root/logs/$(echo "$name" | tr -c 'a-zA-Z0-9+\n' '_').log"
  ctest --test-dir "$root/$dir" -j"$jobs" --output-on-failure "$@" 2>&1 | tee "$log" || failed=1
  local skipped
  skipped=$(skipped_tests "$dir")
  echo "== skipped in \"$name\": ${skipped:+$'\n'}${skipped:-none}"
  summaries+=("$name" "$(grep -E '^[0-9]+% tests passed' "$log" | tail -1 || echo "no CTest summary: see $log")")
}

# Targets of the trees that run some of the tests: the unit tests' binary, the object the
# compiled_once check reads and the cases the GoogleTest launcher's check runs (the clang
# tree adds the header checks: another compiler's view of each header on its own).
unit_targets="odm_unit_tests odm_compiled_once_declared odm_gtest_batch_cases"

echo "== g++: build and full test suite (odm test server)"
configure_and_build gcc "" "${ODM_MAIN_TREE_FLAGS[@]}"
run_ctest "g++, full suite, odm test server" gcc

echo "== clang++ 14: build and unit tests"
# Debug without debug information: assertions on, unoptimized, and the other compiler's
# diagnostics are what this tree is for. With ccache, no precompiled headers: CMake hands
# clang its precompiled header by an absolute path behind -Xclang, which ccache does not
# make relative, and with a timestamp of its own, so no object using it would ever be
# shared with another clone or another build of the header.
clang_pch=()
[[ -n "$ODM_CCACHE_LAUNCHER" ]] && clang_pch=(-DCMAKE_DISABLE_PRECOMPILE_HEADERS=ON)
configure_and_build clang "$unit_targets odm_header_checks" -DCMAKE_CXX_COMPILER=clang++-14 \
  -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-O0 -DODM_BUILD_BENCHMARKS=OFF "${clang_pch[@]}"
run_ctest "clang++ 14, unit tests" clang -L unit

echo "== AddressSanitizer + UndefinedBehaviorSanitizer: unit and integration tests (odm test server)"
# Starting a sanitized test process takes about 0.3 s, most of a typical test's time, so
# each GoogleTest suite runs in one process (tests/gtest_batch/launcher.py: CTest still
# runs and reports each case, and a case is run alone wherever the suite's process proves
# nothing about it); the random order keeps the two CTest slots on different suites.
configure_and_build asan "$unit_targets odm_integration_tests odm_concurrency_tests" -DCMAKE_CXX_COMPILER=g++ \
  -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-O0 $ODM_LINE_TABLES" -DODM_SANITIZE=ON \
  -DODM_BUILD_BENCHMARKS=OFF -DODM_BUILD_EXAMPLES=OFF -DODM_GTEST_BATCHES=ON
batches=$(realpath -m "$root/asan/gtest_batches")
rm -rf "$batches" && mkdir -p "$batches"
ODM_GTEST_BATCH_DIR=$batches ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  run_ctest "ASan+UBSan, unit and integration tests, odm test server" asan -L "unit|integration" --schedule-random

echo "== ThreadSanitizer: the shared-client concurrency test"
# Only odm and the concurrency test are built in this tree.
configure_and_build tsan odm_concurrency_tests -DCMAKE_CXX_COMPILER=g++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 $ODM_LINE_TABLES -DNDEBUG" \
  -DODM_BUILD_BENCHMARKS=OFF -DODM_BUILD_EXAMPLES=OFF \
  -DCMAKE_CXX_FLAGS=-fsanitize=thread -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread
# tests/tsan.supp: libmongoc and libbson are not instrumented; why their reports are false.
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$PWD/tests/tsan.supp" \
  run_ctest "ThreadSanitizer, concurrency test, odm test server" tsan -R '^concurrency\.'

echo "== libFuzzer targets: ${ODM_FUZZ_SECONDS:-30}s each"
stage "fuzz: build and run"
if ODM_JOBS=$jobs scripts/fuzz.sh "${ODM_FUZZ_SECONDS:-30}" "$root/fuzz"; then
  summaries+=("libFuzzer targets, ${ODM_FUZZ_SECONDS:-30}s each" "no crash, leak or sanitizer report")
else
  failed=1
  summaries+=("libFuzzer targets, ${ODM_FUZZ_SECONDS:-30}s each" "FAILED: the input is in $root/fuzz/artifacts/")
fi

if [[ -z "${MONGODB_URI:-}" ]]; then
  echo "== g++: integration tests and examples against mongo-java-server"
  ODM_TEST_ENGINE=java-server run_ctest "g++, integration tests and examples, mongo-java-server" gcc -L "integration|example"
else
  echo "== MONGODB_URI is set: the integration tests ran against that server; mongo-java-server is not started"
fi

stage ""

echo "== time per stage (wall and CPU seconds)"
{
  printf 'stage\twall_s\tcpu_s\n'
  printf '%s\n' "${stages[@]}"
} > "$root/logs/stages.tsv"
awk -F'\t' '{ printf "%-64s %8s %8s\n", $1, $2, $3 }' "$root/logs/stages.tsv"
if [[ -n "$ODM_CCACHE_LAUNCHER" ]]; then
  read -r hits misses < <(ccache_counts)
  echo "== ccache: $hits hits, $misses misses since its statistics were last reset (ccache -z)"
fi

echo "== summary ($((SECONDS - start)) s; logs in $root/logs)"
for ((i = 0; i < ${#summaries[@]}; i += 2)); do
  echo "${summaries[i]}:"
  echo "${summaries[i + 1]}"
done
exit "$failed"
