// expect: odm: documents of no model have no collection name of their own
// A collection of raw documents is named by the caller: odm::Document has no odm_model.
#include "models.hpp"

int main() {
  const odm::Client client("mongodb://127.0.0.1:1/");
#ifdef ODM_COMPILE_FAIL
  auto events = client.database("shop").collection<odm::Document>();
#else
  auto events = client.database("shop").collection<odm::Document>("events");
#endif
  (void)events;
}
