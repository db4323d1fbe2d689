// Cursor::with works with just the driver's headers and the join header (no umbrella
// header): the driver declares the hook, odm/join/join.hpp defines it. Its compile-fail
// twin, tests/compile_fail/cursor_with_without_join.cpp, leaves the join header out.
#include <odm/driver/client.hpp>
#include <odm/join/join.hpp>

#include "support.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace odm_test {

struct WithPublisher {
  std::string id;
  std::string name;
};
struct WithBook {
  std::string id;
  odm::Ref<WithPublisher> publisher;
};

namespace {

class CursorWith : public DriverTest {};

TEST_F(CursorWith, ResolvesThroughTheJoinHeaderAndPositionsPastTheEndAreUsageErrors) {
  db().collection<WithPublisher>().insert_one(WithPublisher{"oreilly", "O'Reilly"});
  db().collection<WithBook>().insert_one(WithBook{"b1", "oreilly"});
  const auto books = db().collection<WithBook>().find().with(&WithBook::publisher);
  ASSERT_EQ(books.size(), 1u);
  EXPECT_EQ(books[0].publisher->name, "O'Reilly");
  // Was std::out_of_range.
  try {
    (void)books[1];
    ADD_FAILURE() << "expected odm::UsageError";
  } catch (const odm::Error& error) {
    EXPECT_NE(dynamic_cast<const odm::UsageError*>(&error), nullptr);
    EXPECT_STREQ(error.what(), "Resolved::operator[]: position 1 is past the end (size 1)");
  }
}

}  // namespace
}  // namespace odm_test
