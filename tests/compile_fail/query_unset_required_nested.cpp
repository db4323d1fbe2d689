// expect: odm: unset applies only to a field that may be absent
// A step into an embedded document reads the embedded struct's member table too.
#include "models.hpp"

namespace cf {
struct Limits {
  std::optional<std::int32_t> low;
  std::optional<std::int32_t> high;
  struct odm_model {
    static constexpr auto fields = odm::fields(odm::required(&Limits::high));
  };
};
struct Gauge {
  std::int32_t id;
  Limits limits;
};
}  // namespace cf

int main() {
#ifdef ODM_COMPILE_FAIL
  (void)odm::Update<cf::Gauge>((odm::field(&cf::Gauge::limits) / &cf::Limits::high).unset());
#else
  (void)odm::Update<cf::Gauge>((odm::field(&cf::Gauge::limits) / &cf::Limits::low).unset());
#endif
}
