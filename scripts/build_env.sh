# Sourced by scripts/test.sh and scripts/examples.sh: what every build tree of the suite
# shares.
#
# The compiler cache. When ccache is installed (scripts/install-deps.sh installs it), every
# compile of every tree goes through it, including the trees the install tests and the
# fuzz script configure themselves (CMake reads CMAKE_CXX_COMPILER_LAUNCHER from the
# environment when it configures a tree for the first time). The cache is keyed on what
# is compiled, not where: paths under the checkout are hashed relative to it
# (CCACHE_BASEDIR), the working directory is left out of the hash (CCACHE_NOHASHDIR; the
# sanitizer trees' line tables are made relative with -fdebug-prefix-map), and the
# precompiled headers are shared too (CCACHE_SLOPPINESS: CMake includes them with -include and an absolute
# path, which is what ccache needs to find them).
# So a clean clone in another folder reuses what a developer's build compiled. Without
# ccache, or with ODM_CCACHE=0, the builds run as they would without it.
odm_checkout=$(pwd -P)
ODM_CCACHE_LAUNCHER=
if [[ "${ODM_CCACHE:-1}" != 0 ]] && command -v ccache >/dev/null; then
  ODM_CCACHE_LAUNCHER=ccache
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache
  export CCACHE_BASEDIR=$odm_checkout
  export CCACHE_NOHASHDIR=true
  export CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
  export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-20G}
fi

# Flags of the trees (scripts/test.sh says why each is what it is).
#  - the main g++ tree: -O2, the optimizer RelWithDebInfo ran before and so the same
#    optimization-dependent warnings (-Wmaybe-uninitialized, -Warray-bounds, ...) and the
#    same code, without the debug information that cost 40 % of its compile time;
#  - the sanitizer trees: line tables only (-g1), enough for file:line in a report.
ODM_MAIN_TREE_FLAGS=(-DCMAKE_CXX_COMPILER=g++ -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG")
ODM_LINE_TABLES="-g1 -fdebug-prefix-map=$odm_checkout=."
