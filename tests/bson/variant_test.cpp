// std::variant<A, B, ...>: the active alternative stored as itself; decoding picks the first
// alternative whose shape fits the stored value (its BSON type; for a document, its own
// fields; for an array, its elements' types) and decodes only that one.

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
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

// An int64 member reads an int32 too, so `std::variant<std::int32_t, std::int64_t>` does not
// compile in either order (variant_round_trip_test.cpp has why); a double does not read as
// an integer, so a double after an int64 is told apart.
struct Number {
  std::variant<std::int64_t, double> n;
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
  // An int32 and a long are accepted by the int64 alternative, a double by the double one
  // only; a stored int32 would fit the double too, but the int64 comes first.
  EXPECT_EQ(decode<Number>(R"({"n": 5})"), Number{std::int64_t{5}});
  EXPECT_EQ(decode<Number>(R"({"n": {"$numberLong": "5000000000"}})"), Number{std::int64_t{5'000'000'000}});
  EXPECT_EQ(decode<Number>(R"({"n": 2.5})"), Number{2.5});
}

TEST(Variant, RoundTrips) {
  for (const Book& book : {Book{"a", std::string("x")}, Book{"b", std::vector<std::string>{}},
                           Book{"c", std::vector<std::string>{"x", "y"}}})
    EXPECT_EQ(odm_test::round_trip(book), book);
  EXPECT_EQ(odm_test::round_trip(Number{std::int64_t{5'000'000'000}}), Number{std::int64_t{5'000'000'000}});
  EXPECT_EQ(odm_test::round_trip(Number{2.5}), Number{2.5});
}

TEST(Variant, NoAlternativeFitsIsAnErrorWithEachReason) {
  EXPECT_EQ(decode_error<Book>(R"({"title": "t", "author": 5})"),
            "author: none of the variant's 2 alternatives fits the stored int (expected string, got int; "
            "expected array, got int)");
  // An array fits std::vector<std::string> only if every element is a string.
  EXPECT_EQ(decode_error<Book>(R"({"title": "t", "author": ["a", 1]})"),
            "author: none of the variant's 2 alternatives fits the stored array (expected string, got array; "
            "1: expected string, got int)");
  EXPECT_EQ(decode_error<Pet>(R"({"animal": {"purrs": true}})"),
            "animal: none of the variant's 2 alternatives fits the stored object (meow: missing required field; "
            "barks: missing required field)");
}

struct Meters {
  double value;
  bool operator==(const Meters&) const = default;
};
struct Label {
  std::string value;
  bool operator==(const Label&) const = default;
};
struct Measure {
  std::variant<Meters, Label> m;
  bool operator==(const Measure&) const = default;
};

TEST(Variant, AStructFitsWhenItsFieldsHaveTypesItsMembersTake) {
  // The same field name in both alternatives: the field's BSON type decides.
  EXPECT_EQ(decode<Measure>(R"({"m": {"value": 2.5}})"), Measure{Meters{2.5}});
  EXPECT_EQ(decode<Measure>(R"({"m": {"value": "tall"}})"), Measure{Label{"tall"}});
  EXPECT_EQ(decode_error<Measure>(R"({"m": {"value": true}})"),
            "m: none of the variant's 2 alternatives fits the stored object (value: expected double or int or long, "
            "got bool; value: expected string, got bool)");
}

struct StrictCat {
  std::string meow;
  struct odm_model {
    static constexpr bool strict = true;
  };
  bool operator==(const StrictCat&) const = default;
};
struct LooseCat {
  std::string meow;
  std::optional<std::int32_t> lives;
  bool operator==(const LooseCat&) const = default;
};
struct Cats {
  std::variant<StrictCat, LooseCat> cat;
  bool operator==(const Cats&) const = default;
};

TEST(Variant, AStrictStructDoesNotFitADocumentWithOtherFields) {
  EXPECT_EQ(decode<Cats>(R"({"cat": {"meow": "a"}})").cat.index(), 0u);
  EXPECT_EQ(decode<Cats>(R"({"cat": {"meow": "a", "lives": 9}})"), (Cats{LooseCat{"a", 9}}));
  // A non-strict struct ignores fields it does not know: the first that fits wins.
  EXPECT_EQ(decode<Pet>(R"({"animal": {"meow": "m", "barks": 1}})"), Pet{Cat{"m"}});
}

// Two vectors are not told apart (an empty one fits both); a std::array of N fits only N
// elements, so it can come before a vector whose elements it does not take.
struct Lists {
  std::variant<std::array<std::string, 2>, std::vector<std::int32_t>, std::optional<std::string>> list;
  bool operator==(const Lists&) const = default;
};

TEST(Variant, AnArrayFitsWhenEveryElementHasATypeItsElementTypeTakes) {
  EXPECT_EQ(decode<Lists>(R"({"list": ["a", "b"]})"), (Lists{std::array<std::string, 2>{"a", "b"}}));
  EXPECT_EQ(decode<Lists>(R"({"list": [1, 2]})"), (Lists{std::vector<std::int32_t>{1, 2}}));
  EXPECT_EQ(decode<Lists>(R"({"list": []})"), Lists{std::vector<std::int32_t>{}});  // not 2 elements
  EXPECT_EQ(decode<Lists>(R"({"list": null})"), Lists{std::optional<std::string>{}});
  EXPECT_EQ(decode<Lists>(R"({"list": "x"})"), Lists{std::optional<std::string>{"x"}});
  EXPECT_EQ(decode_error<Lists>(R"({"list": ["a"]})"),
            "list: none of the variant's 3 alternatives fits the stored array (expected 2 elements, got 1; 0: "
            "expected int or long, got string; expected string, got array)");
}

struct Inner {
  std::int32_t n;
  bool operator==(const Inner&) const = default;
};
struct Deep {
  std::string tag;
  Inner inner;
  bool operator==(const Deep&) const = default;
};
struct Other {
  std::string tag;
  bool operator==(const Other&) const = default;
};
struct Choice {
  std::variant<Deep, Other> c;
  bool operator==(const Choice&) const = default;
};

TEST(Variant, AnErrorInsideThePickedAlternativeIsTheErrorNothingElseIsTried) {
  // Deep fits (tag and inner are there, of the right types); what is inside `inner` is not
  // looked at until Deep is decoded, and Other, which would accept the document, is not tried.
  EXPECT_EQ(decode_error<Choice>(R"({"c": {"tag": "t", "inner": {"n": "x"}}})"), "c.inner.n: expected int, got string");
  EXPECT_EQ(decode<Choice>(R"({"c": {"tag": "t"}})"), Choice{Other{"t"}});
}

}  // namespace bson_variant_test
