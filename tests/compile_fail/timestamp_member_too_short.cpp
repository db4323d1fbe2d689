// expect: its representation reach past the year 2200
// 32-bit milliseconds last 24 days from 1970: a stamp of now would not fit (and would store 1970).
#include "models.hpp"

#include <chrono>

namespace cf {
struct Event {
  std::int32_t id;
#ifdef ODM_COMPILE_FAIL
  std::chrono::time_point<std::chrono::system_clock, std::chrono::duration<std::int32_t, std::milli>> created_at;
#else
  std::chrono::sys_time<std::chrono::milliseconds> created_at;
#endif
  struct odm_model {
    static constexpr auto fields = odm::fields(odm::created_at(&Event::created_at));
  };
};
}  // namespace cf

int main() { (void)odm::to_bson(cf::Event{}); }
