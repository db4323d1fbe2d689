// expect: odm: a member of this struct has a type odm cannot store in BSON
// A member whose type has no odm::codec specialization (here a class that is not an
// aggregate, so odm cannot reflect it either) is named in the instantiation trace.
#include "models.hpp"

namespace cf {
class Opaque {
 public:
  explicit Opaque(int value) : value_(value) {}
  int value() const { return value_; }

 private:
  int value_;
};

struct Holder {
  std::string id;
#ifdef ODM_COMPILE_FAIL
  Opaque opaque{0};
#else
  std::int32_t opaque = 0;
#endif
};
}  // namespace cf

int main() { (void)odm::to_bson(cf::Holder{}); }
