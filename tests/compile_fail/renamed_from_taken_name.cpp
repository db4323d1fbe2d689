// expect: odm::renamed_from: a previous name is the stored name of a member
// A rename's previous name that another member is stored under: one field would hold two
// members' values.
#include "models.hpp"

#include <odm/evolution/rename.hpp>

namespace cf {
struct Counter {
  std::int64_t id = 0;
  std::int64_t visits = 0;
  std::int64_t hits = 0;
  struct odm_model {
#ifdef ODM_COMPILE_FAIL
    static constexpr auto fields = odm::fields(odm::renamed_from<&Counter::visits>("hits"));
#else
    static constexpr auto fields = odm::fields(odm::renamed_from<&Counter::visits>("old_visits"));
#endif
  };
};
}  // namespace cf

int main() { (void)odm::to_bson(cf::Counter{}); }
