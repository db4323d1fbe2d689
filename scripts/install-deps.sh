#!/usr/bin/env bash
# Installs the Debian bookworm packages odm builds, tests and runs with, if any are
# missing. Needs root (apt-get). Safe to run again: it does nothing when all are there.
#   scripts/install-deps.sh               what the build, the tests and the test server need
#   scripts/install-deps.sh --java-server and a JDK and Maven for mongo-java-server
set -euo pipefail

packages=(
  g++ clang-14 cmake make pkg-config           # compilers and build
  libclang-rt-14-dev                           # clang 14's sanitizer and libFuzzer runtimes (scripts/fuzz.sh)
  libmongoc-dev libbson-dev                    # MongoDB's C driver 1.23 (mongoc-1.0, bson-1.0)
  libboost1.81-dev                             # Boost.PFR and Boost.Multiprecision (1.74 has no PFR)
  libgtest-dev libbenchmark-dev                # GoogleTest, Google Benchmark
  time                                         # /usr/bin/time for scripts/bench_compile.sh
  ccache                                       # the compiler cache every build uses (scripts/build_env.sh)
  python3-mockupdb python3-mongomock python3-pymongo   # the wire-protocol test server
)
for arg in "$@"; do
  case "$arg" in
    --java-server) packages+=(openjdk-17-jdk-headless maven) ;;  # tests/java-server (jars: Maven Central)
    *) echo "usage: $0 [--java-server]" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "odm: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
