// expect: odm::Decimal cannot be built from a floating-point number
// Decimal(0.10) would hold the double nearest to 0.10, not 0.10.
#include "models.hpp"

int main() {
#ifdef ODM_COMPILE_FAIL
  odm::Decimal amount(0.10);
#else
  odm::Decimal amount("0.10");
#endif
  (void)amount;
}
