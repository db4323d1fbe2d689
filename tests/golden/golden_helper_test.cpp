// The golden check itself (odm_test::golden in test_support.hpp) must notice every kind
// of difference, or the seed tests prove nothing.

#include "golden/seed_models.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

namespace golden_helper {

using odm_test::golden;

const seed::Publisher kOreilly{"oreilly", "O'Reilly Media", 1980, "CA"};
constexpr const char* kGolden =
    R"({"_id": "oreilly", "name": "O'Reilly Media", "founded": {"$numberInt": "1980"}, "location": "CA"})";

TEST(GoldenHelper, AcceptsTheRightDocument) {
  EXPECT_TRUE(golden(kOreilly, kGolden));
  EXPECT_TRUE(golden(kOreilly, kGolden, R"({"_id": "oreilly", "name": "O'Reilly Media", "founded": 1980,
                                            "location": "CA"})"));
}

TEST(GoldenHelper, NoticesAWrongType) {
  EXPECT_FALSE(golden(kOreilly, R"({"_id": "oreilly", "name": "O'Reilly Media", "founded": {"$numberLong": "1980"},
                                    "location": "CA"})"));
  EXPECT_FALSE(golden(kOreilly, R"({"_id": "oreilly", "name": "O'Reilly Media", "founded": {"$numberDouble": "1980"},
                                    "location": "CA"})"));
}

TEST(GoldenHelper, NoticesAWrongOrderNameOrValue) {
  EXPECT_FALSE(golden(kOreilly, R"({"name": "O'Reilly Media", "_id": "oreilly", "founded": {"$numberInt": "1980"},
                                    "location": "CA"})"));
  EXPECT_FALSE(golden(kOreilly, R"({"id": "oreilly", "name": "O'Reilly Media", "founded": {"$numberInt": "1980"},
                                    "location": "CA"})"));
  EXPECT_FALSE(golden(kOreilly, R"({"_id": "oreilly", "name": "O'Reilly Media", "founded": {"$numberInt": "1981"},
                                    "location": "CA"})"));
  EXPECT_FALSE(golden(kOreilly, R"({"_id": "oreilly", "name": "O'Reilly Media", "founded": {"$numberInt": "1980"}})"));
  EXPECT_FALSE(golden(kOreilly, R"({"_id": "oreilly", "name": "O'Reilly Media", "founded": {"$numberInt": "1980"},
                                    "location": "CA", "extra": null})"));
}

TEST(GoldenHelper, NoticesASeedTextThatIsADifferentDocument) {
  // The seed's `founded: 1980` written as a double by mistake, or a field missing.
  EXPECT_FALSE(golden(kOreilly, kGolden, R"({"_id": "oreilly", "name": "O'Reilly Media", "founded": 1980.0,
                                            "location": "CA"})"));
  EXPECT_FALSE(golden(kOreilly, kGolden, R"({"_id": "oreilly", "name": "O'Reilly Media", "location": "CA"})"));
}

TEST(GoldenHelper, NoticesTextThatIsNotJson) {
  EXPECT_FALSE(golden(kOreilly, R"({_id: "oreilly"})"));
  EXPECT_FALSE(golden(kOreilly, kGolden, R"({_id: "oreilly"})"));
}

}  // namespace golden_helper
