// expect: odm: the member a facet fills holds its sub-pipeline's results
// A facet's member holds what its sub-pipeline passes on, read as a cursor reads it:
// odm::Documents of that struct.
#include "pipeline_models.hpp"

#include <vector>

struct Counted {
  std::int64_t n;
};
struct Report {
#ifdef ODM_COMPILE_FAIL
  std::vector<Counted> counted;  // an embedded array: its documents' `id` would not be `_id`
#else
  odm::Documents<Counted> counted;
#endif
};

int main() {
  auto p = odm::pipeline<cf::Sale>().facet<Report>(
      odm::agg::facet<&Report::counted>(odm::pipeline<cf::Sale>().count<&Counted::n>()));
  return p.size() == 1 ? 0 : 1;
}
