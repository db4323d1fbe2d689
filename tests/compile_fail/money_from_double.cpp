// expect: odm::Money cannot be built from a floating-point number
// A double such as 19.99 is already inexact; Money must be built from a string or a Decimal.
#include <odm/fields/money.hpp>

int main() {
  odm::Money price(19.99, "USD");
  (void)price;
}
