// expect: odm: this sort is over another model than the collection's
// A find's sort is over the collection's model: a Product sort on the orders is refused
// (it would send a field orders do not have, silently unsorted).
#include "options_models.hpp"

void sort_orders(odm::Collection<cf::Order>& orders) {
#ifdef ODM_COMPILE_FAIL
  (void)orders.find({}, odm::FindOptions<cf::Order>{}.sort(odm::sort(odm::desc(&cf::Product::stock))));
#else
  (void)orders.find({}, odm::FindOptions<cf::Order>{}.sort(odm::sort(odm::desc(&cf::Order::total))));
#endif
}

int main() { return 0; }
