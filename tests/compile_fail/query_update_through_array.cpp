// expect: odm: this path goes through an array
// Updating addresses.city needs a positional operator: without one it does not compile.
#include "models.hpp"

int main() {
#ifdef ODM_COMPILE_FAIL
  (void)(odm::field(&cf::Book::addresses) / &cf::Address::city).set("x");
#else
  (void)(odm::field(&cf::Book::addresses).all_elements() / &cf::Address::city).set("x");
#endif
}
