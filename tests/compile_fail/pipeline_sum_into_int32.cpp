// expect: odm: the member a $sum fills has the wrong type
// MongoDB's sum of int32 values may exceed int32 (it returns a long): the member is std::int64_t.
#include "pipeline_models.hpp"

namespace agg = odm::agg;

struct Narrow {
  std::string id;
  std::int32_t quantity;
};
struct Wide {
  std::string id;
  std::int64_t quantity;
};

#ifdef ODM_COMPILE_FAIL
using Result = Narrow;
#else
using Result = Wide;
#endif

int main() {
  auto p = odm::pipeline<cf::Sale>().group<Result>(agg::by(odm::field(&cf::Sale::status)),
                                                   agg::sum<&Result::quantity>(odm::field(&cf::Sale::quantity)));
  return p.size() == 1 ? 0 : 1;
}
