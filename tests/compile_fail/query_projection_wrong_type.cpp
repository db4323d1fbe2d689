// expect: odm: a member of the projection struct has a different type than the model's member
// A projection struct member of another type than the model's does not compile.
#include "models.hpp"

int main() {
#ifdef ODM_COMPILE_FAIL
  struct AvailableAsText {
    std::string title;
    std::string available;
  };
  (void)odm::projection<cf::Book, AvailableAsText>();
#else
  (void)odm::projection<cf::Book, cf::Summary>();
#endif
}
