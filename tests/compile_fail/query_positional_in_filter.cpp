// expect: odm: a positional path ($, $[]) names elements to update, so it cannot be used in a filter
// `checkout.$.by` means "the matched element" only in an update; in a filter it does not compile.
#include <odm/query.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace cf {
struct Checkout {
  std::string by;
};
struct Book {
  std::int32_t id;
  std::vector<Checkout> checkout;
};
}  // namespace cf

int main() {
  (void)(odm::field(&cf::Book::checkout).matched() / &cf::Checkout::by == "joe");
  return 0;
}
