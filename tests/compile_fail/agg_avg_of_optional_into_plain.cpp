// expect: odm: the member an $avg fills has the wrong type
// The values may be null, so a group may hold no number: its average is null, which a plain
// double cannot hold.
#include "models.hpp"

#include <optional>

namespace cf {
struct Sale {
  std::int32_t id;
  std::string shop;
  std::optional<std::int32_t> qty;
};
struct Average {
  std::string id;
#ifdef ODM_COMPILE_FAIL
  double qty;
#else
  std::optional<double> qty;
#endif
};
}  // namespace cf

int main() {
  (void)odm::pipeline<cf::Sale>().group<cf::Average>(odm::agg::by(odm::field(&cf::Sale::shop)),
                                                      odm::agg::avg<&cf::Average::qty>(odm::field(&cf::Sale::qty)));
}
