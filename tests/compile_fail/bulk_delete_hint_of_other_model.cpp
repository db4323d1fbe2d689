// expect: odm: this hint's keys are over another model than the collection's
// A bulk write's delete takes the index hint of a delete, by keys over the collection's members.
#include "options_models.hpp"

void purge_orders(odm::Collection<cf::Order>& orders) {
#ifdef ODM_COMPILE_FAIL
  orders.bulk_write()
      .delete_many(odm::field(&cf::Order::total) == 0,
                   odm::DeleteOptions<cf::Order>{}.hint(odm::sort(odm::asc(&cf::Product::stock))))
      .execute();
#else
  orders.bulk_write()
      .delete_many(odm::field(&cf::Order::total) == 0,
                   odm::DeleteOptions<cf::Order>{}.hint(odm::sort(odm::asc(&cf::Order::total))))
      .execute();
#endif
}

int main() { return 0; }
