#!/usr/bin/env bash
# What the team's loop costs: CI from a clean clone, and a header edit to the unit tests'
# result.
#
#   scripts/bench_build.sh [--cold | --warm] [--commit REV] [--runs N] [--no-edits] [WORK_DIR]
#
# Each run (N of them, default 1; the report gives medians):
#  1. clones REV (default HEAD) of this repository into WORK_DIR/run-K (default
#     WORK_DIR: /tmp/odm-bench-build), a folder no build has used;
#  2. runs `bash .ci/run` there as CI does (CI=true, no standard input), with ccache's
#     cache either empty (--cold: a cache of its own in WORK_DIR/run-K/ccache, as on a
#     fresh machine, the default) or the one this machine's builds left (--warm: the
#     default cache, as for CI after a developer's session on the same machine), and
#     keeps its wall time, the stages' wall and CPU times (build/logs/stages.tsv, written
#     by scripts/test.sh) and ccache's hits and misses during the run (counted from its
#     statistics, which are not reset: with --warm, other builds at the same time count);
#  3. unless --no-edits, in that clone's g++ tree, for include/odm/driver/collection.hpp
#     and include/odm/bson/record.hpp each: the time from touching the header (a new
#     mtime, the same text) and, separately, from editing it (one declaration appended,
#     so no cache can answer) to the unit tests' result (building odm_unit_tests and
#     `ctest -L unit`), the edit undone after.
# Prints a table; WORK_DIR/report.tsv holds the same figures. Wall-clock figures depend
# on the machine's load: run it on an idle machine (2 cores for the README's figures).
set -euo pipefail

mode=cold
rev=HEAD
runs=1
edits=1
while (($#)); do
  case "$1" in
    --cold) mode=cold; shift ;;
    --warm) mode=warm; shift ;;
    --commit) rev=$2; shift 2 ;;
    --runs) runs=${2:-}; shift $(( $# < 2 ? $# : 2 )) ;;
    --no-edits) edits=0; shift ;;
    -*) echo "usage: $0 [--cold | --warm] [--commit REV] [--runs N] [--no-edits] [WORK_DIR]" >&2; exit 2 ;;
    *) break ;;
  esac
done
if ! [[ "$runs" =~ ^[1-9][0-9]*$ ]]; then
  echo "bench_build.sh: --runs takes a positive number of runs, not '$runs'" >&2
  exit 2
fi
src=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-/tmp/odm-bench-build}
commit=$(git -C "$src" rev-parse --verify "$rev^{commit}")
mkdir -p "$work"
work=$(cd "$work" && pwd)  # the runs cd into their clones
warm_cache=${CCACHE_DIR:-}  # --warm: the cache this machine's builds use
report=$work/report.tsv
printf 'run\tmeasure\tseconds\n' > "$report"

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }'; }
record() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >> "$report"; }

# ccache's hits and misses so far (its statistics are not reset: other builds may run),
# read in a subshell so that build_env.sh's settings stay out of this script's own.
ccache_counts() { (cd "$src" && source scripts/build_env.sh && ccache_counts); }

# Builds the unit tests and runs them in the clone's g++ tree; prints the seconds taken.
unit_loop() {  # clone
  local t0
  t0=$(now)
  (cd "$1" && source scripts/build_env.sh &&
     cmake --build build/gcc --target odm_unit_tests odm_compiled_once_declared -j"$(nproc)" >/dev/null &&
     ctest --test-dir build/gcc -L unit -j"$(nproc)" >/dev/null) || { echo "the unit tests failed in $1" >&2; return 1; }
  elapsed "$t0"
}

for ((k = 1; k <= runs; k++)); do
  clone=$work/run-$k
  rm -rf "$clone"
  git clone -q --no-local "$src" "$clone"
  git -C "$clone" checkout -q "$commit"
  if [[ $mode == cold ]]; then
    export CCACHE_DIR=$clone/ccache
  elif [[ -n "$warm_cache" ]]; then
    export CCACHE_DIR=$warm_cache
  else
    unset CCACHE_DIR
  fi
  read -r hits0 misses0 < <(ccache_counts)
  echo "== run $k of $runs: bash .ci/run in $clone ($mode cache), commit ${commit:0:12}"
  t0=$(now)
  if ! (cd "$clone" && CI=true bash .ci/run </dev/null >"$work/run-$k.log" 2>&1); then
    echo ".ci/run failed: see $work/run-$k.log" >&2
    exit 1
  fi
  record "$k" "ci_run_wall" "$(elapsed "$t0")"
  tail -n +2 "$clone/build/logs/stages.tsv" | while IFS=$'\t' read -r name wall cpu; do
    record "$k" "$name (wall)" "$wall"
    record "$k" "$name (cpu)" "$cpu"
  done
  read -r hits misses < <(ccache_counts)
  hits=$((hits - hits0)) misses=$((misses - misses0))
  record "$k" "ccache hits" "$hits"
  record "$k" "ccache misses" "$misses"
  record "$k" "ccache hit rate %" "$(( hits + misses ? 100 * hits / (hits + misses) : 0 ))"

  if ((edits)); then
    for header in include/odm/driver/collection.hpp include/odm/bson/record.hpp; do
      touch "$clone/$header"
      seconds=$(unit_loop "$clone") || exit 1
      record "$k" "touch $header -> unit tests" "$seconds"
      cp "$clone/$header" "$work/header.orig"
      printf '\nnamespace odm::detail { inline constexpr int bench_build_edit_%s = %s; }\n' "$k" "$RANDOM" >> "$clone/$header"
      seconds=$(unit_loop "$clone") || exit 1
      record "$k" "edit $header -> unit tests" "$seconds"
      cp "$work/header.orig" "$clone/$header"
    done
  fi
done

echo "== medians of $runs run(s), seconds ($mode cache, commit ${commit:0:12}); $report has each run"
tail -n +2 "$report" | awk -F'\t' '
  { if (!($2 in n)) order[++count] = $2; v[$2, ++n[$2]] = $3 }
  END {
    for (i = 1; i <= count; i++) {
      m = order[i]; k = n[m]
      for (a = 1; a <= k; a++) s[a] = v[m, a]
      for (a = 1; a <= k; a++) for (b = a + 1; b <= k; b++) if (s[b] < s[a]) { t = s[a]; s[a] = s[b]; s[b] = t }
      median = (k % 2) ? s[(k + 1) / 2] : (s[k / 2] + s[k / 2 + 1]) / 2
      printf "%-72s %8s\n", m, median
    }
  }'
