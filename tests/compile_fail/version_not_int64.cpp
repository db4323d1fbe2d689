// expect: odm::version: the version member must be a std::int64_t
// Versions are counted in a std::int64_t, stored as a long.
#include "models.hpp"

namespace cf {
struct Versioned {
  std::string id;
#ifdef ODM_COMPILE_FAIL
  std::int32_t version = 0;
#else
  std::int64_t version = 0;
#endif
  struct odm_model {
    static constexpr auto fields = odm::fields(odm::version(&Versioned::version));
  };
};
}  // namespace cf

int main() { (void)odm::Tracked<cf::Versioned>(cf::Versioned{}).changes(); }
