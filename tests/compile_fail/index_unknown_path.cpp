// expect: odm::index: a dotted path in the model's indexes names no field of the model
// A misspelled dotted path in an index declaration does not compile.
#include <odm/odm.hpp>

#include <string>
#include <vector>

namespace cf {
struct Address {
  std::string street;
  std::string city;
};
struct Patron {
  odm::ObjectId id;
  std::string name;
  std::vector<Address> addresses;
  struct odm_model {
    static constexpr auto indexes = odm::indexes(odm::index("addresses.town"));
  };
};
}  // namespace cf

int main() {
  (void)odm::index_plan<cf::Patron>();
  return 0;
}
