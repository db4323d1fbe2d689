// expect: odm: a member of the projection struct has no member of the same name in the model
// A projection struct member the model lacks does not compile.
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
  std::int32_t pages;
};
}  // namespace cf

int main() {
  (void)odm::projection<cf::Book, cf::Summary>();
  return 0;
}
