// expect: odm::ScaledAmount: Factor must be a power of ten
// A scale factor of 12 cannot map decimal amounts to whole units.
#include <odm/fields/money.hpp>

int main() {
  odm::ScaledAmount<12> amount;
  (void)amount;
}
