// expect: odm::Money does not convert to a floating-point number
// No implicit way back to binary floating point either; amount().to_double() is the explicit one.
#include "models.hpp"

int main() {
  const odm::Money price("19.99", "USD");
#ifdef ODM_COMPILE_FAIL
  double approx = price;
#else
  double approx = price.amount().to_double();
#endif
  (void)approx;
}
