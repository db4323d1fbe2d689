// expect: odm: unset applies only to a field that may be absent
// unset() reads the member table, not the C++ type: an optional the model declares
// odm::required is refused (a document without it would not decode), a plain member the
// model declares odm::defaulted may be unset (a document without it decodes).
#include "models.hpp"

namespace cf {
struct Setting {
  std::int32_t id;
  std::optional<std::string> label;
  std::int32_t retries = 3;
  struct odm_model {
    static constexpr auto fields = odm::fields(odm::required(&Setting::label), odm::defaulted(&Setting::retries));
  };
};
}  // namespace cf

int main() {
#ifdef ODM_COMPILE_FAIL
  (void)odm::Update<cf::Setting>(odm::field(&cf::Setting::label).unset());
#else
  (void)odm::Update<cf::Setting>(odm::field(&cf::Setting::retries).unset());
#endif
}
