// expect: odm::tag: a renamed_from value is the tag's own value, or is not a non-empty UTF-8 string
// An old tag value is compared with stored strings, which are UTF-8: one that is not would
// also make the $jsonSchema odm writes invalid.
#include "models.hpp"

namespace cf {
struct Card {
  std::string number;
  struct odm_model {
#ifdef ODM_COMPILE_FAIL
    static constexpr auto tag = odm::tag("card").renamed_from("\xff");
#else
    static constexpr auto tag = odm::tag("card").renamed_from("credit_card");
#endif
  };
};
}  // namespace cf

int main() { (void)odm::to_bson(cf::Card{"4111"}); }
