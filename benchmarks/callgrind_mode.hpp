#pragma once
// The flags that put a benchmark program into its callgrind mode: run one case N times
// and exit, so that callgrind's totals divided by N give instructions per operation.
//   --callgrind-case=NAME --iterations=N   --list-cases
// They are taken out of argv; whatever is left goes to Google Benchmark.

#include <cstdlib>
#include <cstring>
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
