// expect: odm::tag: this model's schema versions are stored in `schema_version`, so its kind's tag cannot be
// A versioned model's documents carry their version in `schema_version`: a kind's tag stored
// there would be overwritten by the version (and the version read as a tag).
#include "models.hpp"

#include <odm/evolution/versions.hpp>

namespace cf {
odm::Document same(const odm::Document& stored) { return stored; }
struct Invoice {
  std::int64_t id = 0;
  std::string number;
  struct odm_model {
    static constexpr auto schema = odm::schema_versions<2>(odm::upgrade<1>(&same));
#ifdef ODM_COMPILE_FAIL
    static constexpr auto tag = odm::tag("invoice").stored_in("schema_version");
#else
    static constexpr auto tag = odm::tag("invoice").stored_in("kind");
#endif
  };
};
}  // namespace cf

int main() { return odm::from_bson<cf::Invoice>(odm::to_bson(cf::Invoice{1, "A-1"})).number == "A-1" ? 0 : 1; }
