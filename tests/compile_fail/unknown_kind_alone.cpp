// expect: odm::UnknownKind is the last alternative of a tagged std::variant, which knows the field its kind's tag
// Outside a tagged variant nothing says which field holds the tag: an odm::UnknownKind read
// there would come back without it, and be refused when written into a variant.
#include "models.hpp"

namespace cf {
struct Note {
  std::string text;
  struct odm_model {
    static constexpr auto tag = odm::tag("note");
  };
};
struct Envelope {
  std::string id;
#ifdef ODM_COMPILE_FAIL
  odm::UnknownKind body;
#else
  std::variant<Note, odm::UnknownKind> body;
#endif
};
}  // namespace cf

int main() { return odm::from_bson<cf::Envelope>(odm::to_bson(cf::Envelope{"e", {}})).id == "e" ? 0 : 1; }
