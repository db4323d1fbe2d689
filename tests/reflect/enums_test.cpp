// Compile-time enumerator names (odm/reflect/enums.hpp).

#include <odm/reflect/enums.hpp>

#include <gtest/gtest.h>

#include <cstdint>

namespace reflect_enums_test {

enum class Color { red, green, blue };
enum class Gaps { a = -100, b = 0, c = 3, d = 127 };
enum Unscoped { first_value, second_value };
enum class Small : std::uint8_t { zero = 0, big = 200 };
enum class Aliased { one = 1, uno = 1, two = 2 };
enum class Far { near = 1, far = 500 };
struct Holder {
  enum class Inner { x, y };
};

}  // namespace reflect_enums_test

template <>
inline constexpr odm::EnumRange odm::enum_range<reflect_enums_test::Far> = {0, 500};

namespace reflect_enums_test {

using namespace reflect_enums_test;

TEST(EnumNames, NamesAndValues) {
  static_assert(odm::enum_name(Color::red) == "red");
  static_assert(odm::enum_name(Color::blue) == "blue");
  static_assert(odm::enum_from_name<Color>("green") == Color::green);
  static_assert(!odm::enum_from_name<Color>("purple"));
  static_assert(!odm::enum_name(static_cast<Color>(3)));
  EXPECT_EQ(odm::detail::enum_entries<Color>.size(), 3u);
}

TEST(EnumNames, GapsAndNegativeValuesAtTheEdgesOfTheRange) {
  static_assert(odm::enum_name(Gaps::a) == "a");
  static_assert(odm::enum_name(Gaps::d) == "d");
  static_assert(odm::enum_from_name<Gaps>("c") == Gaps::c);
  EXPECT_EQ(odm::detail::enum_entries<Gaps>.size(), 4u);
}

TEST(EnumNames, UnscopedAndNestedEnums) {
  EXPECT_EQ(odm::enum_name(second_value), "second_value");
  EXPECT_EQ(odm::enum_from_name<Unscoped>("first_value"), first_value);
  EXPECT_EQ(odm::enum_name(Holder::Inner::y), "y");
}

TEST(EnumNames, UnsignedUnderlyingType) {
  EXPECT_EQ(odm::enum_name(Small::zero), "zero");
  EXPECT_EQ(odm::enum_name(Small::big), "big");
  EXPECT_EQ(odm::enum_from_name<Small>("big"), Small::big);
}

TEST(EnumNames, AliasesShareOneName) {
  // Two enumerators with one value: the compiler prints one of them for the value, so
  // exactly one name is found for it and a round trip is stable.
  const auto name = odm::enum_name(Aliased::uno);
  ASSERT_TRUE(name);
  EXPECT_TRUE(*name == "one" || *name == "uno");
  EXPECT_EQ(odm::enum_from_name<Aliased>(*name), Aliased::one);
  EXPECT_EQ(odm::enum_name(Aliased::two), "two");
}

TEST(EnumNames, RangeSpecialization) {
  EXPECT_EQ(odm::enum_name(Far::far), "far");
  EXPECT_EQ(odm::enum_from_name<Far>("near"), Far::near);
}

}  // namespace reflect_enums_test
