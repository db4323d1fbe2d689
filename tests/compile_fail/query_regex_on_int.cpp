// expect: odm: regex applies only to string fields
// A regular expression on an integer field does not compile.
#include "models.hpp"

int main() {
#ifdef ODM_COMPILE_FAIL
  (void)odm::field(&cf::Book::available).regex("1");
#else
  (void)odm::field(&cf::Book::title).regex("1");
#endif
}
