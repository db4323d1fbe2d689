// expect: odm: $lookup follows a reference member
// A $lookup is tied to a Ref/ParentRef/RefMany: its target model names the collection.
#include "pipeline_models.hpp"

struct WithBuyer {
  std::int32_t id;
  odm::Joined<cf::Buyer> buyers;
};

int main() {
#ifdef ODM_COMPILE_FAIL
  auto p = odm::pipeline<cf::Sale>().lookup<&cf::Sale::status, &WithBuyer::buyers>();
#else
  auto p = odm::pipeline<cf::Sale>().lookup<&cf::Sale::buyer, &WithBuyer::buyers>();
#endif
  return p.size() == 1 ? 0 : 1;
}
