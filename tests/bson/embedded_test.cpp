// Nested structs and odm::Embedded<T>: both are sub-documents.

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace bson_embedded_test {

using odm_test::decode;
using odm_test::decode_error;
using odm_test::encoded;

struct Address {
  std::string street;
  std::string city;
  bool operator==(const Address&) const = default;
};

struct Plain {
  std::string id;
  Address address;
  bool operator==(const Plain&) const = default;
};

struct Wrapped {
  std::string id;
  odm::Embedded<Address> address;
  bool operator==(const Wrapped&) const = default;
};

struct Deep {
  struct Level2 {
    struct Level3 {
      std::int32_t id;  // `id` inside an embedded document stays `id`
      std::string leaf;
      bool operator==(const Level3&) const = default;
    };
    odm::Embedded<Level3> c;
    bool operator==(const Level2&) const = default;
  };
  odm::Embedded<Level2> b;
  bool operator==(const Deep&) const = default;
};

TEST(Embedded, StoredExactlyAsTheNestedStruct) {
  const Plain plain{"joe", {"123 Fake Street", "Faketon"}};
  const Wrapped wrapped{"joe", Address{"123 Fake Street", "Faketon"}};
  EXPECT_EQ(odm::to_bson(plain), odm::to_bson(wrapped));
  EXPECT_EQ(encoded(wrapped),
            odm_test::canonical(R"({"_id": "joe", "address": {"street": "123 Fake Street", "city": "Faketon"}})"));
  EXPECT_EQ(odm_test::round_trip(wrapped), wrapped);
  EXPECT_EQ(decode<Wrapped>(odm::to_json(plain)), wrapped);
}

TEST(Embedded, ArrowStarAndGet) {
  Wrapped w{"joe", Address{"s", "c"}};
  EXPECT_EQ(w.address->city, "c");
  EXPECT_EQ((*w.address).street, "s");
  w.address->city = "Boston";
  (*w.address).street = "1 Some Other Street";
  EXPECT_EQ(w.address.get(), (Address{"1 Some Other Street", "Boston"}));
  const Wrapped& cw = w;
  EXPECT_EQ(cw.address->city, "Boston");
  static_assert(std::is_same_v<decltype(cw.address.operator->()), const Address*>);
  static_assert(std::is_same_v<decltype(*cw.address), const Address&>);
  Address moved = *std::move(w.address);
  EXPECT_EQ(moved.city, "Boston");
}

TEST(Embedded, ConstructionFromT) {
  const Address a{"s", "c"};
  odm::Embedded<Address> copied = a;  // implicit, from an lvalue
  odm::Embedded<Address> moved = Address{"s", "c"};
  // in_place forwards to T's constructor; for an aggregate that is C++20's parenthesized
  // aggregate initialization, which clang 14 lacks, so this uses a copy there.
  odm::Embedded<Address> in_place(std::in_place, Address{"s", "c"});
  odm::Embedded<std::string> text(std::in_place, 3, 'x');
  EXPECT_EQ(*text, "xxx");
  odm::Embedded deduced(a);
  static_assert(std::is_same_v<decltype(deduced), odm::Embedded<Address>>);
  EXPECT_EQ(copied, moved);
  EXPECT_EQ(copied, in_place);
  EXPECT_EQ(*deduced, a);
  EXPECT_EQ(odm::Embedded<Address>{}.get(), Address{});
  std::vector<odm::Embedded<Address>> many = {Address{"a", "b"}, Address{"c", "d"}};
  EXPECT_EQ(many[1]->street, "c");
}

TEST(Embedded, IdStaysIdInsideAndErrorsHaveTheDottedPath) {
  const Deep deep{Deep::Level2{Deep::Level2::Level3{7, "x"}}};
  EXPECT_EQ(encoded(deep), odm_test::canonical(R"({"b": {"c": {"id": {"$numberInt": "7"}, "leaf": "x"}}})"));
  EXPECT_EQ(odm_test::round_trip(deep), deep);
  EXPECT_EQ(decode_error<Deep>(R"({"b": {"c": {"id": 7, "leaf": 1}}})"), "b.c.leaf: expected string, got int");
  EXPECT_EQ(decode_error<Deep>(R"({"b": {"c": {"_id": 7, "leaf": "x"}}})"), "b.c.id: missing required field");
  EXPECT_EQ(decode_error<Deep>(R"({"b": {"c": "x"}})"), "b.c: expected object, got string");
  EXPECT_EQ(decode_error<Deep>(R"({"b": []})"), "b: expected object, got array");
}

}  // namespace bson_embedded_test
