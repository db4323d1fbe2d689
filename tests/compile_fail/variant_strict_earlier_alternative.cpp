// expect: put Later before Earlier, or make Earlier `strict` (it then refuses the fields of Later it does not declare)
// expect: variant_alternatives_distinct<cf::Card, cf::CardWithExpiry>
// A Card ignores fields it does not declare, so it fits a CardWithExpiry's document and the
// expiry would be lost on reading. A strict Card refuses the `expiry` it lacks: the two are
// told apart in this order too.
#include "models.hpp"

namespace cf {
struct Card {
  std::string number;
#ifndef ODM_COMPILE_FAIL
  struct odm_model {
    static constexpr bool strict = true;
  };
#endif
};
struct CardWithExpiry {
  std::string number;
  std::string expiry;
};
struct Payment {
  std::string id;
  std::variant<Card, CardWithExpiry> method;
};
}  // namespace cf

int main() { return odm::from_bson<cf::Payment>(odm::to_bson(cf::Payment{"p", cf::CardWithExpiry{"4111", "12/30"}})).method.index() == 1 ? 0 : 1; }
