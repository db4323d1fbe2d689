// expect: odm: this std::variant's alternatives Earlier and Later cannot be told apart by what odm stores for them, in either order
// expect: variant_alternatives_distinct<int, long
// An int64 member reads a stored int32, and an int32 member reads an int64 that fits it, so
// neither order of the two reads back what was written; an int64 and a string differ.
#include "models.hpp"

namespace cf {
struct Reading {
  std::string id;
#ifdef ODM_COMPILE_FAIL
  std::variant<std::int32_t, std::int64_t> value;
#else
  std::variant<std::int64_t, std::string> value;
#endif
};
}  // namespace cf

int main() { return odm::from_bson<cf::Reading>(odm::to_bson(cf::Reading{"r", std::int64_t{5}})).value.index() == 0 ? 0 : 1; }
