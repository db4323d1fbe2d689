// expect: odm::Money cannot be multiplied by a floating-point number
// A tax rate written as 0.075 would already be inexact; it must be an odm::Decimal.
#include <odm/fields/money.hpp>

int main() {
  const odm::Money price("19.99", "USD");
  const odm::Money tax = price * 0.075;
  (void)tax;
}
