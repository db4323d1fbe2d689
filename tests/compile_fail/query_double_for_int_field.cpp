// expect: odm: the value's type does not match the field's type
// A double for an int32 field would be narrowed: it does not compile.
#include "models.hpp"

int main() {
#ifdef ODM_COMPILE_FAIL
  (void)(odm::field(&cf::Book::available) == 1.5);
#else
  (void)(odm::field(&cf::Book::available) == 1);
#endif
}
