// expect: odm::Money cannot be built from a floating-point number
// A double such as 19.99 is already inexact; Money must be built from a string or a Decimal.
#include "models.hpp"

int main() {
#ifdef ODM_COMPILE_FAIL
  odm::Money price(19.99, "USD");
#else
  odm::Money price("19.99", "USD");
#endif
  (void)price;
}
