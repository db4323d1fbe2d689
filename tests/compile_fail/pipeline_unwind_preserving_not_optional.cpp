// expect: odm: unwind_preserving passes on documents without an element
// preserveNullAndEmptyArrays passes on a document whose array is empty, null or missing,
// without the element: the member that holds it must be able to be absent.
#include "pipeline_models.hpp"

#include <optional>

struct SaleItemOrNone {
  std::int32_t id;
#ifdef ODM_COMPILE_FAIL
  cf::Item items;
#else
  std::optional<cf::Item> items;
#endif
};

int main() {
  auto p = odm::pipeline<cf::Sale>().unwind_preserving<&SaleItemOrNone::items>();
  return p.size() == 1 ? 0 : 1;
}
