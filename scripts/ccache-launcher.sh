#!/bin/sh
# The compiler launcher of the suite's trees when ccache is installed (scripts/build_env.sh):
# ccache, except that a precompiled header about to be made again is removed first. CMake
# makes a precompiled header with `-include cmake_pch.hxx`, and g++ reads the previous
# cmake_pch.hxx.gch beside it: ccache then keys the new one on the old one, never finds it
# after a header is touched, and every file using it misses too.
previous=
for arg in "$@"; do
  if [ "$previous" = -o ]; then
    case "$arg" in *.gch) rm -f "$arg" ;; esac
  fi
  previous=$arg
done
exec ccache "$@"
