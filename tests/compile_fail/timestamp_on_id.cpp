// expect: odm::created_at, odm::updated_at: the id cannot be a stamp
// An _id never changes, and an upsert would insert under the time instead of the filter's id.
#include "models.hpp"

#include <chrono>

namespace cf {
struct Event {
  std::chrono::sys_time<std::chrono::milliseconds> id;
  std::chrono::sys_time<std::chrono::milliseconds> at;
  struct odm_model {
#ifdef ODM_COMPILE_FAIL
    static constexpr auto fields = odm::fields(odm::created_at(&Event::id));
#else
    static constexpr auto fields = odm::fields(odm::created_at(&Event::at));
#endif
  };
};
}  // namespace cf

int main() {
  odm::Client client("mongodb://127.0.0.1:1");
  (void)client.database("d").collection<cf::Event>().insert_one(cf::Event{});
}
