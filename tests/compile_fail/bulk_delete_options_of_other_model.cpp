// expect: DeleteOptions<cf::Product>
// A bulk write's delete takes the delete options of the collection's model: options built
// for another collection (here with a hint over its members) do not reach this one.
#include "options_models.hpp"

void purge_orders(odm::Collection<cf::Order>& orders) {
#ifdef ODM_COMPILE_FAIL
  orders.bulk_write()
      .delete_one(odm::field(&cf::Order::id) == 1,
                  odm::DeleteOptions<cf::Product>{}.hint(odm::sort(odm::asc(&cf::Product::stock))))
      .execute();
#else
  orders.bulk_write()
      .delete_one(odm::field(&cf::Order::id) == 1,
                  odm::DeleteOptions<cf::Order>{}.hint(odm::sort(odm::asc(&cf::Order::id))))
      .execute();
#endif
}

int main() { return 0; }
