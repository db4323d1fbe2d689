#pragma once
// The flags that put a benchmark program into its callgrind mode: run one case N times
// and exit, so that callgrind's totals divided by N give instructions per operation.
//   --callgrind-case=NAME --iterations=N   --list-cases
// They are taken out of argv; whatever is left goes to Google Benchmark.

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

struct CallgrindMode {
  const char* case_name = nullptr;
  long iterations = -1;
  bool list_cases = false;
};

inline CallgrindMode take_callgrind_flags(int& argc, char** argv) {
  CallgrindMode mode;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.starts_with("--callgrind-case="))
      mode.case_name = argv[i] + std::strlen("--callgrind-case=");
    else if (arg.starts_with("--iterations="))
      mode.iterations = std::strtol(argv[i] + std::strlen("--iterations="), nullptr, 10);
    else if (arg == "--list-cases")
      mode.list_cases = true;
    else
      argv[kept++] = argv[i];
  }
  argc = kept;
  return mode;
}

/// One case of a benchmark program: a name and a function of its inputs.
template <class Inputs>
struct BenchCase {
  const char* name;
  void (*run)(const Inputs&);
};

/// The main() of a program of cases over one set of Inputs (`inputs()` builds them once):
/// --list-cases, the callgrind mode, or Google Benchmark with a BM_<name> per case.
template <class Inputs, std::size_t N>
int bench_main(int argc, char** argv, const char* program, const BenchCase<Inputs> (&cases)[N],
               const Inputs& (*inputs)()) {
  const CallgrindMode mode = take_callgrind_flags(argc, argv);
  if (mode.list_cases) {
    for (const auto& c : cases) std::printf("%s\n", c.name);
    return 0;
  }
  if (mode.case_name != nullptr) {
    if (mode.iterations < 0) {
      std::fprintf(stderr, "%s: --callgrind-case needs --iterations=N (N >= 0)\n", program);
      return 2;
    }
    for (const auto& c : cases) {
      if (std::strcmp(c.name, mode.case_name) != 0) continue;
      const Inputs& in = inputs();
      for (long i = 0; i < mode.iterations; ++i) c.run(in);
      return 0;
    }
    std::fprintf(stderr, "%s: unknown case \"%s\" (see --list-cases)\n", program, mode.case_name);
    return 2;
  }
  for (const auto& c : cases)
    benchmark::RegisterBenchmark((std::string("BM_") + c.name).c_str(), [run = c.run, inputs](benchmark::State& state) {
      const Inputs& in = inputs();
      for (auto _ : state) run(in);
    });
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
