// expect: odm::version: the version member cannot be renamed in its expand phase (odm::renamed_from)
// Each release would count the writes under its own name and miss the other's.
#include "models.hpp"

#include <odm/evolution/rename.hpp>

namespace cf {
struct Stocked {
  std::int64_t id = 0;
  std::int64_t stock = 0;
  std::int64_t revision = 0;
  struct odm_model {
#ifdef ODM_COMPILE_FAIL
    static constexpr auto fields =
        odm::fields(odm::version(&Stocked::revision), odm::renamed_from<&Stocked::revision>("version"));
#else
    static constexpr auto fields = odm::fields(odm::version(&Stocked::revision));
#endif
  };
};
}  // namespace cf

// Compiled, never run: the first write instantiates the check.
int main() {
  odm::Client client("mongodb://127.0.0.1:9/");
  auto items = client.database("cf").collection<cf::Stocked>();
  odm::Tracked<cf::Stocked> item(cf::Stocked{});
  return item.save(items) ? 0 : 1;
}
