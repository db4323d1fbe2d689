#pragma once
// odm::LocalTime: an instant plus the writer's UTC offset, so the writer's own wall-clock
// time can be rebuilt later. MongoDB stores dates in UTC only; the reference guides keep
// the offset beside the date as `{date: <UTC>, offset: <minutes>}`, with `offset` as
// JavaScript's Date.getTimezoneOffset() gives it: UTC minus local time, in minutes
// (a writer in UTC+02:00 stores -120; one in UTC-05:00 stores 300).
//
// It is a plain struct, so it is stored by the ordinary struct codec with exactly those
// two fields, whether it is a whole document or a member of one.

#include <chrono>
#include <cstdint>

namespace odm {

struct LocalTime {
  /// The instant, in UTC, to the millisecond (what MongoDB stores).
  std::chrono::sys_time<std::chrono::milliseconds> date{};
  /// UTC minus the writer's local time, in minutes (Date.getTimezoneOffset()).
  std::int32_t offset = 0;

  /// The record for a wall-clock time in a zone `utc_offset` ahead of UTC (+120 min for UTC+02:00).
  static LocalTime from_local(std::chrono::local_time<std::chrono::milliseconds> local,
                              std::chrono::minutes utc_offset) {
    return {std::chrono::sys_time<std::chrono::milliseconds>(local.time_since_epoch() - utc_offset),
            static_cast<std::int32_t>(-utc_offset.count())};
  }

  /// The writer's wall-clock time: date - offset, as the guide's `date.getTime() - offset * 60000`.
  std::chrono::local_time<std::chrono::milliseconds> local() const {
    return std::chrono::local_time<std::chrono::milliseconds>(date.time_since_epoch() - std::chrono::minutes(offset));
  }

  /// How far the writer's zone was ahead of UTC (the negation of `offset`).
  std::chrono::minutes utc_offset() const { return std::chrono::minutes(-offset); }

  friend bool operator==(const LocalTime&, const LocalTime&) = default;
};

}  // namespace odm
