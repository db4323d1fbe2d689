// expect: odm: a struct has two members that keep unknown fields (odm::Extra); keep one
// Unknown fields go to one place.
#include "models.hpp"

namespace cf {
struct Keeping {
  std::string id;
  odm::Extra extra;
#ifdef ODM_COMPILE_FAIL
  odm::Extra more;
#endif
};
}  // namespace cf

int main() { (void)odm::to_bson(cf::Keeping{}); }
