#!/usr/bin/env bash
# Installs what is missing, builds odm and runs the whole test suite:
#   1. g++ 12, warnings as errors: unit, golden, compile-fail, header, install,
#      integration (against the bundled test server, or MONGODB_URI) and example tests;
#   2. clang++ 14, warnings as errors: the same build, unit tests run;
#   3. AddressSanitizer + UndefinedBehaviorSanitizer: unit and integration tests;
#   4. ThreadSanitizer: the library and the shared-client concurrency test only;
#   5. the libFuzzer targets (tests/fuzz), ODM_FUZZ_SECONDS (default 30) each, from the
#      committed corpus (scripts/fuzz.sh; a longer run is in the README's Testing);
#   6. the integration tests and the examples of the g++ build again, against
#      mongo-java-server (tests/java-server), an engine independent of odm.
# Each run lists the tests it skipped, with their reasons; the script ends with every
# run's CTest summary. Build trees and logs go under ${ODM_BUILD_ROOT:-build}/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --java-server
start=$SECONDS

root=${ODM_BUILD_ROOT:-build}
jobs=${ODM_JOBS:-$(nproc)}
mkdir -p "$root/logs"
summaries=()
failed=0

configure_and_build() {  # dir, extra cmake args...
  local dir=$1; shift
  cmake -S . -B "$root/$dir" -DODM_WARNINGS_AS_ERRORS=ON "$@" >/dev/null
  cmake --build "$root/$dir" -j"$jobs"
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
  log="$root/logs/$(echo "$name" | tr -c 'a-zA-Z0-9+\n' '_').log"
  ctest --test-dir "$root/$dir" -j"$jobs" --output-on-failure "$@" 2>&1 | tee "$log" || failed=1
  local skipped
  skipped=$(skipped_tests "$dir")
  echo "== skipped in \"$name\": ${skipped:+$'\n'}${skipped:-none}"
  summaries+=("$name" "$(grep -E '^[0-9]+% tests passed' "$log" | tail -1 || echo "no CTest summary: see $log")")
}

echo "== g++: build and full test suite (odm test server)"
configure_and_build gcc -DCMAKE_CXX_COMPILER=g++ -DCMAKE_BUILD_TYPE=RelWithDebInfo
run_ctest "g++, full suite, odm test server" gcc

echo "== clang++ 14: build and unit tests"
configure_and_build clang -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE=Debug -DODM_BUILD_BENCHMARKS=OFF
run_ctest "clang++ 14, unit tests" clang -L unit

echo "== AddressSanitizer + UndefinedBehaviorSanitizer: unit and integration tests (odm test server)"
configure_and_build asan -DCMAKE_CXX_COMPILER=g++ -DCMAKE_BUILD_TYPE=Debug -DODM_SANITIZE=ON \
  -DODM_BUILD_BENCHMARKS=OFF -DODM_BUILD_EXAMPLES=OFF
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  run_ctest "ASan+UBSan, unit and integration tests, odm test server" asan -L "unit|integration"

echo "== ThreadSanitizer: the shared-client concurrency test"
# Only odm and the concurrency test are built in this tree.
cmake -S . -B "$root/tsan" -DODM_WARNINGS_AS_ERRORS=ON -DCMAKE_CXX_COMPILER=g++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DODM_BUILD_BENCHMARKS=OFF -DODM_BUILD_EXAMPLES=OFF \
  -DCMAKE_CXX_FLAGS=-fsanitize=thread -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread >/dev/null
cmake --build "$root/tsan" --target odm_concurrency_tests -j"$jobs"
# tests/tsan.supp: libmongoc and libbson are not instrumented; why their reports are false.
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$PWD/tests/tsan.supp" \
  run_ctest "ThreadSanitizer, concurrency test, odm test server" tsan -R '^concurrency\.'

echo "== libFuzzer targets: ${ODM_FUZZ_SECONDS:-30}s each"
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

echo "== summary ($((SECONDS - start)) s; logs in $root/logs)"
for ((i = 0; i < ${#summaries[@]}; i += 2)); do
  echo "${summaries[i]}:"
  echo "${summaries[i + 1]}"
done
exit "$failed"
