// expect: odm::Money does not convert to a floating-point number
// No implicit way back to binary floating point either; amount().to_double() is the explicit one.
#include <odm/fields/money.hpp>

int main() {
  const odm::Money price("19.99", "USD");
  double approx = price;
  (void)approx;
}
