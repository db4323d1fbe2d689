// std::optional<T>: nullopt is stored as null; a null or missing field reads as nullopt.

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace bson_optional_test {

using odm_test::decode;
using odm_test::decode_error;
using odm_test::encoded;

struct Category {
  std::string id;
  std::optional<std::string> parent;
  bool operator==(const Category&) const = default;
};

struct Sparse {
  std::optional<std::int32_t> count;
  std::optional<std::vector<std::string>> tags;
  struct Inner {
    std::int32_t n;
    bool operator==(const Inner&) const = default;
  };
  std::optional<Inner> inner;
  bool operator==(const Sparse&) const = default;
};

TEST(Optional, NulloptIsStoredAsNull) {
  EXPECT_EQ(encoded(Category{"Books", std::nullopt}), odm_test::canonical(R"({"_id": "Books", "parent": null})"));
  EXPECT_EQ(encoded(Sparse{}), odm_test::canonical(R"({"count": null, "tags": null, "inner": null})"));
}

TEST(Optional, PresentValueIsStoredAsTheValue) {
  EXPECT_EQ(encoded(Category{"dbm", "Databases"}), odm_test::canonical(R"({"_id": "dbm", "parent": "Databases"})"));
  const Sparse full{5, std::vector<std::string>{"a"}, Sparse::Inner{1}};
  EXPECT_EQ(encoded(full), odm_test::canonical(R"({"count": {"$numberInt": "5"}, "tags": ["a"],
                                                   "inner": {"n": {"$numberInt": "1"}}})"));
  EXPECT_EQ(odm_test::round_trip(full), full);
}

TEST(Optional, NullDecodesToNullopt) {
  EXPECT_EQ(decode<Category>(R"({"_id": "Books", "parent": null})"), (Category{"Books", std::nullopt}));
  EXPECT_EQ(decode<Sparse>(R"({"count": null, "tags": null, "inner": null})"), Sparse{});
}

TEST(Optional, AbsentDecodesToNullopt) {
  EXPECT_EQ(decode<Category>(R"({"_id": "Books"})"), (Category{"Books", std::nullopt}));
  EXPECT_EQ(decode<Sparse>(R"({})"), Sparse{});
  EXPECT_EQ(decode<Sparse>(R"({"tags": []})"), (Sparse{std::nullopt, std::vector<std::string>{}, std::nullopt}));
}

TEST(Optional, PresentDecodesToTheValue) {
  EXPECT_EQ(decode<Category>(R"({"_id": "dbm", "parent": "Databases"})"), (Category{"dbm", "Databases"}));
  EXPECT_EQ(decode<Sparse>(R"({"count": 0})"), (Sparse{0, std::nullopt, std::nullopt}));
}

TEST(Optional, WrongTypeIsStillAnError) {
  EXPECT_EQ(decode_error<Category>(R"({"_id": "x", "parent": 5})"), "parent: expected string, got int");
  EXPECT_EQ(decode_error<Sparse>(R"({"inner": {"n": null}})"), "inner.n: expected int, got null");
  EXPECT_EQ(decode_error<Sparse>(R"({"inner": {}})"), "inner.n: missing required field");
}

TEST(Optional, RequiredMembersAreStillRequired) {
  EXPECT_EQ(decode_error<Category>(R"({"parent": null})"), "_id: missing required field");
}

}  // namespace bson_optional_test
