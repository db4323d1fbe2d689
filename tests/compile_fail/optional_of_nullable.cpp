// expect: odm: this std::optional holds a type odm may store as null
// expect: optional_value_distinct<std::optional<int>
// An empty optional is stored as null. An optional holding an empty optional would be stored
// as null too, and read back empty: the engaged outer optional would be lost.
#include "models.hpp"

namespace cf {
struct Setting {
  std::string id;
#ifdef ODM_COMPILE_FAIL
  std::optional<std::optional<std::int32_t>> limit;  // "unset" and "set to no limit" both store null
#else
  std::optional<std::int32_t> limit;
  bool limited = false;
#endif
};
}  // namespace cf

int main() { return odm::from_bson<cf::Setting>(odm::to_bson(cf::Setting{"s", {}})).id == "s" ? 0 : 1; }
