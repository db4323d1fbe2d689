// expect: odm: unset applies only to a field that may be absent
// Unsetting a required field would leave an undecodable document.
#include "models.hpp"

int main() {
#ifdef ODM_COMPILE_FAIL
  (void)odm::field(&cf::Book::title).unset();
#else
  (void)odm::field(&cf::Book::note).unset();
#endif
}
