// expect: odm: an option in this model's odm::fields(...) names a member of another struct
// A rename copied from another model's declaration names `&Shelf::label`, a member of
// another struct: odm would apply it to whichever member of Titled sits at the same
// position (here `name`, stored as "label"), silently.
#include "models.hpp"

namespace cf {
struct Shelf {
  std::string id;
  std::string label;
};
struct Titled {
  std::string id;
  std::string name;
  std::string title;
  struct odm_model {
#ifdef ODM_COMPILE_FAIL
    static constexpr auto fields = odm::fields(odm::rename(&Shelf::label, "label"));
#else
    static constexpr auto fields = odm::fields(odm::rename(&Titled::name, "label"));
#endif
  };
};
}  // namespace cf

int main() { (void)odm::to_bson(cf::Titled{}); }
