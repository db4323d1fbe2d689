// expect: odm: a member of the projection struct has no member of the same name in the model
// A projection struct member the model lacks does not compile.
#include "models.hpp"

int main() {
#ifdef ODM_COMPILE_FAIL
  struct WithPages {
    std::string title;
    std::int32_t pages;
  };
  (void)odm::projection<cf::Book, WithPages>();
#else
  (void)odm::projection<cf::Book, cf::Summary>();
#endif
}
