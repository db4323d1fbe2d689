// expect: odm: an expression combines fields of two different structs
#include "models.hpp"

namespace cf {
struct Line {
  std::int32_t id;
  std::int32_t quantity;
};
struct Stock {
  std::int32_t id;
  std::int32_t available;
};
}  // namespace cf

int main() {
#ifdef ODM_COMPILE_FAIL
  (void)odm::agg::subtract(odm::field(&cf::Stock::available), odm::field(&cf::Line::quantity));
#else
  (void)odm::agg::subtract(odm::field(&cf::Stock::available), 1);
#endif
}
