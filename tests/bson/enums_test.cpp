// Enums: stored by enumerator name, or by integer when odm::enum_storage says so.

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <cstdint>

namespace enums_test {

enum class Color { red, green, blue };
enum class Priority : std::int8_t { low = -1, normal = 0, high = 1 };
enum class Big : std::int64_t { small = 1, huge = 5'000'000'000 };
enum class Http { ok = 200, not_found = 404 };
enum class Mask : std::uint32_t { none = 0, top = 0x80000000u };
enum Plain { plain_a, plain_b };  // unscoped

struct Paint {
  Color color;
  bool operator==(const Paint&) const = default;
};
struct Task {
  Priority priority;
  bool operator==(const Task&) const = default;
};
struct Sized {
  Big size;
  bool operator==(const Sized&) const = default;
};
struct Response {
  Http status;
  bool operator==(const Response&) const = default;
};
struct Masked {
  Mask mask;
  bool operator==(const Masked&) const = default;
};
struct Legacy {
  Plain p;
  std::vector<Color> colors;
  bool operator==(const Legacy&) const = default;
};

}  // namespace enums_test

template <>
inline constexpr odm::EnumStorage odm::enum_storage<enums_test::Priority> = odm::EnumStorage::integer;
template <>
inline constexpr odm::EnumStorage odm::enum_storage<enums_test::Big> = odm::EnumStorage::integer;
template <>
inline constexpr odm::EnumRange odm::enum_range<enums_test::Http> = {100, 599};
template <>
inline constexpr odm::EnumStorage odm::enum_storage<enums_test::Mask> = odm::EnumStorage::integer;

namespace bson_enums_test {

using namespace enums_test;
using odm_test::decode;
using odm_test::decode_error;
using odm_test::encoded;

TEST(Enums, StoredByName) {
  EXPECT_EQ(encoded(Paint{Color::green}), odm_test::canonical(R"({"color": "green"})"));
  EXPECT_EQ(decode<Paint>(R"({"color": "blue"})"), Paint{Color::blue});
  for (Color c : {Color::red, Color::green, Color::blue}) EXPECT_EQ(odm_test::round_trip(Paint{c}), Paint{c});
  EXPECT_EQ(encoded(Legacy{plain_b, {Color::red, Color::blue}}),
            odm_test::canonical(R"({"p": "plain_b", "colors": ["red", "blue"]})"));
}

TEST(Enums, UnknownNameIsAnError) {
  EXPECT_EQ(decode_error<Paint>(R"({"color": "purple"})"), "color: \"purple\" is not a name of this enum");
  EXPECT_EQ(decode_error<Paint>(R"({"color": "Red"})"), "color: \"Red\" is not a name of this enum");
  EXPECT_EQ(decode_error<Paint>(R"({"color": ""})"), "color: \"\" is not a name of this enum");
  EXPECT_EQ(decode_error<Legacy>(R"({"p": "plain_a", "colors": ["red", "mauve"]})"),
            "colors.1: \"mauve\" is not a name of this enum");
  // A name-stored enum does not read numbers.
  EXPECT_EQ(decode_error<Paint>(R"({"color": 1})"), "color: expected string, got int");
}

TEST(Enums, ValueWithoutANameIsRefusedOnEncode) {
  EXPECT_EQ(odm_test::encode_error(Paint{static_cast<Color>(7)}), "color: enum value 7 has no enumerator name to store");
  EXPECT_EQ(odm_test::encode_error(Legacy{plain_a, {Color::red, static_cast<Color>(-3)}}),
            "colors.1: enum value -3 has no enumerator name to store");
}

TEST(Enums, EnumRangeSpecializationFindsNamesOutsideTheDefaultRange) {
  EXPECT_EQ(encoded(Response{Http::not_found}), odm_test::canonical(R"({"status": "not_found"})"));
  EXPECT_EQ(decode<Response>(R"({"status": "ok"})"), Response{Http::ok});
  EXPECT_EQ(odm::enum_name(Http::ok), "ok");
  EXPECT_EQ(odm::enum_from_name<Http>("not_found"), Http::not_found);
}

TEST(Enums, IntegerStorageViaSpecialization) {
  EXPECT_EQ(encoded(Task{Priority::high}), odm_test::canonical(R"({"priority": {"$numberInt": "1"}})"));
  EXPECT_EQ(encoded(Task{Priority::low}), odm_test::canonical(R"({"priority": {"$numberInt": "-1"}})"));
  EXPECT_EQ(decode<Task>(R"({"priority": 0})"), Task{Priority::normal});
  EXPECT_EQ(decode<Task>(R"({"priority": {"$numberLong": "-1"}})"), Task{Priority::low});
  // An integer enum keeps values that have no name (unlike name storage).
  EXPECT_EQ(odm_test::round_trip(Task{static_cast<Priority>(42)}), Task{static_cast<Priority>(42)});
  EXPECT_EQ(decode_error<Task>(R"({"priority": "high"})"), "priority: expected long, got string");
  EXPECT_EQ(decode_error<Task>(R"({"priority": 128})"), "priority: value 128 is out of the enum's range");
  EXPECT_EQ(decode_error<Task>(R"({"priority": -129})"), "priority: value -129 is out of the enum's range");
}

TEST(Enums, SixtyFourBitIntegerEnumIsStoredAsInt64) {
  EXPECT_EQ(encoded(Sized{Big::huge}), odm_test::canonical(R"({"size": {"$numberLong": "5000000000"}})"));
  EXPECT_EQ(encoded(Sized{Big::small}), odm_test::canonical(R"({"size": {"$numberLong": "1"}})"));
  EXPECT_EQ(odm_test::round_trip(Sized{Big::huge}), Sized{Big::huge});
}

TEST(Enums, UnsignedIntegerEnumAboveInt32MaxRoundTrips) {
  // scalars.hpp stores an integer enum whose underlying type is under 8 bytes as int32:
  // an std::uint32_t value of 2^31 is narrowed to -2147483648 on the way out and then
  // refused on the way back ("out of the enum's range"). It needs int64 (or a refusal).
  EXPECT_EQ(odm_test::encode_error(Masked{Mask::top}), "<no error>");
  EXPECT_EQ(odm_test::error_of([] { (void)odm_test::round_trip(Masked{Mask::top}); }), "<no error>");
}

}  // namespace bson_enums_test
