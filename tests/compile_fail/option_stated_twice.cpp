// expect: odm: a member has two options saying the same thing
// Two renames of one member (or odm::defaulted and odm::required of one member): the later
// option would silently win over the earlier one.
#include "models.hpp"

namespace cf {
struct Titled {
  std::string id;
  std::string name;
  std::string title = "untitled";
  struct odm_model {
#ifdef ODM_COMPILE_FAIL
    static constexpr auto fields = odm::fields(odm::rename(&Titled::title, "book_title"), odm::defaulted(&Titled::title),
                                               odm::required(&Titled::title));
#else
    // Two options about different facts of one member are fine.
    static constexpr auto fields = odm::fields(odm::rename(&Titled::title, "book_title"), odm::defaulted(&Titled::title));
#endif
  };
};
}  // namespace cf

int main() { (void)odm::to_bson(cf::Titled{}); }
