// expect: odm: this $match filters another struct than the documents this stage receives
// After a $group the documents are PerBuyer: a filter over Sale's fields names fields they lack.
#include "pipeline_models.hpp"

namespace agg = odm::agg;

auto build() {
  auto grouped = odm::pipeline<cf::Sale>().group<cf::PerBuyer>(
      agg::by(odm::field(&cf::Sale::buyer)), agg::sum<&cf::PerBuyer::quantity>(odm::field(&cf::Sale::quantity)));
#ifdef ODM_COMPILE_FAIL
  return std::move(grouped).match(odm::field(&cf::Sale::quantity) > 3);
#else
  return std::move(grouped).match(odm::field(&cf::PerBuyer::quantity) > 3);
#endif
}

int main() { return build().size() == 2 ? 0 : 1; }
