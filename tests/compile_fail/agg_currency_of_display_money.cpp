// expect: odm::agg::currency is the currency of an odm::Money in a group key
// A DisplayMoney's amounts are not summed on the server: its currency is grouped by as any field.
#include "models.hpp"

namespace cf {
struct Listing {
  std::int32_t id;
  odm::DisplayMoney shown;
};
}  // namespace cf

int main() {
#ifdef ODM_COMPILE_FAIL
  (void)odm::agg::currency(odm::field(&cf::Listing::shown));
#else
  (void)odm::currency(odm::field(&cf::Listing::shown));
#endif
}
