// expect: odm::UnknownKind keeps the documents of kinds a tagged std::variant does not know: it goes last
// odm::UnknownKind is the last alternative of a tagged variant; in a variant read by shape it
// would take any document, so it is refused there (and anywhere but last).
#include "models.hpp"

namespace cf {
struct Card {
  std::string number;
#ifndef ODM_COMPILE_FAIL
  struct odm_model {
    static constexpr auto tag = odm::tag("card");
  };
#endif
};
struct Payment {
  std::string id;
  std::variant<Card, odm::UnknownKind> method;
};
}  // namespace cf

int main() { return odm::from_bson<cf::Payment>(odm::to_bson(cf::Payment{"p", cf::Card{"4111"}})).method.index() == 0 ? 0 : 1; }
