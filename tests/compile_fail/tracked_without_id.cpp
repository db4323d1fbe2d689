// expect: odm::Tracked: the model needs an id member (stored as _id)
// A save finds its document by _id.
#include "models.hpp"

namespace cf {
struct Anonymous {
#ifndef ODM_COMPILE_FAIL
  std::string id;
#endif
  std::string name;
};
}  // namespace cf

int main() { (void)odm::Tracked<cf::Anonymous>(cf::Anonymous{}).changes(); }
