// expect: odm: the member a computed field fills has another type than the expression's value
// A Decimal times an int is a Decimal: a double member would lose the exact amount.
#include "models.hpp"

namespace cf {
struct Line {
  std::int32_t id;
  std::int32_t quantity;
  odm::Money price;
};
struct Priced {
  std::int32_t id;
#ifdef ODM_COMPILE_FAIL
  double revenue;
#else
  odm::Decimal revenue;
#endif
};
}  // namespace cf

int main() {
  (void)odm::pipeline<cf::Line>().add_fields<cf::Priced>(odm::agg::compute<&cf::Priced::revenue>(
      odm::agg::multiply(odm::field(&cf::Line::quantity), odm::amount(odm::field(&cf::Line::price)))));
}
