// expect: odm::with: this member holds embedded documents, not references; name the references inside them to resolve
// A member of embedded documents is a step of a path, not its end: the join must be told
// which references inside the line items to resolve. The twin does.
#include "models.hpp"

int main() {
#ifdef ODM_COMPILE_FAIL
  auto relation = odm::with(&cf::Order::items);
#else
  auto relation = odm::with(&cf::Order::items, odm::with(&cf::LineItem::product));
#endif
  (void)relation;
  return 0;
}
