// expect: odm: an accumulator reads a field of another struct than the documents this $group receives
// After $unwind the documents are SaleItem: an accumulator over Sale's fields is refused.
#include "pipeline_models.hpp"

namespace agg = odm::agg;

struct Totals {
  std::int64_t quantity;
};

int main() {
#ifdef ODM_COMPILE_FAIL
  auto p = odm::pipeline<cf::Sale>().unwind<&cf::SaleItem::items>().group<Totals>(
      agg::sum<&Totals::quantity>(odm::field(&cf::Sale::quantity)));
#else
  auto p = odm::pipeline<cf::Sale>().unwind<&cf::SaleItem::items>().group<Totals>(
      agg::sum<&Totals::quantity>(odm::field(&cf::SaleItem::items) / &cf::Item::quantity));
#endif
  return p.size() == 2 ? 0 : 1;
}
