// expect: odm::Subset: say which member identifies an item
// A Subset's item is found by its owner and its key, in the embedded array and in its own
// collection: an item type with neither a `key` in its model nor an id member has none.
#include "models.hpp"

namespace cf {
struct Shelf;
struct Label {
  std::int32_t code;
  odm::ParentRef<Shelf> shelf;
  std::int32_t rank;
#ifndef ODM_COMPILE_FAIL
  struct odm_model {
    static constexpr auto key = &Label::code;
  };
#endif
};
struct Shelf {
  std::int32_t id;
  odm::Subset<Label, 3, &Label::rank> first;
};
}  // namespace cf

// Compiled, never run.
int main() {
  odm::Client client("mongodb://127.0.0.1:9/");
  return odm::subset::add(client.database("cf"), &cf::Shelf::first, std::int32_t{1}, cf::Label{1, {}, 5}) ? 0 : 1;
}
