// expect: odm::amount names the amount of an odm::Money field
// The amount is a part of a Money; a DisplayMoney's exact amount is a string, and any
// other member is its own path.
#include "models.hpp"

namespace cf {
struct Priced {
  std::int32_t id;
  odm::Money price;
  odm::DisplayMoney shown;
};
}  // namespace cf

int main() {
#ifdef ODM_COMPILE_FAIL
  (void)odm::amount(odm::field(&cf::Priced::shown));
#else
  (void)odm::amount(odm::field(&cf::Priced::price));
#endif
}
