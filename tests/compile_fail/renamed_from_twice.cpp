// expect: odm: a member has two options saying the same thing
// Two previous names of one member (odm::renamed_from twice): the later one would silently win.
#include "models.hpp"

#include <odm/evolution/rename.hpp>

namespace cf {
struct Visits {
  std::int64_t id = 0;
  std::int64_t visits = 0;
  struct odm_model {
#ifdef ODM_COMPILE_FAIL
    static constexpr auto fields =
        odm::fields(odm::renamed_from<&Visits::visits>("hits"), odm::renamed_from<&Visits::visits>("views"));
#else
    static constexpr auto fields = odm::fields(odm::renamed_from<&Visits::visits>("hits"));
#endif
  };
};
}  // namespace cf

int main() { (void)odm::to_bson(cf::Visits{}); }
