// expect: no member named
// find_one_and_delete removes a document: there is nothing to upsert or to return after.
#include "options_models.hpp"

void take(odm::Collection<cf::Order>& orders) {
#ifdef ODM_COMPILE_FAIL
  (void)orders.find_one_and_delete(odm::field(&cf::Order::id) == 1, odm::FindOneAndDeleteOptions<cf::Order>{}.upsert());
#else
  (void)orders.find_one_and_update(odm::field(&cf::Order::id) == 1, odm::field(&cf::Order::total).set(0),
                                   odm::FindOneAndUpdateOptions<cf::Order>{}.upsert());
#endif
}

int main() { return 0; }
