// expect: odm: a facet's sub-pipeline reads the documents this $facet receives
// Every facet starts from what the $facet stage receives, not from the collection's model.
#include "pipeline_models.hpp"

#include <vector>

struct Counted {
  std::int64_t n;
};
struct Report {
  odm::Documents<Counted> counted;
};

int main() {
#ifdef ODM_COMPILE_FAIL
  auto p = odm::pipeline<cf::Sale>().unwind<&cf::SaleItem::items>().facet<Report>(
      odm::agg::facet<&Report::counted>(odm::pipeline<cf::Sale>().count<&Counted::n>()));
#else
  auto p = odm::pipeline<cf::Sale>().unwind<&cf::SaleItem::items>().facet<Report>(
      odm::agg::facet<&Report::counted>(odm::pipeline<cf::SaleItem>().count<&Counted::n>()));
#endif
  return p.size() == 2 ? 0 : 1;
}
