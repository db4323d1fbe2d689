// expect: odm::created_at, odm::updated_at: a model has at most one member of each, and names it once
// Two options saying the same thing about one member do not compile, as two renames do not.
#include "models.hpp"

#include <chrono>

namespace cf {
struct Event {
  std::int32_t id;
  std::chrono::sys_time<std::chrono::milliseconds> created_at;
  struct odm_model {
#ifdef ODM_COMPILE_FAIL
    static constexpr auto fields = odm::fields(odm::created_at(&Event::created_at), odm::created_at(&Event::created_at));
#else
    static constexpr auto fields = odm::fields(odm::created_at(&Event::created_at));
#endif
  };
};
}  // namespace cf

int main() {
  odm::Client client("mongodb://127.0.0.1:1");
  (void)client.database("d").collection<cf::Event>().insert_one(cf::Event{});
}
