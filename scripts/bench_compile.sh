#!/usr/bin/env bash
# What compiling code written on odm costs: CPU time and peak memory of the compiler.
#
#   scripts/bench_compile.sh [--examples [--baseline-sources] | --pch] [--baseline TREE] [BUILD_DIR] [RUNS]
#
# 1. configures a RelWithDebInfo tree in BUILD_DIR (default: build-bench-compile; the
#    project's default build type) and takes each subject's compile command from its
#    compile_commands.json, so the flags are exactly the project's (include paths,
#    -std=c++20, warnings, -g, -DNDEBUG);
# 2. compiles the subjects with that command, RUNS times each (default 3), with g++
#    (CXX=clang++-14 to measure clang). The subjects are
#      by default, at -O0 and at -O2 (the command's -O level replaced):
#        service   benchmarks/compile_cost/service.cpp: six models, CRUD, joins, a Subset,
#                  a tree and the index plan, about 700 lines, including <odm/odm.hpp>
#        umbrella  a file holding only `#include <odm/odm.hpp>`
#        core      a file holding only `#include <odm/core.hpp>` (the codec without the driver)
#        service_records_elsewhere  the service at -O2 with its models' codecs compiled
#                         in another file (-DODM_COMPILE_COST_RECORDS_ELSEWHERE: models.hpp
#                         declares `extern template struct odm::document_code<...>` and
#                         `odm::embedded_code<...>`), and
#        records          that other file (benchmarks/compile_cost/records.cpp) at -O2;
#        and, with g++, two bounds of what the service can cost at -O2:
#        service_syntax   the service with -fsyntax-only: parsing and instantiating, no code;
#        service_floor    the service with -fno-implicit-templates
#                         -fno-implicit-inline-templates: no template code generated (odm's,
#                         the standard library's, the models' containers), as if every
#                         instantiation were compiled in another file; what is left is the
#                         front end and the code of the file's own functions. The object does
#                         not link; it is the floor that changes to templates alone approach;
#      with --examples, every program in examples/, at the -O level the build uses (-O2),
#      and their sum;
#      with --pch, what precompiling <odm/odm.hpp> saves (the README's recipe,
#      target_precompile_headers): at -O0 and -O2, `pch` (making the precompiled header,
#      once per target), the service without it and with it (`service_pch`), and likewise
#      examples/order_line_items.cpp (`example`, `example_pch`, with the service's flags);
# 3. prints, per subject and level, the medians of user+sys CPU seconds and of the maximum
#    resident set size that /usr/bin/time reports (CPU time and memory vary far less with
#    the machine's load than wall-clock time does).
#
# --baseline TREE compares with another checkout of odm (for example one made by
# `git worktree add /tmp/odm-before <commit>`), configured the same way in
# BUILD_DIR/baseline: every run compiles each subject there and then here, one after the
# other, so that a change in the machine's load falls on both alike, and the table gives
# both medians and the change. A subject the baseline does not have is reported as new and
# left out of the sums.
# --baseline-sources (with --examples and --baseline) compiles the baseline's own example
# sources in both trees: the change the library alone makes to the same code. A program
# that does not compile against this tree's headers (its API changed since) is left out.
# Only the compiler runs (-c); linking is not measured.
set -euo pipefail

examples=0
pch=0
baseline=
baseline_sources=0
while (($#)); do
  case "$1" in
    --examples) examples=1; shift ;;
    --pch) pch=1; shift ;;
    --baseline-sources) baseline_sources=1; shift ;;
    --baseline) baseline=$(cd "$2" && pwd); shift 2 ;;
    -*) echo "usage: $0 [--examples [--baseline-sources] | --pch] [--baseline TREE] [BUILD_DIR] [RUNS]" >&2; exit 2 ;;
    *) break ;;
  esac
done
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build-bench-compile}
runs=${2:-3}
cxx=${CXX:-g++}

if ((pch && examples)); then
  echo "bench_compile.sh: --pch and --examples are two different measurements: give one" >&2
  exit 2
fi
if ((baseline_sources)) && { ((!examples)) || [ -z "$baseline" ]; }; then
  echo "bench_compile.sh: --baseline-sources measures the baseline's examples: give --examples and --baseline" >&2
  exit 2
fi
[ -x /usr/bin/time ] || { echo "bench_compile.sh: /usr/bin/time is missing (apt-get install time)" >&2; exit 1; }

configure() {  # source tree, build tree
  local benchmarks=ON tests=OFF
  ((examples)) && benchmarks=OFF
  cmake -S "$1" -B "$2" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DODM_BUILD_TESTS=$tests -DODM_BUILD_EXAMPLES=$((examples)) \
    -DODM_BUILD_BENCHMARKS=$benchmarks >/dev/null
}

