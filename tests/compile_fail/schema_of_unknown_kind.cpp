// expect: odm::json_schema: a member's codec states a kind that is none of odm::kinds
// A $jsonSchema says the BSON type of every member, which it reads from the member's
// kind: a kind outside odm's vocabulary cannot be described.
#include <odm/evolution/schema.hpp>

namespace cf {
struct Celsius {
  double value = 0;
};
struct MyOwnKind {};
}  // namespace cf

template <>
struct odm::codec<cf::Celsius> {
#ifdef ODM_COMPILE_FAIL
  using kind = cf::MyOwnKind;
#else
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

int main() { (void)odm::json_schema<cf::Reading>(); }
