// expect: odm: the member a $sum fills has the wrong type
// A sum of Money amounts is a Decimal, not a Money.
#include "pipeline_models.hpp"

namespace agg = odm::agg;

struct AsMoney {
  odm::Money spent;
};
struct AsDecimal {
  odm::Decimal spent;
};

#ifdef ODM_COMPILE_FAIL
using Result = AsMoney;
#else
using Result = AsDecimal;
#endif

int main() {
  auto p = odm::pipeline<cf::Sale>().group<Result>(agg::sum<&Result::spent>(agg::amount(odm::field(&cf::Sale::total))));
  return p.size() == 1 ? 0 : 1;
}
