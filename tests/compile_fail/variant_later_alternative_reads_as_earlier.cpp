// expect: put Later before Earlier, or make Earlier `strict` (it then refuses the fields of Later it does not declare)
// expect: variant_alternatives_distinct<cf::Sum, cf::Scaled>
// A variant is decoded as the first alternative whose shape fits the stored value: every
// document odm writes for a Scaled has the `terms` a Sum needs, so a Scaled would read back
// as a Sum without its factor. Scaled first tells them apart (a Sum has no factor).
#include "models.hpp"

namespace cf {
struct Sum {
  std::vector<std::int32_t> terms;
};
struct Scaled {
  double factor;
  std::vector<std::int32_t> terms;
};
struct Expr {
  std::string id;
#ifdef ODM_COMPILE_FAIL
  std::variant<Sum, Scaled> e;  // does not compile: a Scaled's document has the terms a Sum needs
#else
  std::variant<Scaled, Sum> e;  // compiles: a Sum's document has no factor
#endif
};
}  // namespace cf

int main() { return odm::from_bson<cf::Expr>(odm::to_bson(cf::Expr{"a", cf::Scaled{2.5, {1, 2}}})).e.index() == 0 ? 0 : 1; }
