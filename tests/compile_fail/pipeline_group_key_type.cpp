// expect: odm: the result's `id` member has a different type than the group key
// Grouping by the int32 quantity gives int32 keys, not strings.
#include "pipeline_models.hpp"

namespace agg = odm::agg;

int main() {
#ifdef ODM_COMPILE_FAIL
  auto p = odm::pipeline<cf::Sale>().group<cf::PerBuyer>(
      agg::by(odm::field(&cf::Sale::quantity)), agg::sum<&cf::PerBuyer::quantity>(odm::field(&cf::Sale::quantity)));
#else
  auto p = odm::pipeline<cf::Sale>().group<cf::PerBuyer>(
      agg::by(odm::field(&cf::Sale::status)), agg::sum<&cf::PerBuyer::quantity>(odm::field(&cf::Sale::quantity)));
#endif
  return p.size() == 1 ? 0 : 1;
}
