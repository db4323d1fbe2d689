#!/usr/bin/env bash
# Installs what is missing, builds odm and runs the whole test suite:
#   1. g++ 12, warnings as errors: unit, golden, compile-fail, header, install,
#      integration (against the bundled test server, or MONGODB_URI) and example tests;
#   2. clang++ 14, warnings as errors: the same build, unit tests run;
#   3. AddressSanitizer + UndefinedBehaviorSanitizer: unit and integration tests;
#   4. the libFuzzer targets (tests/fuzz), ODM_FUZZ_SECONDS (default 30) each, from the
#      committed corpus (scripts/fuzz.sh; a longer run is in the README's Testing).
# Build trees go under ${ODM_BUILD_ROOT:-build}/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh

root=${ODM_BUILD_ROOT:-build}
jobs=${ODM_JOBS:-$(nproc)}

configure_and_build() {  # dir, extra cmake args...
  local dir=$1; shift
  cmake -S . -B "$root/$dir" -DODM_WARNINGS_AS_ERRORS=ON "$@" >/dev/null
  cmake --build "$root/$dir" -j"$jobs"
}

echo "== g++: build and full test suite"
configure_and_build gcc -DCMAKE_CXX_COMPILER=g++ -DCMAKE_BUILD_TYPE=RelWithDebInfo
ctest --test-dir "$root/gcc" -j"$jobs" --output-on-failure

echo "== clang++ 14: build and unit tests"
configure_and_build clang -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE=Debug -DODM_BUILD_BENCHMARKS=OFF
ctest --test-dir "$root/clang" -j"$jobs" --output-on-failure -L unit

echo "== AddressSanitizer + UndefinedBehaviorSanitizer: unit and integration tests"
configure_and_build asan -DCMAKE_CXX_COMPILER=g++ -DCMAKE_BUILD_TYPE=Debug -DODM_SANITIZE=ON \
  -DODM_BUILD_BENCHMARKS=OFF -DODM_BUILD_EXAMPLES=OFF
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir "$root/asan" -j"$jobs" --output-on-failure -L "unit|integration"

echo "== libFuzzer targets: ${ODM_FUZZ_SECONDS:-30}s each"
ODM_JOBS=$jobs scripts/fuzz.sh "${ODM_FUZZ_SECONDS:-30}" "$root/fuzz"
