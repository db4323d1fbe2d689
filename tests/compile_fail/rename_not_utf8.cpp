// expect: odm: a stored field name is empty, starts with '$', contains '.' or NUL, or is not valid UTF-8
// A member renamed to a name that is not UTF-8 (a truncated 'é'): BSON requires field names
// to be UTF-8, and odm sends checked models without libmongoc's second validation.
#include "models.hpp"

namespace cf {
struct Odd {
  std::int64_t id = 0;
  std::int32_t value = 0;
  struct odm_model {
#ifdef ODM_COMPILE_FAIL
    static constexpr auto fields = odm::fields(odm::rename(&Odd::value, "caf\xC3"));
#else
    static constexpr auto fields = odm::fields(odm::rename(&Odd::value, "caf\xC3\xA9"));
#endif
  };
};
}  // namespace cf

int main() { (void)odm::to_bson(cf::Odd{}); }
