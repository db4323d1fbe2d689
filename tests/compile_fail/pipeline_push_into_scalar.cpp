// expect: odm: the member a $push or $addToSet fills is an array of the values it collects
#include "pipeline_models.hpp"

namespace agg = odm::agg;

struct One {
  std::string statuses;
};
struct Many {
  std::vector<std::string> statuses;
};

#ifdef ODM_COMPILE_FAIL
using Result = One;
#else
using Result = Many;
#endif

int main() {
  auto p = odm::pipeline<cf::Sale>().group<Result>(agg::add_to_set<&Result::statuses>(odm::field(&cf::Sale::status)));
  return p.size() == 1 ? 0 : 1;
}
