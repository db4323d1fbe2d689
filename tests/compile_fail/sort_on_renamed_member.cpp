// expect: odm: a sort key is a member renamed in its expand phase (odm::renamed_from)
// A find sorts by one field, and a document may hold a renamed member under its old name
// or its new one (the old one is read where present): no sort orders by the value read.
#include "models.hpp"

#include <odm/evolution/rename.hpp>
#include <odm/query/sort.hpp>

namespace cf {
struct Renamed {
  std::int64_t id = 0;
  std::string title;
  std::string contact;
  struct odm_model {
    static constexpr auto fields = odm::fields(odm::renamed_from<&Renamed::contact>("phone"));
  };
};
}  // namespace cf

int main() {
#ifdef ODM_COMPILE_FAIL
  (void)odm::sort(odm::asc(&cf::Renamed::contact));
#else
  (void)odm::sort(odm::asc(&cf::Renamed::title));
#endif
}
