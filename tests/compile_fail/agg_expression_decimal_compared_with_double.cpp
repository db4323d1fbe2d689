// expect: odm: this comparison is between values of different kinds
// NumberDecimal("0.1") is not the double 0.1 (0.1000000000000000055...): the match would select nothing.
#include "models.hpp"

namespace cf {
struct Priced {
  std::int32_t id;
  odm::Decimal price;
};
}  // namespace cf

int main() {
#ifdef ODM_COMPILE_FAIL
  (void)odm::agg::eq(odm::field(&cf::Priced::price), 0.1);
#else
  (void)odm::agg::eq(odm::field(&cf::Priced::price), odm::Decimal("0.1"));
#endif
}
