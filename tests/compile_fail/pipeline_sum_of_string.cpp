// expect: odm: $sum adds numbers
// A $sum over a string field is refused (MongoDB would silently skip every value: 0).
#include "pipeline_models.hpp"

namespace agg = odm::agg;

struct Totals {
  std::int64_t quantity;
};

int main() {
#ifdef ODM_COMPILE_FAIL
  auto p = odm::pipeline<cf::Sale>().group<Totals>(agg::sum<&Totals::quantity>(odm::field(&cf::Sale::status)));
#else
  auto p = odm::pipeline<cf::Sale>().group<Totals>(agg::sum<&Totals::quantity>(odm::field(&cf::Sale::quantity)));
#endif
  return p.size() == 1 ? 0 : 1;
}
