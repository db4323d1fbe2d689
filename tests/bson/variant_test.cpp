// std::variant<A, B, ...>: the active alternative stored as itself; decoding picks the
// first alternative that accepts the stored value.

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <string>
#include <variant>
#include <vector>

namespace bson_variant_test {

using odm_test::decode;
using odm_test::decode_error;
using odm_test::encoded;

struct Book {
  std::string title;
  std::variant<std::string, std::vector<std::string>> author;
  bool operator==(const Book&) const = default;
};

struct Cat {
  std::string meow;
  bool operator==(const Cat&) const = default;
};
struct Dog {
  std::int32_t barks;
  bool operator==(const Dog&) const = default;
};

struct Pet {
  std::variant<Cat, Dog> animal;
  bool operator==(const Pet&) const = default;
};

struct Number {
  std::variant<std::int32_t, std::int64_t, double> n;
  bool operator==(const Number&) const = default;
};


TEST(Variant, StoresTheActiveAlternative) {
  EXPECT_EQ(encoded(Book{"Moby-Dick", std::string("Herman Melville")}),
            odm_test::canonical(R"({"title": "Moby-Dick", "author": "Herman Melville"})"));
  EXPECT_EQ(encoded(Book{"Guide", std::vector<std::string>{"Kristina Chodorow", "Mike Dirolf"}}),
            odm_test::canonical(R"({"title": "Guide", "author": ["Kristina Chodorow", "Mike Dirolf"]})"));
  EXPECT_EQ(encoded(Pet{Dog{3}}), odm_test::canonical(R"({"animal": {"barks": {"$numberInt": "3"}}})"));
}

TEST(Variant, DecodesTheFirstAlternativeThatAccepts) {
  const auto single = decode<Book>(R"({"title": "t", "author": "Herman Melville"})");
  ASSERT_EQ(single.author.index(), 0u);
  EXPECT_EQ(std::get<0>(single.author), "Herman Melville");
  const auto several = decode<Book>(R"({"title": "t", "author": ["a", "b"]})");
  ASSERT_EQ(several.author.index(), 1u);
  EXPECT_EQ(std::get<1>(several.author), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(decode<Pet>(R"({"animal": {"meow": "loud"}})"), Pet{Cat{"loud"}});
  EXPECT_EQ(decode<Pet>(R"({"animal": {"barks": 2}})"), Pet{Dog{2}});
}

TEST(Variant, OrderOfAlternativesDecides) {
  // An int32 is accepted by the first alternative; a long by the int32 alternative too
  // when it fits (the int codec reads longs that fit), else by the int64 one; a double
  // by the double alternative only.
  EXPECT_EQ(decode<Number>(R"({"n": 5})").n.index(), 0u);
  EXPECT_EQ(decode<Number>(R"({"n": {"$numberLong": "5000000000"}})").n.index(), 1u);
  EXPECT_EQ(decode<Number>(R"({"n": 2.5})").n.index(), 2u);
}

TEST(Variant, RoundTrips) {
  for (const Book& book : {Book{"a", std::string("x")}, Book{"b", std::vector<std::string>{}},
                           Book{"c", std::vector<std::string>{"x", "y"}}})
    EXPECT_EQ(odm_test::round_trip(book), book);
  EXPECT_EQ(odm_test::round_trip(Number{std::int64_t{5'000'000'000}}), Number{std::int64_t{5'000'000'000}});
  EXPECT_EQ(odm_test::round_trip(Number{2.5}), Number{2.5});
}

TEST(Variant, NoAlternativeAcceptsIsAnErrorWithEveryReason) {
  EXPECT_EQ(decode_error<Book>(R"({"title": "t", "author": 5})"),
            "author: no alternative of the variant accepts the value (expected string, got int; "
            "expected array, got int)");
  EXPECT_EQ(decode_error<Book>(R"({"title": "t", "author": ["a", 1]})"),
            "author: no alternative of the variant accepts the value (expected string, got array; "
            "1: expected string, got int)");
  EXPECT_EQ(decode_error<Pet>(R"({"animal": {"purrs": true}})"),
            "animal: no alternative of the variant accepts the value (meow: missing required field; "
            "barks: missing required field)");
}

}  // namespace bson_variant_test
