// expect: odm::upgrade: a step is a function `To f(const From&)` between two plain structs
// A step takes the old shape (or the stored document) and returns the next one; a value
// that is neither is refused where the step is declared.
#include <odm/evolution/versions.hpp>

#include <string>

namespace {
struct Old {
  std::string name;
};
struct New {
  std::string title;
};
New renamed(const Old& old) { return New{old.name}; }
}  // namespace

int main() {
#ifdef ODM_COMPILE_FAIL
  constexpr auto schema = odm::schema_versions<2>(odm::upgrade<1>(42));
#else
  constexpr auto schema = odm::schema_versions<2>(odm::upgrade<1>(&renamed));
#endif
  return schema.current == 2 ? 0 : 1;
}
