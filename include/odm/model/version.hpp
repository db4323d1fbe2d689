#pragma once
// The version member of a model (optimistic concurrency): a std::int64_t counting the
// writes to its document.
//
//   struct Item {
//     std::int64_t id;
//     std::int64_t stock;
//     std::int64_t version;
//     struct odm_model { static constexpr auto fields = odm::fields(odm::version(&Item::version)); };
//   };
//
// Every write odm sends to such a document moves it by one (odm/driver/versioning.hpp),
// and an odm::Tracked save matches the version it loaded (odm/evolution/changes.hpp): so a
// save never overwrites a write it did not see.

#include <cstdint>
#include <tuple>
#include <type_traits>

namespace odm {

/// Option: the member holds the document's version, moved by one on every write odm sends
/// and checked by every odm::Tracked save. A std::int64_t, stored like any member.
template <class T, class M>
struct VersionMember {
  M T::*member;
  static constexpr bool odm_version = true;
};
template <class T, class M>
constexpr VersionMember<T, M> version(M T::*member) {
  static_assert(std::is_same_v<M, std::int64_t>, "odm::version: the version member must be a std::int64_t");
  return {member};
}

namespace detail {

/// Whether a member's options (a std::tuple) hold odm::version.
template <class Options>
struct has_version_option;
template <class... O>
struct has_version_option<std::tuple<O...>> : std::bool_constant<(requires { O::odm_version; } || ...)> {};

}  // namespace detail
}  // namespace odm
