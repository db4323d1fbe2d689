// expect: odm::with: the member holds no reference (odm::Ref, odm::ParentRef, odm::RefMany) and no embedded document
// A join path must end at a reference: a string member has none. The twin names the
// reference inside the order's embedded line items.
#include "models.hpp"

int main() {
#ifdef ODM_COMPILE_FAIL
  auto relation = odm::with(&cf::Order::note);
#else
  auto relation = odm::with(&cf::Order::items, odm::with(&cf::LineItem::product));
#endif
  (void)relation;
  return 0;
}
