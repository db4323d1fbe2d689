#pragma once
// What a write did, counted as the server counts it: shared by the bulk write's result
// (odm/driver/results.hpp) and the driver core's account of a reply (odm/driver/core.hpp).

#include <cstdint>

namespace odm {

struct WriteCounts {
  std::int64_t inserted = 0;
  std::int64_t matched = 0;
  std::int64_t modified = 0;
  std::int64_t deleted = 0;
  std::int64_t upserted = 0;
};

}  // namespace odm
