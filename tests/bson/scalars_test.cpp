// Scalar codecs: bool, 32- and 64-bit integers, double.

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace bson_scalars_test {

using odm_test::decode;
using odm_test::decode_error;
using odm_test::encoded;

struct Ints {
  std::int32_t small;
  std::int64_t large;
  bool operator==(const Ints&) const = default;
};

struct Counter {
  struct Inner {
    std::int32_t n;
    bool operator==(const Inner&) const = default;
  };
  Inner inner;
  bool operator==(const Counter&) const = default;
};

struct Narrow {
  std::int16_t s;
  std::int8_t b;
  bool operator==(const Narrow&) const = default;
};

struct Real {
  double x;
  bool operator==(const Real&) const = default;
};

struct Flag {
  bool on;
  bool operator==(const Flag&) const = default;
};

TEST(Scalars, Int32StoredAsInt32AtItsBoundaries) {
  EXPECT_EQ(encoded(Ints{std::numeric_limits<std::int32_t>::max(), 0}),
            odm_test::canonical(R"({"small": {"$numberInt": "2147483647"}, "large": {"$numberLong": "0"}})"));
  EXPECT_EQ(encoded(Ints{std::numeric_limits<std::int32_t>::min(), 0}),
            odm_test::canonical(R"({"small": {"$numberInt": "-2147483648"}, "large": {"$numberLong": "0"}})"));
  for (std::int32_t v : {std::numeric_limits<std::int32_t>::min(), -1, 0, 1, std::numeric_limits<std::int32_t>::max()})
    EXPECT_EQ(odm_test::round_trip(Ints{v, v}), (Ints{v, v}));
}

TEST(Scalars, Int64StoredAsInt64WhateverTheValue) {
  // A small count stays a "long": one BSON type per field.
  EXPECT_EQ(encoded(Ints{0, 1}),
            odm_test::canonical(R"({"small": {"$numberInt": "0"}, "large": {"$numberLong": "1"}})"));
  EXPECT_EQ(encoded(Ints{0, std::numeric_limits<std::int64_t>::max()}),
            odm_test::canonical(R"({"small": {"$numberInt": "0"}, "large": {"$numberLong": "9223372036854775807"}})"));
  EXPECT_EQ(encoded(Ints{0, std::numeric_limits<std::int64_t>::min()}),
            odm_test::canonical(R"({"small": {"$numberInt": "0"}, "large": {"$numberLong": "-9223372036854775808"}})"));
  for (std::int64_t v : {std::numeric_limits<std::int64_t>::min(), std::int64_t{-1}, std::int64_t{0},
                         std::int64_t{1} << 40, std::numeric_limits<std::int64_t>::max()})
    EXPECT_EQ(odm_test::round_trip(Ints{0, v}), (Ints{0, v}));
}

TEST(Scalars, Int64MemberReadsAnInt32) {
  EXPECT_EQ(decode<Ints>(R"({"small": 1, "large": 7})"), (Ints{1, 7}));
}

TEST(Scalars, Int32MemberReadsAnInt64ThatFits) {
  EXPECT_EQ(decode<Ints>(R"({"small": {"$numberLong": "2147483647"}, "large": 0})"),
            (Ints{std::numeric_limits<std::int32_t>::max(), 0}));
  EXPECT_EQ(decode<Ints>(R"({"small": {"$numberLong": "-2147483648"}, "large": 0})"),
            (Ints{std::numeric_limits<std::int32_t>::min(), 0}));
}

TEST(Scalars, Int64ThatDoesNotFitInt32IsAnErrorNamingThePath) {
  EXPECT_EQ(decode_error<Counter>(R"({"inner": {"n": {"$numberLong": "2147483648"}}})"),
            "inner.n: value 2147483648 does not fit a 32-bit integer");
  EXPECT_EQ(decode_error<Counter>(R"({"inner": {"n": {"$numberLong": "-2147483649"}}})"),
            "inner.n: value -2147483649 does not fit a 32-bit integer");
}

TEST(Scalars, NarrowIntegersAreInt32AndRangeChecked) {
  EXPECT_EQ(encoded(Narrow{-32768, 127}),
            odm_test::canonical(R"({"s": {"$numberInt": "-32768"}, "b": {"$numberInt": "127"}})"));
  EXPECT_EQ(odm_test::round_trip(Narrow{32767, -128}), (Narrow{32767, -128}));
  EXPECT_EQ(decode_error<Narrow>(R"({"s": 32768, "b": 0})"), "s: value 32768 does not fit a 16-bit integer");
  EXPECT_EQ(decode_error<Narrow>(R"({"s": 0, "b": -129})"), "b: value -129 does not fit a 8-bit integer");
}

TEST(Scalars, DoubleWhereAnIntegerIsDeclaredIsAnError) {
  EXPECT_EQ(decode_error<Counter>(R"({"inner": {"n": 1.0}})"), "inner.n: expected int, got double");
  EXPECT_EQ(decode_error<Counter>(R"({"inner": {"n": 1.5}})"), "inner.n: expected int, got double");
  EXPECT_EQ(decode_error<Ints>(R"({"small": 1, "large": 2.0})"), "large: expected long, got double");
  EXPECT_EQ(decode_error<Ints>(R"({"small": "1", "large": 2})"), "small: expected int, got string");
  EXPECT_EQ(decode_error<Ints>(R"({"small": true, "large": 2})"), "small: expected int, got bool");
  EXPECT_EQ(decode_error<Ints>(R"({"small": 1, "large": {"$numberDecimal": "2"}})"),
            "large: expected long, got decimal");
}

TEST(Scalars, DoubleStoredAsDouble) {
  EXPECT_EQ(encoded(Real{0.1}), odm_test::canonical(R"({"x": {"$numberDouble": "0.1"}})"));
  EXPECT_EQ(encoded(Real{2.0}), odm_test::canonical(R"({"x": {"$numberDouble": "2.0"}})"));
  EXPECT_EQ(odm_test::round_trip(Real{-1e308}), Real{-1e308});
  EXPECT_EQ(odm_test::round_trip(Real{std::numeric_limits<double>::denorm_min()}),
            Real{std::numeric_limits<double>::denorm_min()});
  const auto infinite = odm_test::round_trip(Real{std::numeric_limits<double>::infinity()});
  EXPECT_EQ(infinite.x, std::numeric_limits<double>::infinity());
  const auto nan = odm_test::round_trip(Real{std::numeric_limits<double>::quiet_NaN()});
  EXPECT_TRUE(nan.x != nan.x);
}

TEST(Scalars, IntegersAreAcceptedForDouble) {
  EXPECT_EQ(decode<Real>(R"({"x": 7})"), Real{7.0});
  EXPECT_EQ(decode<Real>(R"({"x": -2147483648})"), Real{-2147483648.0});
  EXPECT_EQ(decode<Real>(R"({"x": {"$numberLong": "9007199254740992"}})"), Real{9007199254740992.0});
  EXPECT_EQ(decode<Real>(R"({"x": {"$numberLong": "-9007199254740992"}})"), Real{-9007199254740992.0});
}

TEST(Scalars, Int64BeyondTwoToThe53IsRefusedForDouble) {
  EXPECT_EQ(decode_error<Real>(R"({"x": {"$numberLong": "9007199254740993"}})"),
            "x: long value 9007199254740993 cannot be held exactly by a double");
  EXPECT_EQ(decode_error<Real>(R"({"x": {"$numberLong": "-9007199254740993"}})"),
            "x: long value -9007199254740993 cannot be held exactly by a double");
  EXPECT_EQ(decode_error<Real>(R"({"x": {"$numberLong": "9223372036854775807"}})"),
            "x: long value 9223372036854775807 cannot be held exactly by a double");
}

TEST(Scalars, OtherTypesAreRefusedForDouble) {
  EXPECT_EQ(decode_error<Real>(R"({"x": "1.5"})"), "x: expected double, got string");
  EXPECT_EQ(decode_error<Real>(R"({"x": {"$numberDecimal": "1.5"}})"), "x: expected double, got decimal");
  EXPECT_EQ(decode_error<Real>(R"({"x": null})"), "x: expected double, got null");
}

TEST(Scalars, Bool) {
  EXPECT_EQ(encoded(Flag{true}), odm_test::canonical(R"({"on": true})"));
  EXPECT_EQ(encoded(Flag{false}), odm_test::canonical(R"({"on": false})"));
  EXPECT_EQ(decode<Flag>(R"({"on": true})"), Flag{true});
  EXPECT_EQ(decode<Flag>(R"({"on": false})"), Flag{false});
  // No truthiness: 1, "true" and null are not booleans.
  EXPECT_EQ(decode_error<Flag>(R"({"on": 1})"), "on: expected bool, got int");
  EXPECT_EQ(decode_error<Flag>(R"({"on": "true"})"), "on: expected bool, got string");
  EXPECT_EQ(decode_error<Flag>(R"({"on": null})"), "on: expected bool, got null");
}

TEST(Scalars, DecodeErrorIsAPathErrorWithPathAndReason) {
  try {
    (void)decode<Counter>(R"({"inner": {"n": "x"}})");
    FAIL() << "no error";
  } catch (const odm::DecodeError& e) {
    EXPECT_EQ(e.path(), "inner.n");
    EXPECT_EQ(e.reason(), "expected int, got string");
    EXPECT_STREQ(e.what(), "inner.n: expected int, got string");
    const odm::Error& base = e;  // everything odm throws is an odm::Error
    EXPECT_STREQ(base.what(), "inner.n: expected int, got string");
  }
}

}  // namespace bson_scalars_test
