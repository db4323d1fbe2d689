// expect: odm: a positional path ($, $[]) names elements to update, so it cannot be used in a filter
// `checkout.$.by` means "the matched element" only in an update; in a filter it does not compile.
#include "models.hpp"

int main() {
#ifdef ODM_COMPILE_FAIL
  (void)(odm::field(&cf::Book::checkout).matched() / &cf::Checkout::by == "joe");
#else
  (void)(odm::field(&cf::Book::checkout).matched() / &cf::Checkout::by).set("joe");
#endif
}
