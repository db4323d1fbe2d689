// expect: odm::count_children: the member must be the child's single reference to its parent
// Counting children needs each child to name one parent; a RefMany names many. The twin
// counts through a Ref.
#include <odm/odm.hpp>

#include <string>
#include <vector>

namespace cf {
struct Part {
  odm::ObjectId id;
  std::string name;
};
struct Product {
  odm::ObjectId id;
  odm::RefMany<Part> parts;
  odm::Ref<Part> main_part;
};
}  // namespace cf

int count(const odm::Database& db, const std::vector<cf::Part>& parts) {
#ifdef ODM_COMPILE_FAIL
  return static_cast<int>(odm::count_children(db, parts, &cf::Product::parts).size());
#else
  return static_cast<int>(odm::count_children(db, parts, &cf::Product::main_part).size());
#endif
}

int main() { return 0; }
