// expect: odm: the value's type does not match the field's type
// Comparing an int32 field with a string does not compile.
#include "models.hpp"

int main() {
#ifdef ODM_COMPILE_FAIL
  (void)(odm::field(&cf::Book::available) > std::string("0"));
#else
  (void)(odm::field(&cf::Book::title) > std::string("0"));
#endif
}
