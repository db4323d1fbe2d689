// expect: odm::rename_field(from, to): the two names must differ and have one parent
// A contract step that would move a field out of its sub-document: a step renames a field
// where it is (`home.road` to `home.street`), it does not move values between documents.
#include "models.hpp"

#include <odm/evolution/rename.hpp>
#include <odm/evolution/versions.hpp>

namespace cf {
struct Home {
  std::string street;
};
struct Person {
  std::int64_t id = 0;
  Home home;
  struct odm_model {
#ifdef ODM_COMPILE_FAIL
    static constexpr auto schema = odm::schema_versions<2>(odm::upgrade<1>(odm::rename_field("home.road", "street")));
#else
    static constexpr auto schema = odm::schema_versions<2>(odm::upgrade<1>(odm::rename_field("home.road", "home.street")));
#endif
  };
};
}  // namespace cf

int main() { (void)odm::to_bson(cf::Person{}); }
