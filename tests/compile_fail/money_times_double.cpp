// expect: odm::Money cannot be multiplied by a floating-point number
// A tax rate written as 0.075 would already be inexact; it must be an odm::Decimal.
#include "models.hpp"

int main() {
  const odm::Money price("19.99", "USD");
#ifdef ODM_COMPILE_FAIL
  const odm::Money tax = price * 0.075;
#else
  const odm::Money tax = price * odm::Decimal("0.075");
#endif
  (void)tax;
}
