// expect: odm::tag: a member of this struct is stored under the name of its kind's tag field
// The tag field is the mapper's: a member stored under its name would be written twice.
#include "models.hpp"

namespace cf {
struct Card {
  std::string number;
#ifdef ODM_COMPILE_FAIL
  std::string _type;
#endif
  struct odm_model {
    static constexpr auto tag = odm::tag("card");
  };
};
struct Payment {
  std::string id;
  Card method;
};
}  // namespace cf

int main() { return odm::from_bson<cf::Payment>(odm::to_bson(cf::Payment{"p", cf::Card{"4111"}})).method.number == "4111" ? 0 : 1; }
