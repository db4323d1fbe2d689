// expect: odm: a stored field name is empty, starts with '$', contains '.' or NUL, or is not valid UTF-8
// The same inside an embedded struct: its stored names are checked as the top level's are.
#include "models.hpp"

namespace cf {
struct Inner {
  std::int32_t value = 0;
  struct odm_model {
#ifdef ODM_COMPILE_FAIL
    static constexpr auto fields = odm::fields(odm::rename(&Inner::value, "\xFF"));
#else
    static constexpr auto fields = odm::fields(odm::rename(&Inner::value, "\xC3\xBF"));
#endif
  };
};
struct Outer {
  std::int64_t id = 0;
  Inner inner;
};
}  // namespace cf

int main() { (void)odm::to_bson(cf::Outer{}); }
