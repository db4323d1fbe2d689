// expect: odm: the value's type does not match the field's type
// Comparing an int32 field with a string does not compile.
#include <odm/query.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cf {
struct Address {
  std::string city;
};
struct Checkout {
  std::string by;
};
struct Book {
  std::int32_t id;
  std::string title;
  std::int32_t available;
  std::vector<std::string> topics;
  std::vector<Address> addresses;
  Address home;
  std::optional<std::string> note;
};
struct Summary {
  std::string title;
  
};
}  // namespace cf

int main() {
  (void)(odm::field(&cf::Book::available) > std::string("0"));
  return 0;
}
