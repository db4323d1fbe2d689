// expect: odm: two members of this struct are stored under the same field name
// `title` is renamed to "name", which another member already uses: documents could not
// say which member a field belongs to.
#include "models.hpp"

namespace cf {
struct Titled {
  std::string id;
  std::string name;
  std::string title;
  struct odm_model {
#ifdef ODM_COMPILE_FAIL
    static constexpr auto fields = odm::fields(odm::rename(&Titled::title, "name"));
#else
    static constexpr auto fields = odm::fields(odm::rename(&Titled::title, "book_title"));
#endif
  };
};
}  // namespace cf

int main() { (void)odm::to_bson(cf::Titled{}); }
