// expect: odm: $unwind takes an array member
#include "pipeline_models.hpp"

struct OneStatus {
  std::int32_t id;
  std::string status;
};

int main() {
#ifdef ODM_COMPILE_FAIL
  auto p = odm::pipeline<cf::Sale>().unwind<&OneStatus::status>();
#else
  auto p = odm::pipeline<cf::Sale>().unwind<&cf::SaleItem::items>();
#endif
  return p.size() == 1 ? 0 : 1;
}
