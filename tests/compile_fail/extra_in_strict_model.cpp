// expect: odm: a strict model refuses unknown fields, so it cannot keep them in an odm::Extra member
// A strict model says unknown fields are errors; an odm::Extra member says keep them.
#include "models.hpp"

namespace cf {
struct Keeping {
  std::string id;
  odm::Extra extra;
  struct odm_model {
#ifdef ODM_COMPILE_FAIL
    static constexpr bool strict = true;
#else
    static constexpr bool strict = false;
#endif
  };
};
}  // namespace cf

int main() { (void)odm::to_bson(cf::Keeping{}); }
