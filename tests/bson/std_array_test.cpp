// std::array<T, N>: a fixed-size sequence, which MongoDB can only hold as an array.

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <array>

namespace bson_std_array_test {

struct Point3 {
  std::array<std::int32_t, 3> xyz;
  std::int32_t n;
  bool operator==(const Point3&) const = default;
};

TEST(StdArray, IsStoredAsABsonArray) {
  // std::array is an aggregate, so the struct codec (record.hpp) takes it for a record
  // and Boost.PFR sees its three elements as "members" named 0, 1 and 2 (the digits the
  // name extraction finds in `_M_elems[0]`): it is stored as the sub-document
  // {"0": 1, "1": 2, "2": 3}, which no MongoDB array operator or index sees as an array.
  EXPECT_EQ(odm_test::encoded(Point3{{1, 2, 3}, 4}),
            odm_test::canonical(R"({"xyz": [{"$numberInt": "1"}, {"$numberInt": "2"}, {"$numberInt": "3"}],
                                    "n": {"$numberInt": "4"}})"));
  EXPECT_EQ(odm_test::decode_error<Point3>(R"({"xyz": [1, 2, 3], "n": 4})"), "<no error>");
}

}  // namespace bson_std_array_test
