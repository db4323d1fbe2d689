// expect: odm: this codec does not say what it stores
// A codec must state the kind it writes (odm/bson/kind.hpp): the member table, path
// checks and schema generation read it there.
#include "models.hpp"

namespace cf {
struct Celsius {
  double value = 0;
};
}  // namespace cf

template <>
struct odm::codec<cf::Celsius> {
#ifndef ODM_COMPILE_FAIL
  using kind = odm::kind_of<double>;
#endif
  static void encode(bson_t* parent, std::string_view key, const cf::Celsius& c) {
    odm::codec<double>::encode(parent, key, c.value);
  }
  static void decode(const bson_iter_t& it, cf::Celsius& out) { odm::codec<double>::decode(it, out.value); }
};

namespace cf {
struct Reading {
  odm::ObjectId id;
  Celsius temperature;
};
}  // namespace cf

int main() { (void)odm::to_bson(cf::Reading{}); }
