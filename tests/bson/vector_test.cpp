// std::vector<T>: BSON array; decode errors name the element's index.

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace bson_vector_test {

using odm_test::decode;
using odm_test::decode_error;
using odm_test::encoded;

struct Point {
  std::int32_t x;
  std::int32_t y;
  bool operator==(const Point&) const = default;
};

struct Shape {
  std::vector<Point> points;
  std::vector<std::vector<std::int32_t>> grid;
  std::vector<bool> flags;
  bool operator==(const Shape&) const = default;
};

struct Review {
  std::string review_author;
  std::chrono::sys_days published_date;
  bool operator==(const Review&) const = default;
};

struct Product {
  std::vector<Review> reviews;
  bool operator==(const Product&) const = default;
};

TEST(Vector, EncodesAsArrayInOrder) {
  const Shape shape{{{1, 2}, {3, 4}}, {{1}, {}, {2, 3}}, {true, false, true}};
  EXPECT_EQ(encoded(shape), odm_test::canonical(R"({
    "points": [{"x": {"$numberInt": "1"}, "y": {"$numberInt": "2"}}, {"x": {"$numberInt": "3"}, "y": {"$numberInt": "4"}}],
    "grid": [[{"$numberInt": "1"}], [], [{"$numberInt": "2"}, {"$numberInt": "3"}]],
    "flags": [true, false, true]
  })"));
  EXPECT_EQ(odm_test::round_trip(shape), shape);
}

TEST(Vector, EmptyArrays) {
  const Shape empty{};
  EXPECT_EQ(encoded(empty), odm_test::canonical(R"({"points": [], "grid": [], "flags": []})"));
  EXPECT_EQ(odm_test::round_trip(empty), empty);
}

TEST(Vector, ArrayKeysAreIndexes) {
  std::vector<std::int32_t> many(1001);
  for (std::size_t i = 0; i < many.size(); ++i) many[i] = static_cast<std::int32_t>(i);
  const Shape shape{{}, {many}, {}};
  const odm::Document doc = odm::to_bson(shape);
  bson_iter_t it, found;
  ASSERT_TRUE(bson_iter_init(&it, doc.get()));
  ASSERT_TRUE(bson_iter_find_descendant(&it, "grid.0.1000", &found));
  EXPECT_EQ(bson_iter_int32(&found), 1000);
  ASSERT_TRUE(bson_iter_init(&it, doc.get()));
  ASSERT_TRUE(bson_iter_find_descendant(&it, "grid.0.999", &found));
  EXPECT_EQ(bson_iter_int32(&found), 999);
  EXPECT_EQ(odm_test::round_trip(shape), shape);
}

TEST(Vector, ErrorPathIncludesTheIndex) {
  // The seed's example of an error message.
  EXPECT_EQ(decode_error<Product>(R"({"reviews": [
      {"review_author": "a", "published_date": {"$date": "2019-02-18T00:00:00Z"}},
      {"review_author": "b", "published_date": {"$date": "2019-02-17T00:00:00Z"}},
      {"review_author": "c", "published_date": {"$date": "2019-02-16T00:00:00Z"}},
      {"review_author": "d", "published_date": "2019-02-15"}]})"),
            "reviews.3.published_date: expected date, got string");
  EXPECT_EQ(decode_error<Shape>(R"({"points": [], "grid": [[1], [2, "x"]], "flags": []})"),
            "grid.1.1: expected int, got string");
  EXPECT_EQ(decode_error<Shape>(R"({"points": [], "grid": [], "flags": [true, 0]})"),
            "flags.1: expected bool, got int");
  EXPECT_EQ(decode_error<Shape>(R"({"points": [{"x": 1}], "grid": [], "flags": []})"),
            "points.0.y: missing required field");
}

TEST(Vector, NotAnArrayIsAnError) {
  EXPECT_EQ(decode_error<Shape>(R"({"points": {}, "grid": [], "flags": []})"), "points: expected array, got object");
  EXPECT_EQ(decode_error<Shape>(R"({"points": null, "grid": [], "flags": []})"), "points: expected array, got null");
  EXPECT_EQ(decode_error<Shape>(R"({"points": [], "grid": [5], "flags": []})"), "grid.0: expected array, got int");
}

struct Names {
  std::vector<std::string> names;
};

TEST(Vector, EncodeErrorPathIncludesTheIndex) {
  EXPECT_EQ(odm_test::encode_error(Names{{"a", "b", "\xff"}}), "names.2: string is not valid UTF-8");
}

}  // namespace bson_vector_test
