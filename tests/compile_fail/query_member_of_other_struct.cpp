// expect: odm: the member after '/' belongs to a different struct
// A path step with a member of another struct does not compile.
#include "models.hpp"

int main() {
#ifdef ODM_COMPILE_FAIL
  (void)(odm::field(&cf::Book::home) / &cf::Checkout::by == "x");
#else
  (void)(odm::field(&cf::Book::home) / &cf::Address::city == "x");
#endif
}
