#pragma once
// The one vocabulary of order in odm: a sort key (odm::desc(&Review::published_date)), an
// index key (odm::key(&LogMessage::time, odm::descending)), the order of a $push's $sort
// and the end of the order a Subset keeps (odm::Subset<Review, 10, &Review::published_date,
// odm::descending>, the ten largest) all say ascending or descending the same way.

#include <cstdint>

namespace odm {

/// Ascending (1) or descending (-1), as MongoDB writes it in sorts and index keys.
enum class Direction : std::int32_t { ascending = 1, descending = -1 };
inline constexpr Direction ascending = Direction::ascending;
inline constexpr Direction descending = Direction::descending;

/// The number MongoDB writes for a direction: 1 or -1.
constexpr std::int32_t direction_value(Direction direction) noexcept { return static_cast<std::int32_t>(direction); }

}  // namespace odm
