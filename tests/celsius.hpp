#pragma once
// A user's type with a codec of its own, the README's example: a temperature kept as a
// double. Shared by the tests of the member table, of typed queries and of the driver.

#include <odm/bson/kind.hpp>
#include <odm/bson/scalars.hpp>

#include <bson/bson.h>

#include <string_view>

namespace odm_test {

struct Celsius {
  double value = 0;
  friend bool operator==(const Celsius&, const Celsius&) = default;
};

}  // namespace odm_test

template <>
struct odm::codec<odm_test::Celsius> {
  // double: temperatures are measurements, not exact amounts.
  using kind = odm::kind_of<double>;
  static void encode(bson_t* parent, std::string_view key, const odm_test::Celsius& c) {
    odm::codec<double>::encode(parent, key, c.value);
  }
  static void decode(const bson_iter_t& it, odm_test::Celsius& out) { odm::codec<double>::decode(it, out.value); }
};
