// expect: odm: arithmetic in an aggregation expression takes numbers
// A string and a number do not add: MongoDB's $add refuses a string at run time.
#include "models.hpp"

namespace cf {
struct Item {
  std::int32_t id;
  std::string name;
  std::int32_t stock;
};
}  // namespace cf

int main() {
#ifdef ODM_COMPILE_FAIL
  (void)odm::agg::add(odm::field(&cf::Item::name), 1);
#else
  (void)odm::agg::add(odm::field(&cf::Item::stock), 1);
#endif
}
