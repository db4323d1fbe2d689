// expect: odm::JoinedOne<T> for an odm::Joined<T>
// The documents of a $lookup are top-level documents of their model (`id` is `_id`,
// versions upgrade): unwound, one is an odm::JoinedOne<T>, not an embedded T.
#include "pipeline_models.hpp"

struct SaleWithBuyers {
  std::int32_t id;
  odm::Joined<cf::Buyer> buyer_docs;
};
struct SaleWithBuyer {
  std::int32_t id;
#ifdef ODM_COMPILE_FAIL
  cf::Buyer buyer_docs;
#else
  odm::JoinedOne<cf::Buyer> buyer_docs;
#endif
};

int main() {
  auto p = odm::pipeline<cf::Sale>().lookup<&cf::Sale::buyer, &SaleWithBuyers::buyer_docs>().unwind<&SaleWithBuyer::buyer_docs>();
  return p.size() == 2 ? 0 : 1;
}
