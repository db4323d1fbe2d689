// expect: odm: these FindOptions project onto fewer fields than the collection's model requires
// find_one() with options projecting onto a summary: read it as the summary.
#include "models.hpp"

void first_title(odm::Collection<cf::Book>& books) {
#ifdef ODM_COMPILE_FAIL
  (void)books.find_one({}, odm::FindOptions<cf::Book>{}.projection(odm::projection<cf::Book, cf::Summary>()).limit(1));
#else
  (void)books.find_one<cf::Summary>({}, odm::FindOptions<cf::Book>{}.projection(odm::projection<cf::Book, cf::Summary>()).limit(1));
#endif
}

int main() { return 0; }
