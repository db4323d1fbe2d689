// expect: odm: std::string_view does not own its characters, so a decoded document could not hold them
// A decoded std::string_view would point into the BSON buffer, which is gone once the
// document is destroyed.
#include "models.hpp"

namespace cf {
struct Message {
  std::string id;
#ifdef ODM_COMPILE_FAIL
  std::string_view body;
#else
  std::string body;
#endif
};
}  // namespace cf

int main() { (void)odm::from_bson<cf::Message>(odm::Document()); }
