// expect: odm: an accumulator over an expression whose value is an odm::Money would read its sub-document
// MongoDB's $sum skips what is no number: the sum of whole Money documents is 0.
#include "models.hpp"

namespace cf {
struct Purchase {
  std::int32_t id;
  std::string customer;
  odm::Money total;
};
struct Total {
  std::string id;
  odm::Decimal total;
};
}  // namespace cf

int main() {
#ifdef ODM_COMPILE_FAIL
  (void)odm::agg::sum<&cf::Total::total>(odm::agg::value(odm::field(&cf::Purchase::total)));
#else
  (void)odm::agg::sum<&cf::Total::total>(odm::agg::value(odm::amount(odm::field(&cf::Purchase::total))));
#endif
}
