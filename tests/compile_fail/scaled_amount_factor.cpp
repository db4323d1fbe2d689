// expect: odm::ScaledAmount: Factor must be a power of ten
// A scale factor of 12 cannot map decimal amounts to whole units.
#include "models.hpp"

int main() {
#ifdef ODM_COMPILE_FAIL
  odm::ScaledAmount<12> amount;
#else
  odm::ScaledAmount<100> amount;
#endif
  (void)amount;
}
