// expect: no member named
// A replacement document has no positional operators, so replace_one takes no array
// filters (update_one does).
#include "options_models.hpp"

#include <vector>

void reset(odm::Collection<cf::Order>& orders, const cf::Order& order) {
  std::vector<odm::Document> filters;
#ifdef ODM_COMPILE_FAIL
  orders.replace_one(odm::field(&cf::Order::id) == order.id, order,
                     odm::ReplaceOptions<cf::Order>{}.upsert().array_filters(filters));
#else
  orders.update_one(odm::field(&cf::Order::id) == order.id, odm::field(&cf::Order::total).set(0),
                    odm::UpdateOptions<cf::Order>{}.upsert().array_filters(filters));
#endif
}

int main() { return 0; }
