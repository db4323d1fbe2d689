# Sourced by scripts/test.sh, scripts/examples.sh and scripts/fuzz.sh: what every build
# tree of the suite shares.
#
# The compiler cache. When ccache is installed (scripts/install-deps.sh installs it) and
# ODM_CCACHE is not 0, every compile of every tree goes through it: the scripts' trees get
# ODM_LAUNCHER_ARGS on each configure (so ODM_CCACHE=0 turns it off in a tree configured
# with it too), and the trees the install tests configure themselves read
# CMAKE_CXX_COMPILER_LAUNCHER from the environment. The cache is keyed on what is
# compiled, not where: paths under the checkout are hashed relative to it
# (CCACHE_BASEDIR), the working directory is left out of the hash (CCACHE_NOHASHDIR; the
# debug information's directories are made relative with ODM_DEBUG_PREFIX_MAP), and g++'s
# precompiled headers are shared too (CCACHE_SLOPPINESS: CMake includes them with -include
# and an absolute path, which is what ccache needs to find them; the mtime and ctime
# sloppiness so that a header precompiled, or a file cloned, moments before a compile does
# not keep that compile's result out of the cache). So a
# clean clone in another folder reuses what a developer's build compiled. Without ccache
# the builds run as they would without these lines.
odm_checkout=$PWD  # the path CMake sees (-S .), symbolic links and all
ODM_CCACHE_LAUNCHER=
if [[ "${ODM_CCACHE:-1}" != 0 ]] && command -v ccache >/dev/null; then
  ODM_CCACHE_LAUNCHER=$odm_checkout/scripts/ccache-launcher.sh  # ccache, a stale .gch removed first
  export CMAKE_CXX_COMPILER_LAUNCHER=$ODM_CCACHE_LAUNCHER
  export CCACHE_BASEDIR=$odm_checkout
  export CCACHE_NOHASHDIR=true
  export CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
else
  unset CMAKE_CXX_COMPILER_LAUNCHER
fi
ODM_LAUNCHER_ARGS=("-DCMAKE_CXX_COMPILER_LAUNCHER=$ODM_CCACHE_LAUNCHER")
# -fdebug-prefix-map for the trees with debug information or line tables; left out for a
# checkout whose path has a space, which a CMake flags string cannot carry (such a tree's
# objects then keep absolute directories and are not shared between clones).
ODM_DEBUG_PREFIX_MAP=
[[ "$odm_checkout" == *[[:space:]]* ]] || ODM_DEBUG_PREFIX_MAP="-fdebug-prefix-map=$odm_checkout=."

# Flags of the trees (scripts/test.sh says why each is what it is).
#  - the main g++ tree: -O2, the optimizer RelWithDebInfo ran before and so the same
#    optimization-dependent warnings (-Wmaybe-uninitialized, -Warray-bounds, ...) and the
#    same code, without the debug information that cost 40 % of its compile time;
#  - the sanitizer trees: line tables only (-g1), enough for file:line in a report.
ODM_MAIN_TREE_FLAGS=(-DCMAKE_CXX_COMPILER=g++ -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG")
ODM_LINE_TABLES="-g1 $ODM_DEBUG_PREFIX_MAP"

# ccache's hits and misses since its statistics were last reset, as "HITS MISSES" ("0 0"
# without ccache).
ccache_counts() {
  command -v ccache >/dev/null || { echo "0 0"; return; }
  ccache --print-stats 2>/dev/null | awk -F'\t' '
    $1 == "direct_cache_hit" || $1 == "preprocessed_cache_hit" { hits += $2 }
    $1 == "cache_miss" { misses = $2 } END { print hits + 0, misses + 0 }'
}
