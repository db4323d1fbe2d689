#pragma once
// Automatic timestamps: the members odm keeps at the time a document was created and the
// time it was last changed, as Mongoose's `timestamps`, Mongoid's Timestamps and Spring
// Data's auditing keep them.
//
//   struct Order {
//     odm::ObjectId id;
//     std::string customer;
//     std::chrono::sys_time<std::chrono::milliseconds> created_at;
//     std::chrono::sys_time<std::chrono::milliseconds> updated_at;
//     struct odm_model {
//       static constexpr auto fields =
//           odm::fields(odm::created_at(&Order::created_at), odm::updated_at(&Order::updated_at));
//     };
//   };
//
// The time is the client's clock (std::chrono::system_clock, to the millisecond MongoDB
// stores), taken once per call: odm/driver/timestamps.hpp says which writes set which.

#include <chrono>
#include <cstddef>
#include <optional>
#include <ratio>
#include <tuple>
#include <type_traits>

namespace odm {

namespace detail {

/// Whether a duration holds every millisecond exactly (its tick divides one: not 1/1500 s)
/// and reaches past the year 2200 (not 32-bit milliseconds, 24 days; not 64-bit
/// picoseconds, 106 days), so that a stamp of now is held as it is.
template <class Duration>
constexpr bool holds_stamps() {
  using Period = typename Duration::period;
  if constexpr (!std::ratio_less_equal_v<Period, std::milli> || std::ratio_divide<std::milli, Period>::den != 1) {
    return false;
  } else {
    constexpr double seconds_to_2200 = 7.3e9;  // 231 years
    return std::chrono::duration<double>(Duration::max()).count() >= seconds_to_2200;
  }
}

/// Whether M holds a time odm can stamp exactly: a system_clock time point at least as
/// fine as the milliseconds MongoDB stores (a coarser one would not read the stamp back)
/// whose duration holds_stamps, or an optional of one (documents written before the
/// member was added have none).
template <class M>
inline constexpr bool is_stamp_member = false;
template <class Duration>
inline constexpr bool is_stamp_member<std::chrono::time_point<std::chrono::system_clock, Duration>> =
    holds_stamps<Duration>();
template <class M>
inline constexpr bool is_stamp_member<std::optional<M>> = is_stamp_member<M>;

}  // namespace detail

/// Option: the member holds when the document was created (set by inserts and by upserts
/// that insert; never changed by odm after that).
template <class T, class M>
struct CreatedAtMember {
  M T::*member;
  static constexpr bool odm_created_at = true;
};
/// Option: the member holds when the document was last written by an insert, an update or
/// a replace odm sent for the program.
template <class T, class M>
struct UpdatedAtMember {
  M T::*member;
  static constexpr bool odm_updated_at = true;
};

template <class T, class M>
constexpr CreatedAtMember<T, M> created_at(M T::*member) {
  static_assert(detail::is_stamp_member<M>,
                "odm::created_at: the member must be a std::chrono::sys_time of milliseconds or finer (or an "
                "optional of one): MongoDB stores dates to the millisecond; its tick must divide a millisecond and "
                "its representation reach past the year 2200 (std::chrono::milliseconds does; 32-bit milliseconds "
                "or 64-bit picoseconds do not)");
  return {member};
}
template <class T, class M>
constexpr UpdatedAtMember<T, M> updated_at(M T::*member) {
  static_assert(detail::is_stamp_member<M>,
                "odm::updated_at: the member must be a std::chrono::sys_time of milliseconds or finer (or an "
                "optional of one): MongoDB stores dates to the millisecond; its tick must divide a millisecond and "
                "its representation reach past the year 2200 (std::chrono::milliseconds does; 32-bit milliseconds "
                "or 64-bit picoseconds do not)");
  return {member};
}

namespace detail {

/// How many of a member's options (a std::tuple) are odm::created_at, or odm::updated_at.
template <class Options>
struct has_created_at_option;
template <class... O>
struct has_created_at_option<std::tuple<O...>>
    : std::integral_constant<std::size_t, (std::size_t{0} + ... + (requires { O::odm_created_at; } ? 1 : 0))> {};
template <class Options>
struct has_updated_at_option;
template <class... O>
struct has_updated_at_option<std::tuple<O...>>
    : std::integral_constant<std::size_t, (std::size_t{0} + ... + (requires { O::odm_updated_at; } ? 1 : 0))> {};

}  // namespace detail
}  // namespace odm
