// expect: odm: the value's type does not match the array's element type
// Pushing a number onto an array of strings does not compile.
#include "models.hpp"

int main() {
#ifdef ODM_COMPILE_FAIL
  (void)odm::field(&cf::Book::topics).push(5);
#else
  (void)odm::field(&cf::Book::topics).push("5");
#endif
}
