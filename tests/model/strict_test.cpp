// Strict models refuse fields they do not declare; the default ignores them.

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace strict_test {

struct Lenient {
  std::string name;
  bool operator==(const Lenient&) const = default;
};

struct Strict {
  std::string name;
  std::optional<std::int32_t> age;
  struct odm_model {
    static constexpr bool strict = true;
  };
  bool operator==(const Strict&) const = default;
};

struct OuterStrict {
  std::int32_t n;
  bool operator==(const OuterStrict&) const = default;
};

struct ExplicitlyLenient {
  std::int32_t n;
  struct odm_model {
    static constexpr bool strict = false;
  };
  bool operator==(const ExplicitlyLenient&) const = default;
};

struct Holder {
  std::string id;
  std::vector<Strict> people;
  Lenient lenient;
  bool operator==(const Holder&) const = default;
};

}  // namespace strict_test

template <>
struct odm::model<strict_test::OuterStrict> {
  static constexpr bool strict = true;
};

namespace model_strict_test {

using namespace strict_test;
using odm_test::decode;
using odm_test::decode_error;

TEST(Strict, DefaultIgnoresUnknownFields) {
  static_assert(!odm::is_strict<Lenient>);
  static_assert(!odm::is_strict<ExplicitlyLenient>);
  EXPECT_EQ(decode<Lenient>(R"({"name": "x", "extra": 1})"), Lenient{"x"});
  EXPECT_EQ(decode<ExplicitlyLenient>(R"({"extra": 1, "n": 2})"), ExplicitlyLenient{2});
}

TEST(Strict, UnknownFieldIsAnErrorWithPath) {
  static_assert(odm::is_strict<Strict>);
  EXPECT_EQ(decode_error<Strict>(R"({"name": "x", "extra": 1})"), "extra: unknown field (the model is strict)");
  EXPECT_EQ(decode_error<Strict>(R"({"extra": 1, "name": "x"})"), "extra: unknown field (the model is strict)");
  EXPECT_EQ(decode_error<Holder>(R"({"_id": "h", "people": [{"name": "a"}, {"name": "b", "agee": 3}],
                                     "lenient": {"name": "l", "whatever": true}})"),
            "people.1.agee: unknown field (the model is strict)");
  // Its declared fields, optional ones included, are fine; the lenient neighbour still ignores.
  EXPECT_EQ(decode<Holder>(R"({"_id": "h", "people": [{"name": "a", "age": 3}], "lenient": {"name": "l", "x": 1}})"),
            (Holder{"h", {Strict{"a", 3}}, Lenient{"l"}}));
}

TEST(Strict, StrictViaOuterModel) {
  static_assert(odm::is_strict<OuterStrict>);
  EXPECT_EQ(decode_error<OuterStrict>(R"({"n": 1, "_id": 5})"), "_id: unknown field (the model is strict)");
  EXPECT_EQ(decode<OuterStrict>(R"({"n": 1})"), OuterStrict{1});
}

}  // namespace model_strict_test
