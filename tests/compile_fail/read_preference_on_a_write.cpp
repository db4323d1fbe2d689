// expect: read_preference
// A write goes to the primary: its options have no read preference (a find's have).
#include "options_models.hpp"

void touch(odm::Collection<cf::Order>& orders) {
  const odm::ReadPreference secondary(odm::ReadMode::secondary);
#ifdef ODM_COMPILE_FAIL
  orders.delete_many({}, odm::DeleteOptions<cf::Order>{}.read_preference(secondary));
#else
  (void)orders.find({}, odm::FindOptions<cf::Order>{}.read_preference(secondary));
#endif
}

int main() { return 0; }
