// The cases tests/gtest_batch/check.py runs through tests/gtest_batch/launcher.py: one of each kind a
// suite's process can meet. Each process that starts appends a line to the file
// ODM_GTEST_BATCH_CASES_LOG names, so the check can count the processes.

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

namespace {

const bool logged = [] {
  if (const char* path = std::getenv("ODM_GTEST_BATCH_CASES_LOG")) {
    if (std::FILE* log = std::fopen(path, "a")) {
      std::fputs("process\n", log);
      std::fclose(log);
    }
  }
  return true;
}();

int earlier_in_this_process = 0;

TEST(Passing, One) { EXPECT_TRUE(logged); }
TEST(Passing, Two) { EXPECT_EQ(1 + 1, 2); }
TEST(Passing, Skipped) { GTEST_SKIP() << "the reason it is skipped"; }

TEST(Failing, Passes) { SUCCEED(); }
TEST(Failing, Fails) { EXPECT_EQ(1, 2) << "the failure's own message"; }

// The second case fails only after the first ran in the same process: alone, it passes.
TEST(Interfering, First) { ++earlier_in_this_process; }
TEST(Interfering, Second) { EXPECT_EQ(earlier_in_this_process, 0); }

// The process dies in the second case: the others are run alone.
TEST(Crashing, Before) { SUCCEED(); }
TEST(Crashing, Dies) {
  if (std::getenv("ODM_GTEST_BATCH_CASES_CRASH") != nullptr) std::abort();
}
TEST(Crashing, After) { SUCCEED(); }

// A report the suite's process prints as a sanitizer would: no verdict of it is trusted.
TEST(Reporting, Prints) { std::printf("ERROR: AddressSanitizer: (a report, printed by the test)\n"); }
TEST(Reporting, Other) { SUCCEED(); }

}  // namespace