# Sets `compiler` and `flags` to the compile command of SOURCE (a path ending) in BUILD's
# compile_commands.json, without its output file, its source, -c, its -O level and any
# compiler launcher. Returns 1 when BUILD compiles no such file.
compile_command() {  # build tree, source path ending
  local command matches word skip=0
  # service.cpp is compiled twice, the second time with its records elsewhere (the
  # subject that wants that adds the definition itself): take the plain command.
  matches=$(grep -F '"command":' "$1/compile_commands.json" | grep -F "/$2\"" || true)
  command=$(printf '%s\n' "$matches" | grep -vF -- -DODM_COMPILE_COST_RECORDS_ELSEWHERE | head -1 || true)
  [ -n "$command" ] || command=$(printf '%s\n' "$matches" | head -1)
  command=$(printf '%s\n' "$command" | sed -e 's/^ *"command": *"//' -e 's/",\{0,1\} *$//' -e 's/\\"/"/g')
  [ -n "$command" ] || return 1
  local words
  read -r -a words <<<"$command"
  [[ "${words[0]}" == *ccache || "${words[0]}" == *ccache-launcher.sh ]] && words=("${words[@]:1}")
  compiler=${words[0]}
  flags=()
  for word in "${words[@]:1}"; do
    if ((skip)); then skip=0; continue; fi
    case "$word" in
      -o) skip=1 ;;
      -c|*"/$2"|-O*) ;;
      *) flags+=("$word") ;;
    esac
  done
}

