#!/bin/sh
# The client's cost of a typed aggregation pipeline against the same pipeline written with
# libbson by hand (benchmarks/pipeline_bench.cpp): building the report per currency's
# stages, and decoding 100 of its results. Measured as scripts/bench_codec.sh measures
# the codec (callgrind instructions per operation, and Google Benchmark timings).
#
#   scripts/bench_pipeline.sh [BUILD_DIR] [ITERATIONS]
BENCH_PROGRAM=pipeline_bench BENCH_WORKLOADS="build_pipeline decode_results" \
  exec "$(dirname "$0")/bench_codec.sh" "$@"
