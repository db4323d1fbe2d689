#!/usr/bin/env bash
# What compiling code written on odm costs: CPU time and peak memory of the compiler.
#
#   scripts/bench_compile.sh [BUILD_DIR] [RUNS]
#
# 1. configures a RelWithDebInfo tree in BUILD_DIR (default: build-bench-compile; the
#    project's default build type) and takes the compile command of
#    benchmarks/compile_cost/service.cpp from its compile_commands.json, so the flags are
#    exactly the project's (include paths, -std=c++20, warnings, -g, -DNDEBUG);
# 2. compiles two files with that command, at -O0 and at -O2 (the command's -O level
#    replaced), RUNS times each (default 3), with g++ (CXX=clang++-14 to measure clang):
#      service   benchmarks/compile_cost/service.cpp: six models, CRUD, joins, a Subset,
#                a tree and the index plan, about 700 lines, including <odm/odm.hpp>
#      umbrella  a file holding only `#include <odm/odm.hpp>`
#      core      a file holding only `#include <odm/core.hpp>` (the codec without the driver)
# 3. prints, per file and level, the medians of user+sys CPU seconds and of the maximum
#    resident set size that /usr/bin/time reports (CPU time and memory vary far less with
#    the machine's load than wall-clock time does).
# Only the compiler runs (-c); linking is not measured.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build-bench-compile}
runs=${2:-3}
cxx=${CXX:-g++}

[ -x /usr/bin/time ] || { echo "bench_compile.sh: /usr/bin/time is missing (apt-get install time)" >&2; exit 1; }

cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DODM_BUILD_TESTS=OFF -DODM_BUILD_EXAMPLES=OFF -DODM_BUILD_BENCHMARKS=ON \
  >/dev/null

# The service's compile command, without its output file and source (and any launcher).
command=$(grep -F '"command":' "$build/compile_commands.json" | grep -F 'compile_cost/service.cpp' | head -1 |
  sed -e 's/^ *"command": *"//' -e 's/",\{0,1\} *$//' -e 's/\\"/"/g')
[ -n "$command" ] || { echo "bench_compile.sh: no compile command for service.cpp in $build" >&2; exit 1; }
read -r -a words <<<"$command"
[[ "${words[0]}" == *ccache ]] && words=("${words[@]:1}")  # a compiler launcher, if CMake wrote one
flags=()
skip=0
for word in "${words[@]:1}"; do
  if ((skip)); then skip=0; continue; fi
  case "$word" in
    -o) skip=1 ;;
    -c|*/service.cpp|-O*) ;;
    *) flags+=("$word") ;;
  esac
done
compiler=${words[0]}

work=$build/compile_cost
mkdir -p "$work"
echo '#include <odm/odm.hpp>' >"$work/umbrella.cpp"
echo '#include <odm/core.hpp>' >"$work/core.cpp"

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "compiler: $("$compiler" --version | head -1)"
echo "flags: ${flags[*]} (-O level as below) -c"
echo "runs: $runs each; medians of user+sys CPU seconds and of peak RSS (/usr/bin/time)"
printf '%-10s %-4s %10s %14s\n' file opt "CPU s" "peak RSS MB"
files=("$src/benchmarks/compile_cost/service.cpp" "$work/umbrella.cpp")
[ -f "$src/include/odm/core.hpp" ] && files+=("$work/core.cpp")
for file in "${files[@]}"; do
  name=$(basename "$file" .cpp)
  for level in -O0 -O2; do
    cpu=()
    rss=()
    for ((i = 0; i < runs; ++i)); do
      /usr/bin/time -f '%U %S %M' -o "$work/time.txt" \
        "$compiler" "${flags[@]}" "$level" -c "$file" -o "$work/$name.o"
      read -r user sys kb <"$work/time.txt"
      cpu+=("$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')")
      rss+=("$((kb / 1024))")
    done
    printf '%-10s %-4s %10s %14s   (runs: %s s; %s MB)\n' "$name" "$level" \
      "$(printf '%s\n' "${cpu[@]}" | median)" "$(printf '%s\n' "${rss[@]}" | median)" "${cpu[*]}" "${rss[*]}"
  done
done