# The subjects: "name|path relative to the tree (or @generated name)|levels".
subjects=()
if ((examples)); then
  examples_from=$src
  ((baseline_sources)) && examples_from=$baseline
  for file in "$examples_from"/examples/*.cpp; do
    subjects+=("$(basename "$file" .cpp)|examples/$(basename "$file")|-O2")
  done
elif ((pch)); then
  subjects+=("pch|@pch|-O0 -O2" "service|benchmarks/compile_cost/service.cpp|-O0 -O2"
    "service_pch|benchmarks/compile_cost/service.cpp|-O0 -O2|@pch"
    "example|examples/order_line_items.cpp|-O0 -O2" "example_pch|examples/order_line_items.cpp|-O0 -O2|@pch")
else
  subjects+=("service|benchmarks/compile_cost/service.cpp|-O0 -O2" "umbrella|@umbrella|-O0 -O2")
  [ -f "$src/include/odm/core.hpp" ] && subjects+=("core|@core|-O0 -O2")
  subjects+=("service_records_elsewhere|benchmarks/compile_cost/service.cpp|-O2|-DODM_COMPILE_COST_RECORDS_ELSEWHERE"
    "records|benchmarks/compile_cost/records.cpp|-O2")
  if "$cxx" --version | head -1 | grep -q 'g++'; then
    subjects+=("service_syntax|benchmarks/compile_cost/service.cpp|-O2|-fsyntax-only"
      "service_floor|benchmarks/compile_cost/service.cpp|-O2|-fno-implicit-templates -fno-implicit-inline-templates")
  fi
fi

# The trees measured: "label|source|build".
trees=()
[ -n "$baseline" ] && trees+=("baseline|$baseline|$build/baseline")
trees+=("this|$src|$build")
for tree in "${trees[@]}"; do
  IFS='|' read -r _ tree_src tree_build <<<"$tree"
  configure "$tree_src" "$tree_build"
  mkdir -p "$tree_build/compile_cost"
  echo '#include <odm/odm.hpp>' >"$tree_build/compile_cost/umbrella.cpp"
  echo '#include <odm/core.hpp>' >"$tree_build/compile_cost/core.cpp"
done

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# Compiles one subject of one tree once; appends "cpu rss_mb" to the file RESULTS.
# Returns 1 when the tree has no such subject.
measure() {  # source tree, build tree, subject path, level, results file, extra flags
  local tree_src=$1 tree_build=$2 path=$3 level=$4 file extra output=$2/compile_cost/subject.o
  local pch_header=$tree_build/compile_cost/pch$level/odm_pch.hpp
  read -r -a extra <<<"${6:-}"
  # --pch: the header made into $pch_header.gch (level by level: the flags must match), and
  # the subjects that use it, as CMake's target_precompile_headers does (-include).
  local uses_pch=0
  if [[ "${extra[*]}" == @pch ]]; then
    [ -f "$pch_header.gch" ] || { echo "$path: no precompiled header $pch_header.gch (its subject failed)" >&2; return 1; }
    extra=(-include "$pch_header" -Winvalid-pch) uses_pch=1
  fi
  if [[ "$path" == @pch ]]; then
    mkdir -p "${pch_header%/*}"
    echo '#include <odm/odm.hpp>' >"$pch_header"
    file=$pch_header output=$pch_header.gch extra=(-x c++-header)
    compile_command "$tree_build" benchmarks/compile_cost/service.cpp || return 1
  elif [[ "$path" == examples/* ]] && ((!examples)); then  # an example with the service's flags
    file=$tree_src/$path
    compile_command "$tree_build" benchmarks/compile_cost/service.cpp || return 1
  elif [[ "$path" == @* ]]; then
    file=$tree_build/compile_cost/${path#@}.cpp
    [ -f "$tree_src/include/odm/${path#@}.hpp" ] || [ "${path#@}" = umbrella ] || return 1
    compile_command "$tree_build" benchmarks/compile_cost/service.cpp || return 1
  else
    file=$tree_src/$path
    ((baseline_sources)) && file=$baseline/$path
    [ -f "$file" ] || return 1
    compile_command "$tree_build" "$path" || return 1
  fi
  if ! /usr/bin/time -f '%U %S %M' -o "$tree_build/compile_cost/time.txt" \
    "$compiler" "${flags[@]}" "$level" "${extra[@]}" -c "$file" -o "$output" 2>"$tree_build/compile_cost/stderr.txt"; then
    echo "$path does not compile in $tree_src: left out" >&2
    rm -f "$5"
    return 1
  fi
  if ((uses_pch)) && grep -q 'not using\|invalid' "$tree_build/compile_cost/stderr.txt"; then  # -Winvalid-pch
    echo "$path: the precompiled header was not used:" >&2
    cat "$tree_build/compile_cost/stderr.txt" >&2
    return 1
  fi
  local user sys kb
  read -r user sys kb <"$tree_build/compile_cost/time.txt"
  awk -v u="$user" -v s="$sys" -v k="$kb" 'BEGIN { printf "%.2f %d\n", u + s, k / 1024 }' >>"$5"
}

echo "compiler: $("$cxx" --version | head -1)"
echo "runs: $runs each; medians of user+sys CPU seconds and of peak RSS (/usr/bin/time)"
[ -n "$baseline" ] && echo "baseline: $baseline ($(git -C "$baseline" rev-parse --short HEAD 2>/dev/null || echo '?')), measured alternately"
results=$build/compile_cost/results
rm -rf "$results" && mkdir -p "$results"
for subject in "${subjects[@]}"; do
  IFS='|' read -r name path levels extra <<<"$subject"
  for level in $levels; do
    for ((i = 0; i < runs; ++i)); do
      for tree in "${trees[@]}"; do
        IFS='|' read -r label tree_src tree_build <<<"$tree"
        measure "$tree_src" "$tree_build" "$path" "$level" "$results/$name$level.$label" "$extra" || true
      done
    done
  done
done

column() { cut -d' ' -f"$2" "$1" | median; }  # results file, 1 = CPU, 2 = MB
sum_cpu=(0 0) sum_mb=(0 0)
if [ -n "$baseline" ]; then
  printf '%-28s %-4s %18s %18s %16s\n' subject opt "before (s, MB)" "after (s, MB)" "change"
else
  printf '%-28s %-4s %10s %14s\n' subject opt "CPU s" "peak RSS MB"
fi
for subject in "${subjects[@]}"; do
  IFS='|' read -r name path levels _ <<<"$subject"
  for level in $levels; do
    after=$results/$name$level.this
    before=$results/$name$level.baseline
    [ -s "$after" ] || continue
    cpu=$(column "$after" 1) mb=$(column "$after" 2)
    if [ -z "$baseline" ]; then
      printf '%-28s %-4s %10s %14s   (runs: %s)\n' "$name" "$level" "$cpu" "$mb" "$(tr '\n' ';' <"$after")"
    elif [ -s "$before" ]; then
      cpu0=$(column "$before" 1) mb0=$(column "$before" 2)
      sum_cpu=("$(awk -v a="${sum_cpu[0]}" -v b="$cpu0" 'BEGIN { print a + b }')" "$(awk -v a="${sum_cpu[1]}" -v b="$cpu" 'BEGIN { print a + b }')")
      sum_mb=("$(awk -v a="${sum_mb[0]}" -v b="$mb0" 'BEGIN { print a + b }')" "$(awk -v a="${sum_mb[1]}" -v b="$mb" 'BEGIN { print a + b }')")
      printf '%-28s %-4s %10s s %5s %10s s %5s %+7.1f%% %+6.1f%%\n' "$name" "$level" "$cpu0" "$mb0" "$cpu" "$mb" \
        "$(awk -v a="$cpu0" -v b="$cpu" 'BEGIN { print 100 * (b - a) / a }')" \
        "$(awk -v a="$mb0" -v b="$mb" 'BEGIN { print 100 * (b - a) / a }')"
    else
      printf '%-28s %-4s %18s %10s s %5s   (new: not in the baseline)\n' "$name" "$level" "-" "$cpu" "$mb"
    fi
  done
done
if [ -n "$baseline" ] && ((examples)); then
  printf '%-28s %-4s %10s s %5s %10s s %5s %+7.1f%% %+6.1f%%\n' "sum of the common files" "" \
    "${sum_cpu[0]}" "${sum_mb[0]}" "${sum_cpu[1]}" "${sum_mb[1]}" \
    "$(awk -v a="${sum_cpu[0]}" -v b="${sum_cpu[1]}" 'BEGIN { print 100 * (b - a) / a }')" \
    "$(awk -v a="${sum_mb[0]}" -v b="${sum_mb[1]}" 'BEGIN { print 100 * (b - a) / a }')"
fi
