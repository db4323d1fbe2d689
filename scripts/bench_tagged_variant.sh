#!/bin/sh
# What reading a tagged variant costs against reading the alternative it holds directly
# (benchmarks/tagged_variant_bench.cpp): the same document, its tag first (as odm writes
# it) and last (as another program may). Measured as scripts/bench_codec.sh measures the
# codec (callgrind instructions per operation, and Google Benchmark timings).
#
#   scripts/bench_tagged_variant.sh [BUILD_DIR] [ITERATIONS]
BENCH_PROGRAM=tagged_variant_bench BENCH_WORKLOADS="decode_tag_first decode_tag_last" BENCH_SUBJECT=variant \
  BENCH_BASELINE=alternative exec "$(dirname "$0")/bench_codec.sh" "$@"
