// expect: odm: unsigned integers have no BSON type
// An unsigned member would have to be stored as int64, where values above INT64_MAX turn
// negative, so the codec refuses it.
#include "models.hpp"

namespace cf {
struct Counter {
  std::string id;
#ifdef ODM_COMPILE_FAIL
  std::uint32_t misses;
#else
  std::int64_t misses;
#endif
};
}  // namespace cf

int main() { (void)odm::to_bson(cf::Counter{}); }
