// expect: odm: unset applies only to a field that may be absent
// A Money without its amount no longer decodes, even when the Money itself is optional.
#include "models.hpp"

namespace cf {
struct Discounted {
  std::int32_t id;
  std::optional<odm::Money> discount;
};
}  // namespace cf

int main() {
#ifdef ODM_COMPILE_FAIL
  (void)odm::amount(odm::field(&cf::Discounted::discount)).unset();
#else
  (void)odm::field(&cf::Discounted::discount).unset();
#endif
}
