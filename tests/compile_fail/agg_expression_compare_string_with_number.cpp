// expect: odm: this comparison is between values of different kinds
// MongoDB orders a string after every number: {$gt: ["$name", 5]} is always true.
#include "models.hpp"

namespace cf {
struct Item {
  std::int32_t id;
  std::string name;
};
}  // namespace cf

int main() {
#ifdef ODM_COMPILE_FAIL
  (void)odm::agg::gt(odm::field(&cf::Item::name), 5);
#else
  (void)odm::agg::gt(odm::field(&cf::Item::name), "m");
#endif
}
