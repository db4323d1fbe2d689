// expect: odm: this hint's keys are over another model than the collection's
// An index hint by keys names the collection's members.
#include "options_models.hpp"

void count_orders(odm::Collection<cf::Order>& orders) {
#ifdef ODM_COMPILE_FAIL
  (void)orders.count({}, odm::CountOptions<cf::Order>{}.hint(odm::sort(odm::asc(&cf::Product::name))));
#else
  (void)orders.count({}, odm::CountOptions<cf::Order>{}.hint(odm::sort(odm::asc(&cf::Order::customer))));
#endif
}

int main() { return 0; }
