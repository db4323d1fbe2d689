// std::map<std::string, T>: a sub-document whose field names are the keys.

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace bson_map_test {

using namespace std::string_literals;
using odm_test::decode;
using odm_test::decode_error;
using odm_test::encode_error;
using odm_test::encoded;

struct Stock {
  std::map<std::string, std::int32_t> counts;
  bool operator==(const Stock&) const = default;
};

struct Nested {
  struct Inner {
    std::map<std::string, std::map<std::string, std::string>> labels;
    bool operator==(const Inner&) const = default;
  };
  Inner inner;
  bool operator==(const Nested&) const = default;
};

TEST(Map, EncodesAsSubDocumentInKeyOrder) {
  const Stock stock{{{"b", 2}, {"a", 1}, {"Ünïcödé", 3}}};
  EXPECT_EQ(encoded(stock), odm_test::canonical(R"({"counts": {"a": {"$numberInt": "1"}, "b": {"$numberInt": "2"},
                                                               "Ünïcödé": {"$numberInt": "3"}}})"));
  EXPECT_EQ(odm_test::round_trip(stock), stock);
  EXPECT_EQ(encoded(Stock{}), odm_test::canonical(R"({"counts": {}})"));
}

TEST(Map, Decodes) {
  EXPECT_EQ(decode<Stock>(R"({"counts": {"z": 26, "a": 1}})"), (Stock{{{"a", 1}, {"z", 26}}}));
  EXPECT_EQ(decode<Nested>(R"({"inner": {"labels": {"en": {"hello": "world"}, "de": {}}}})"),
            (Nested{{{{"en", {{"hello", "world"}}}, {"de", {}}}}}));
}

TEST(Map, KeyStartingWithDollarIsRefusedAtEncodeWithPath) {
  EXPECT_EQ(encode_error(Stock{{{"$gt", 1}}}),
            "counts: map key \"$gt\" starts with '$', so MongoDB would read it as an operator");
  EXPECT_EQ(encode_error(Nested{{{{"en", {{"$where", "x"}}}}}}),
            "inner.labels.en: map key \"$where\" starts with '$', so MongoDB would read it as an operator");
}

TEST(Map, KeyWithADotIsRefusedAtEncodeWithPath) {
  EXPECT_EQ(encode_error(Stock{{{"a.b", 1}}}), "counts: map key \"a.b\" contains '.', so MongoDB would read it as a path");
}

TEST(Map, KeyWithNulIsRefusedAtEncodeWithPath) {
  EXPECT_EQ(encode_error(Stock{{{"a\0b"s, 1}}}),
            "counts: map key \"a\\0b\" contains a NUL character, which a BSON field name cannot hold");
}

TEST(Map, KeyThatIsNotUtf8IsRefusedAtEncode) {
  EXPECT_EQ(encode_error(Stock{{{"\xff", 1}}}), "counts: map key \"\xff\" is not valid UTF-8");
}

TEST(Map, ValueErrorsNameTheKey) {
  EXPECT_EQ(decode_error<Stock>(R"({"counts": {"a": 1, "b": "two"}})"), "counts.b: expected int, got string");
  EXPECT_EQ(decode_error<Nested>(R"({"inner": {"labels": {"en": {"hello": 5}}}})"),
            "inner.labels.en.hello: expected string, got int");
  EXPECT_EQ(encode_error(Nested{{{{"en", {{"hello", "\xff"}}}}}}), "inner.labels.en.hello: string is not valid UTF-8");
  EXPECT_EQ(decode_error<Stock>(R"({"counts": [1, 2]})"), "counts: expected object, got array");
}

TEST(Map, DuplicateKeyInTheDocumentIsAnError) {
  EXPECT_EQ(decode_error<Stock>(R"({"counts": {"a": 1, "a": 2}})"), "counts.a: duplicate key");
}

TEST(Map, OperatorLikeKeysAreReadBack) {
  // Refused on the way in, but a stored document that has them still reads (MongoDB 5+
  // allows such field names), so data is never stuck.
  EXPECT_EQ(decode<Stock>(R"({"counts": {"$gt": 1, "a.b": 2}})"), (Stock{{{"$gt", 1}, {"a.b", 2}}}));
}

}  // namespace bson_map_test
