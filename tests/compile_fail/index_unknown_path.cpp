// expect: odm::index: a dotted path in the model's indexes names no field of the model
// A misspelled dotted path in an index declaration does not compile.
#include "models.hpp"

namespace cf {
struct Patron {
  odm::ObjectId id;
  std::string name;
  std::vector<Address> addresses;
  struct odm_model {
#ifdef ODM_COMPILE_FAIL
    static constexpr auto indexes = odm::indexes(odm::index("addresses.town"));
#else
    static constexpr auto indexes = odm::indexes(odm::index("addresses.city"));
#endif
  };
};
}  // namespace cf

int main() { (void)odm::index_plan<cf::Patron>(); }
