// expect: odm: the member an $avg fills has the wrong type
// The average of integers is a double in MongoDB.
#include "pipeline_models.hpp"

namespace agg = odm::agg;

struct IntAverage {
  std::int32_t quantity;
};
struct DoubleAverage {
  double quantity;
};

#ifdef ODM_COMPILE_FAIL
using Result = IntAverage;
#else
using Result = DoubleAverage;
#endif

int main() {
  auto p = odm::pipeline<cf::Sale>().group<Result>(agg::avg<&Result::quantity>(odm::field(&cf::Sale::quantity)));
  return p.size() == 1 ? 0 : 1;
}
