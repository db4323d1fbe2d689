#pragma once
// Compile-time names of enumerators, read from __PRETTY_FUNCTION__ (reflect/pretty_name.hpp):
// for each value in a range, the compiler prints either the enumerator's name
// ("Color::red") or a cast ("(Color)3") for values that have none.

#include <odm/reflect/pretty_name.hpp>

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>

namespace odm {

/// How an enum is stored. By name (the default) keeps documents readable and survives
/// reordering of the enumerators; by integer is compact and survives renaming.
enum class EnumStorage { name, integer };

/// Specialize to store an enum as its integer value:
///   template <> inline constexpr odm::EnumStorage odm::enum_storage<Priority> = odm::EnumStorage::integer;
template <class E>
inline constexpr EnumStorage enum_storage = EnumStorage::name;

/// The range of underlying values searched for enumerator names. Specialize for enums
/// whose enumerators lie outside [-128, 127]:
///   template <> inline constexpr odm::EnumRange odm::enum_range<Http> = {100, 599};
struct EnumRange {
  long long min;
  long long max;
};
template <class E>
inline constexpr EnumRange enum_range = {-128, 127};

namespace detail {

template <class E>
struct EnumEntry {
  E value;
  std::string_view name;
};

template <class E, long long Min, std::size_t... I>
consteval auto scan_enum(std::index_sequence<I...>) {
  constexpr std::array<std::string_view, sizeof...(I)> names = {
      enumerator_name<static_cast<E>(Min + static_cast<long long>(I))>()...};
  constexpr std::size_t count = [&] {
    std::size_t n = 0;
    for (auto name : names) n += name.empty() ? 0 : 1;
    return n;
  }();
  std::array<EnumEntry<E>, count> entries{};
  std::size_t at = 0;
  for (std::size_t i = 0; i < names.size(); ++i)
    if (!names[i].empty()) entries[at++] = {static_cast<E>(Min + static_cast<long long>(i)), names[i]};
  return entries;
}

/// All named enumerators of E within enum_range<E>, in ascending value order.
template <class E>
inline constexpr auto enum_entries =
    scan_enum<E, enum_range<E>.min>(std::make_index_sequence<static_cast<std::size_t>(enum_range<E>.max - enum_range<E>.min + 1)>{});

}  // namespace detail

/// The name of an enumerator ("red"), or nothing for a value without one.
template <class E>
  requires std::is_enum_v<E>
constexpr std::optional<std::string_view> enum_name(E value) noexcept {
  for (const auto& entry : detail::enum_entries<E>)
    if (entry.value == value) return entry.name;
  return std::nullopt;
}

/// The enumerator called `name`, or nothing.
template <class E>
  requires std::is_enum_v<E>
constexpr std::optional<E> enum_from_name(std::string_view name) noexcept {
  for (const auto& entry : detail::enum_entries<E>)
    if (entry.name == name) return entry.value;
  return std::nullopt;
}

}  // namespace odm
