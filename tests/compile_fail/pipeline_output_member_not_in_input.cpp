// expect: odm: a member of this stage's output struct is neither computed by the stage nor a member of the documents it receives
// A $set output member that the stage does not compute must come from its input.
#include "pipeline_models.hpp"

namespace agg = odm::agg;

struct Flagged {
  std::int32_t id;
  std::string status;
  std::string label;
  std::int32_t priority;
};

int main() {
#ifdef ODM_COMPILE_FAIL
  auto p = odm::pipeline<cf::Sale>().set<Flagged>(agg::constant<&Flagged::label>(std::string("x")));
#else
  auto p = odm::pipeline<cf::Sale>().set<Flagged>(agg::constant<&Flagged::label>(std::string("x")),
                                                  agg::assign<&Flagged::priority>(odm::field(&cf::Sale::quantity)));
#endif
  return p.size() == 1 ? 0 : 1;
}
