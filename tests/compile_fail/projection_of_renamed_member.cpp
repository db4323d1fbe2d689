// expect: odm: the model's member is renamed in its expand phase (odm::renamed_from): declare the same odm::renamed_from on the projection struct's member
// A projection struct that reads a renamed member under its new name only would read a
// stale or missing value from every document the older version wrote.
#include "models.hpp"

#include <odm/evolution/rename.hpp>
#include <odm/query/projection.hpp>

namespace cf {
struct Renamed {
  std::int64_t id = 0;
  std::string title;
  std::string contact;
  struct odm_model {
    static constexpr auto fields = odm::fields(odm::renamed_from<&Renamed::contact>("phone"));
  };
};
struct Card {
  std::int64_t id = 0;
  std::string contact;
#ifndef ODM_COMPILE_FAIL
  struct odm_model {
    static constexpr auto fields = odm::fields(odm::renamed_from<&Card::contact>("phone"));
  };
#endif
};
}  // namespace cf

int main() { (void)odm::projection<cf::Renamed, cf::Card>(); }
