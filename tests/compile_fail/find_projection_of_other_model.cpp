// expect: odm: this projection is of another model than the collection's
// A find's projection is of the collection's model.
#include "options_models.hpp"

namespace cf {
struct Named {
  std::string name;
};
struct Customer {
  std::string customer;
};
}  // namespace cf

void names(odm::Collection<cf::Order>& orders) {
#ifdef ODM_COMPILE_FAIL
  (void)orders.find<odm::Document>({}, odm::FindOptions<cf::Order>{}.projection(odm::projection<cf::Product, cf::Named>()));
#else
  (void)orders.find<odm::Document>({}, odm::FindOptions<cf::Order>{}.projection(odm::projection<cf::Order, cf::Customer>()));
#endif
}

int main() { return 0; }
