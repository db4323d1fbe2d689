// expect: FindOptions<cf::Product>
// The options of a find are those of the collection's model: a Product's options do not
// go to the orders.
#include "options_models.hpp"

void page_orders(odm::Collection<cf::Order>& orders) {
#ifdef ODM_COMPILE_FAIL
  (void)orders.find({}, odm::FindOptions<cf::Product>{}.limit(10));
#else
  (void)orders.find({}, odm::FindOptions<cf::Order>{}.limit(10));
#endif
}

int main() { return 0; }
