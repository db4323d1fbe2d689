// expect: odm: this operator changes the number of elements, but the field is a std::array
// A std::array is stored as an array of its fixed length: $push (or $pull, $pop,
// $addToSet) would store another length, which no longer decodes; its elements are
// queried and set like any array's.
#include "models.hpp"

#include <array>

namespace cf {
struct Podium {
  std::int32_t id;
  std::array<std::int32_t, 3> places;
};
}  // namespace cf

int main() {
#ifdef ODM_COMPILE_FAIL
  (void)odm::field(&cf::Podium::places).push(4);
#else
  (void)odm::field(&cf::Podium::places).all_elements().inc(1);
  (void)(odm::field(&cf::Podium::places).size(3) && odm::field(&cf::Podium::places) == 4);
#endif
}
