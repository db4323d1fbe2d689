// expect: odm: a collection holds a model
// expect: or odm::Document for documents read and written as they are stored
// A collection of a type that is not a model says what a collection can hold instead of
// listing unsatisfied constraints.
#include "models.hpp"

int main() {
  const odm::Client client("mongodb://127.0.0.1:1/");
#ifdef ODM_COMPILE_FAIL
  auto numbers = client.database("shop").collection<int>("numbers");
#else
  auto numbers = client.database("shop").collection<cf::Book>("numbers");
#endif
  (void)numbers;
}
