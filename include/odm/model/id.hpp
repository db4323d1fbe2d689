#pragma once
// The id of a model: the member stored as `_id` (a member named `id`, or one renamed
// to "_id").

#include <odm/model/model.hpp>

#include <boost/pfr/core.hpp>

#include <cstddef>
#include <string_view>

namespace odm {
namespace detail {
template <class T>
consteval std::size_t find_id_index() {
  const auto& names = stored_names<T>;
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == "_id") return i;
  return names.size();
}
}  // namespace detail

/// True when documents of T carry their own `_id` member.
template <class T>
concept has_id = reflectable<T> && detail::find_id_index<T>() < detail::member_count<T>;

/// The position of T's id member.
template <has_id T>
inline constexpr std::size_t id_index = detail::find_id_index<T>();

/// The C++ type of T's id (ObjectId, std::string, std::int64_t, ...).
template <has_id T>
using id_type_t = boost::pfr::tuple_element_t<id_index<T>, T>;

/// T's id member.
template <has_id T>
constexpr id_type_t<T>& id_of(T& value) noexcept {
  return boost::pfr::get<id_index<T>>(value);
}
template <has_id T>
constexpr const id_type_t<T>& id_of(const T& value) noexcept {
  return boost::pfr::get<id_index<T>>(value);
}

}  // namespace odm
