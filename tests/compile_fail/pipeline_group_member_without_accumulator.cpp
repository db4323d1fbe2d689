// expect: odm: every member of a $group's result struct but `id` needs an accumulator
// A result member no accumulator fills would always read as missing.
#include "pipeline_models.hpp"

namespace agg = odm::agg;

struct Report {
  std::string id;
  std::int64_t quantity;
  std::int64_t sales;
};

int main() {
#ifdef ODM_COMPILE_FAIL
  auto p = odm::pipeline<cf::Sale>().group<Report>(agg::by(odm::field(&cf::Sale::status)),
                                                   agg::sum<&Report::quantity>(odm::field(&cf::Sale::quantity)));
#else
  auto p = odm::pipeline<cf::Sale>().group<Report>(agg::by(odm::field(&cf::Sale::status)),
                                                   agg::sum<&Report::quantity>(odm::field(&cf::Sale::quantity)),
                                                   agg::count<&Report::sales>());
#endif
  return p.size() == 1 ? 0 : 1;
}
