// expect: odm: inc and mul apply only to numeric fields
// $inc on a string field does not compile.
#include "models.hpp"

int main() {
#ifdef ODM_COMPILE_FAIL
  (void)odm::field(&cf::Book::title).inc(1);
#else
  (void)odm::field(&cf::Book::available).inc(1);
#endif
}
