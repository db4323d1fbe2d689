// expect: odm: this operator applies only to array fields
// $push on a field that is not an array does not compile.
#include "models.hpp"

int main() {
#ifdef ODM_COMPILE_FAIL
  (void)odm::field(&cf::Book::title).push("x");
#else
  (void)odm::field(&cf::Book::topics).push("x");
#endif
}
