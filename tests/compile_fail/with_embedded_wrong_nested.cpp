// expect: odm::with: a relation nested under a member of embedded documents must be one of the embedded type's members
// Under &Order::items the nested relations are the line item's; a product's member there
// is a mistake in the path. The twin nests the line item's reference.
#include "models.hpp"

namespace cf {
struct Category {
  std::string id;
};
struct ShelvedProduct {
  std::int64_t id;
  odm::Ref<Category> category;
};
}  // namespace cf

int main() {
#ifdef ODM_COMPILE_FAIL
  auto relation = odm::with(&cf::Order::items, odm::with(&cf::ShelvedProduct::category));
#else
  auto relation = odm::with(&cf::Order::items, odm::with(&cf::LineItem::product));
#endif
  (void)relation;
  return 0;
}
