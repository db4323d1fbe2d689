// expect: odm: two alternatives of this tagged std::variant read the same tag value
// A stored value names one kind: a kind renamed from a value another kind still has would
// make that value mean two things.
#include "models.hpp"

namespace cf {
struct Card {
  std::string number;
  struct odm_model {
    static constexpr auto tag = odm::tag("card");
  };
};
struct CardWithExpiry {
  std::string number;
  std::string expiry;
  struct odm_model {
#ifdef ODM_COMPILE_FAIL
    static constexpr auto tag = odm::tag("card_with_expiry").renamed_from("card");
#else
    static constexpr auto tag = odm::tag("card_with_expiry").renamed_from("expiring_card");
#endif
  };
};
struct Payment {
  std::string id;
  std::variant<Card, CardWithExpiry> method;
};
}  // namespace cf

int main() { return odm::from_bson<cf::Payment>(odm::to_bson(cf::Payment{"p", cf::CardWithExpiry{"4111", "12/30"}})).method.index() == 1 ? 0 : 1; }
