// expect: odm: $concat joins strings
#include "models.hpp"

namespace cf {
struct Labelled {
  std::int32_t id;
  std::string name;
  std::int32_t size;
};
}  // namespace cf

int main() {
#ifdef ODM_COMPILE_FAIL
  (void)odm::agg::concat(odm::field(&cf::Labelled::name), odm::field(&cf::Labelled::size));
#else
  (void)odm::agg::concat(odm::field(&cf::Labelled::name), "-");
#endif
}
