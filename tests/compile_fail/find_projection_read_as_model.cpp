// expect: odm: these FindOptions project onto fewer fields than the collection's model requires
// Options with a projection onto a summary make documents that read as the summary, not
// as the model: find() would throw DecodeError on every document, so it does not compile;
// find<Summary>() reads them.
#include "models.hpp"

void titles(odm::Collection<cf::Book>& books) {
  const auto options = odm::FindOptions<cf::Book>{}.limit(5).projection(odm::projection<cf::Book, cf::Summary>());
#ifdef ODM_COMPILE_FAIL
  (void)books.find({}, options);
#else
  (void)books.find<cf::Summary>({}, options);
  (void)books.find_one<odm::Document>({}, options);
#endif
}

int main() { return 0; }
