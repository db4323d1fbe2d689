// expect: odm: the items of an odm::Subset are written by the odm::subset operations
// A Subset's items are embedded without their ParentRefs and kept in step with their own
// collection by odm::subset operations: a typed $push would write neither; conditions
// on the items (size, elem_match) are allowed.
#include "models.hpp"

namespace cf {
struct Shop;
struct Note {
  std::int32_t note_id;
  odm::ParentRef<Shop> shop;
  std::int32_t stars;
  struct odm_model {
    static constexpr auto key = &Note::note_id;
  };
};
struct Shop {
  std::int32_t id;
  odm::Subset<Note, 3, &Note::stars> top;
};
}  // namespace cf

int main() {
#ifdef ODM_COMPILE_FAIL
  (void)odm::field(&cf::Shop::top).push(cf::Note{1, {}, 5});
#else
  (void)odm::field(&cf::Shop::top).size(3);
#endif
}
