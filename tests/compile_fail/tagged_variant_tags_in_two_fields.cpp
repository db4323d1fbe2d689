// expect: odm: the alternatives of this tagged std::variant store their tags in different fields
// A reader looks for the kind in one field: alternatives whose tags are stored in two fields
// (here Mongoose's `__t` and the default `_type`) cannot be read by either.
#include "models.hpp"

namespace cf {
struct Click {
  std::string element;
  struct odm_model {
    static constexpr auto tag = odm::tag("Click").stored_in("__t");
  };
};
struct Purchase {
  std::int32_t amount;
  struct odm_model {
#ifdef ODM_COMPILE_FAIL
    static constexpr auto tag = odm::tag("Purchase");
#else
    static constexpr auto tag = odm::tag("Purchase").stored_in("__t");
#endif
  };
};
struct Event {
  std::string id;
  std::variant<Click, Purchase> event;
};
}  // namespace cf

int main() { return odm::from_bson<cf::Event>(odm::to_bson(cf::Event{"e", cf::Purchase{3}})).event.index() == 1 ? 0 : 1; }
