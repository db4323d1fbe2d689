// expect: odm: this $sort orders by another struct than the documents this stage receives
// After $unwind the documents are SaleItem: a sort by Sale's fields is refused.
#include "pipeline_models.hpp"

auto build() {
  auto unwound = odm::pipeline<cf::Sale>().unwind<&cf::SaleItem::items>();
#ifdef ODM_COMPILE_FAIL
  return std::move(unwound).sort(odm::sort(odm::desc(&cf::Sale::quantity)));
#else
  return std::move(unwound).sort(odm::sort(odm::desc(odm::field(&cf::SaleItem::items) / &cf::Item::quantity)));
#endif
}

int main() { return build().size() == 2 ? 0 : 1; }
