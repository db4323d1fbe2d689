// expect: odm: this expression mixes an odm::Decimal and a double
// Money arithmetic stays exact: a double factor would bring binary rounding into a price.
#include "models.hpp"

namespace cf {
struct Priced {
  std::int32_t id;
  odm::Money price;
};
}  // namespace cf

int main() {
#ifdef ODM_COMPILE_FAIL
  (void)odm::agg::multiply(odm::amount(odm::field(&cf::Priced::price)), 1.1);
#else
  (void)odm::agg::multiply(odm::amount(odm::field(&cf::Priced::price)), odm::Decimal("1.1"));
#endif
}
