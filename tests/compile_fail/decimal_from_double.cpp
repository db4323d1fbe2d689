// expect: odm::Decimal cannot be built from a floating-point number
// Decimal(0.10) would hold the double nearest to 0.10, not 0.10.
#include <odm/fields/decimal.hpp>

int main() {
  odm::Decimal amount(0.10);
  (void)amount;
}
