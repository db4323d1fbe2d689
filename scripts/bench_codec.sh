#!/bin/sh
# odm's codec against hand-written libbson code (benchmarks/codec_bench.cpp).
#
#   scripts/bench_codec.sh [BUILD_DIR] [ITERATIONS]
#
# 1. configures and builds codec_bench in BUILD_DIR (default: build-bench), Release -O2;
# 2. runs the Google Benchmark program (3 repetitions of >= 0.2 s each; medians reported);
# 3. runs every case under `valgrind --tool=callgrind` twice, with ITERATIONS (default 2000)
#    and with 0 iterations, and divides the difference of the instruction totals by
#    ITERATIONS: instructions per operation, without the startup cost;
# 4. prints a table: instructions/op and ns/op of odm and of the hand-written code, and the
#    ratios odm / hand-written (the issue's target: <= 1.10); for codec_bench also the
#    "plain" hand-written code, which leaves UTF-8 to libbson's own checks (issue 11's
#    baseline: odm validates every string, so this is the stricter comparison).
#
# The callgrind profiles stay in BUILD_DIR/callgrind/CASE.out for
#   callgrind_annotate --inclusive=no BUILD_DIR/callgrind/decode_flat_odm.out
# Set BENCH_CODEC_SKIP_BUILD=1 to reuse an existing build, BENCH_CODEC_SKIP_TIMING=1 to
# skip step 2. Another program of benchmarks/ with the same cases (WORKLOAD_odm and
# WORKLOAD_handwritten) is measured the same way with BENCH_PROGRAM=NAME
# BENCH_WORKLOADS="WORKLOAD ..." (scripts/bench_pipeline.sh), and one whose cases compare
# something else with BENCH_SUBJECT and BENCH_BASELINE naming the cases' suffixes
# (scripts/bench_tagged_variant.sh: WORKLOAD_variant against WORKLOAD_alternative).
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build-bench}
iterations=${2:-2000}
program=${BENCH_PROGRAM:-codec_bench}
workloads=${BENCH_WORKLOADS:-encode_product decode_product encode_flat decode_flat decode_flat_reversed}
subject=${BENCH_SUBJECT:-odm}
baseline=${BENCH_BASELINE:-handwritten}

command -v valgrind >/dev/null 2>&1 || { echo "bench_codec.sh: valgrind is not installed" >&2; exit 1; }

if [ "${BENCH_CODEC_SKIP_BUILD:-0}" != 1 ]; then
  cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" \
    -DODM_BUILD_TESTS=OFF -DODM_BUILD_EXAMPLES=OFF -DODM_BUILD_BENCHMARKS=ON >/dev/null
  cmake --build "$build" --target "$program" -j2
fi
bin=$build/benchmarks/$program
[ -x "$bin" ] || { echo "bench_codec.sh: $bin was not built" >&2; exit 1; }

timings=$build/${program}_timings.csv
if [ "${BENCH_CODEC_SKIP_TIMING:-0}" != 1 ]; then
  echo "== Google Benchmark (wall-clock; noisy on a shared machine) =="
  # Debian bookworm's Google Benchmark 1.7.1 takes the minimum time as plain seconds
  # (1.8 and later also accept "0.2s").
  "$bin" --benchmark_min_time=0.2 --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
    --benchmark_out="$timings" --benchmark_out_format=csv
  echo
else
  : >"$timings"
fi

# CPU nanoseconds per operation of BM_<case> (the median of the repetitions), or "-".
ns_per_op() {
  awk -F, -v name="\"BM_$1_median\"" '$1 == name { printf "%.0f", $4; found = 1 } END { if (!found) printf "-" }' "$timings"
}

mkdir -p "$build/callgrind"
# Instruction total of one callgrind run of `case` with `n` iterations.
instructions() {
  out=$build/callgrind/$1.$2.out
  valgrind --tool=callgrind --callgrind-out-file="$out" "$bin" --callgrind-case="$1" --iterations="$2" \
    >/dev/null 2>"$build/callgrind/$1.$2.log" || { cat "$build/callgrind/$1.$2.log" >&2; exit 1; }
  awk '/^summary:/ { print $2 }' "$out"
}

# Instructions per operation of `case`.
per_op() {
  zero=$(instructions "$1" 0)
  full=$(instructions "$1" "$iterations")
  mv "$build/callgrind/$1.$iterations.out" "$build/callgrind/$1.out"
  rm -f "$build/callgrind/$1.0.out"
  awk -v a="$full" -v b="$zero" -v n="$iterations" 'BEGIN { printf "%.0f", (a - b) / n }'
}

ratio() {
  awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.3f", a / b }'
}

echo "== callgrind: instructions per operation ($iterations iterations minus a 0-iteration run) =="
table=$(
  printf '%-20s %12s %12s %7s %12s %7s   %9s %9s %7s\n' case "$subject Ir/op" "$baseline Ir/op" ratio "plain Ir/op" \
    ratio "$subject ns" "$baseline ns" ratio
  for workload in $workloads; do
    if ! "$bin" --list-cases | grep -qx "${workload}_$subject"; then
      printf '%-20s %14s\n' "$workload" "(not a case of this build: odm/fields/money.hpp missing, or an older tree)"
      continue
    fi
    odm=$(per_op "${workload}_$subject")
    hand=$(per_op "${workload}_$baseline")
    plain=-
    if "$bin" --list-cases | grep -qx "${workload}_${baseline}_plain"; then
      plain=$(per_op "${workload}_${baseline}_plain")
    fi
    odm_ns=$(ns_per_op "${workload}_$subject")
    hand_ns=$(ns_per_op "${workload}_$baseline")
    printf '%-20s %12s %12s %7s %12s %7s   %9s %9s %7s\n' "$workload" "$odm" "$hand" "$(ratio "$odm" "$hand")" \
      "$plain" "$(ratio "$odm" "$plain")" "$odm_ns" "$hand_ns" "$(ratio "$odm_ns" "$hand_ns")"
  done
)
echo "$table"
