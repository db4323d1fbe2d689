#!/bin/sh
# odm's client-side CPU per operation against hand-written libmongoc code
# (benchmarks/driver_bench.cpp), on the odm test server.
#
#   scripts/bench_driver.sh [BUILD_DIR] [ITERATIONS] [ITERATIONS_FIND_1000]
#
# 1. configures and builds driver_bench in BUILD_DIR (default: build-bench), Release -O2;
# 2. starts the odm test server (tests/server/ctl.sh start BUILD_DIR/driver-server) and
#    stops it on exit, unless MONGODB_URI is set (then that server is used);
# 3. runs the Google Benchmark program briefly (wall-clock and CPU time; the Python server
#    dominates the wall-clock time, so only the CPU column says anything about the client);
# 4. runs every case under `valgrind --tool=callgrind` twice, with N iterations (default 500
#    for insert_one, find_by_id and update_inc, 20 for find_1000) and with 0 iterations; both runs do
#    the same startup, connection and one warm-up operation, so the difference of the
#    instruction totals divided by N is the client's instructions per operation, the
#    median of BENCH_DRIVER_REPEATS (default 3) such pairs. callgrind counts the benchmark
#    process only (every thread of it), not the server;
# 5. prints, per operation: odm's instructions per operation; the honest hand-written
#    baseline's (libmongoc: one client and collection handle kept per thread) and odm's
#    ratio to it (issue 12's target: at most 1.05, and 1.0 for insert_one); the second
#    baseline's (libmongoc_pooled: a client popped and a collection handle made per
#    operation) and odm's ratio to that; for the reads, the honest baseline with its
#    decoder's UTF-8 validation off (plain: libbson's checks only) and odm's ratio to
#    that; and the CPU nanoseconds per operation of the
#    Google Benchmark run for odm and the honest baseline.
#
# The profiles stay in BUILD_DIR/callgrind-driver/CASE.out, for example
#   callgrind_annotate --inclusive=yes BUILD_DIR/callgrind-driver/find_by_id_odm.out
# Set BENCH_DRIVER_SKIP_BUILD=1 to reuse a build, BENCH_DRIVER_SKIP_TIMING=1 to skip step 3.
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build-bench}
iterations=${2:-500}
iterations_many=${3:-20}
repeats=${BENCH_DRIVER_REPEATS:-3}

command -v valgrind >/dev/null 2>&1 || { echo "bench_driver.sh: valgrind is not installed" >&2; exit 1; }

if [ "${BENCH_DRIVER_SKIP_BUILD:-0}" != 1 ]; then
  cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" \
    -DODM_BUILD_TESTS=OFF -DODM_BUILD_EXAMPLES=OFF -DODM_BUILD_BENCHMARKS=ON >/dev/null
  cmake --build "$build" --target driver_bench -j2
fi
build=$(cd "$build" && pwd)
bin=$build/benchmarks/driver_bench
[ -x "$bin" ] || { echo "bench_driver.sh: $bin was not built" >&2; exit 1; }

if [ -z "${MONGODB_URI:-}" ]; then
  server=$build/driver-server
  trap '"$src/tests/server/ctl.sh" stop "$server" >/dev/null' EXIT
  trap 'exit 130' INT TERM
  "$src/tests/server/ctl.sh" start "$server"
  MONGODB_URI=$(cat "$server/uri")
fi
export MONGODB_URI

# Make the collections once, outside any measurement: the first run against a fresh server
# inserts the 1,000 products, which would otherwise land in one case's 0-iteration run.
"$bin" --callgrind-case=find_by_id_odm --iterations=0 >/dev/null

timings=$build/driver_bench_timings.csv
if [ "${BENCH_DRIVER_SKIP_TIMING:-0}" != 1 ]; then
  echo "== Google Benchmark (the CPU column is the client's; wall-clock includes the Python server) =="
  # Debian bookworm's Google Benchmark 1.7.1 takes the minimum time as plain seconds.
  "$bin" --benchmark_min_time=0.2 --benchmark_out="$timings" --benchmark_out_format=csv
  echo
else
  : >"$timings"
fi

# CPU nanoseconds per operation of BM_<case>, or "-".
ns_per_op() {
  awk -F, -v name="\"BM_$1\"" '$1 == name { printf "%.0f", $4; found = 1 } END { if (!found) printf "-" }' "$timings"
}

out_dir=$build/callgrind-driver
mkdir -p "$out_dir"
# Instruction total of one callgrind run of `case` with `n` iterations.
instructions() {
  out=$out_dir/$1.$2.out
  valgrind --tool=callgrind --callgrind-out-file="$out" "$bin" --callgrind-case="$1" --iterations="$2" \
    >/dev/null 2>"$out_dir/$1.$2.log" || { cat "$out_dir/$1.$2.log" >&2; exit 1; }
  awk '/^summary:/ { print $2 }' "$out"
}

# Instructions per operation of `case` over `n` iterations: the median of $repeats
# measurements (heap state and the pools' background threads vary a little between runs).
per_op() {
  values=
  r=0
  while [ "$r" -lt "$repeats" ]; do
    zero=$(instructions "$1" 0)
    full=$(instructions "$1" "$2")
    values="$values $(awk -v a="$full" -v b="$zero" -v n="$2" 'BEGIN { printf "%.0f", (a - b) / n }')"
    r=$((r + 1))
  done
  mv "$out_dir/$1.$2.out" "$out_dir/$1.out"
  mv "$out_dir/$1.0.out" "$out_dir/$1.zero.out"
  echo "$values" | tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

ratio() {
  awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.3f", a / b }'
}

echo "== callgrind: client instructions per operation (N iterations minus a 0-iteration run) =="
echo "   libmongoc: hand-written, one client and collection handle kept per thread (the target's baseline)"
echo "   pooled:    hand-written, a client popped and a collection handle made per operation"
table=$(
  printf '%-11s %5s %12s %12s %7s %12s %7s %12s %7s   %9s %9s\n' operation N "odm Ir/op" "libmongoc" ratio "pooled" ratio \
    "plain" ratio "odm ns" "mongoc ns"
  for operation in insert_one find_by_id find_1000 update_inc; do
    n=$iterations
    [ "$operation" = find_1000 ] && n=$iterations_many
    odm=$(per_op "${operation}_odm" "$n")
    c=$(per_op "${operation}_libmongoc" "$n")
    pooled=$(per_op "${operation}_libmongoc_pooled" "$n")
    plain=-
    if "$bin" --list-cases | grep -qx "${operation}_libmongoc_plain"; then plain=$(per_op "${operation}_libmongoc_plain" "$n"); fi
    printf '%-11s %5s %12s %12s %7s %12s %7s %12s %7s   %9s %9s\n' "$operation" "$n" "$odm" "$c" "$(ratio "$odm" "$c")" \
      "$pooled" "$(ratio "$odm" "$pooled")" "$plain" "$(ratio "$odm" "$plain")" "$(ns_per_op "${operation}_odm")" \
      "$(ns_per_op "${operation}_libmongoc")"
  done
)
echo "$table"
