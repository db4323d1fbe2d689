// expect: odm: this pipeline starts from another model than the collection's documents
// A pipeline over Stock run on the sales collection would read fields sales lack.
#include "pipeline_models.hpp"

void run(odm::Collection<cf::Sale>& sales) {
#ifdef ODM_COMPILE_FAIL
  (void)sales.aggregate(odm::pipeline<cf::Stock>().limit(1));
#else
  (void)sales.aggregate(odm::pipeline<cf::Sale>().limit(1));
#endif
}

int main() { return 0; }
