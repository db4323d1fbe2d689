#pragma once
// Typed sort specifications:
//
//   odm::sort(odm::desc(&Review::published_date), odm::asc(&Review::review_id))
//     -> {published_date: -1, review_id: 1}
//   odm::sort(odm::asc(odm::field(&Patron::addresses) / &Address::city))
//     -> {"addresses.city": 1}
//
// The same keys order the elements of a $push (Path::push_each(...).sort(...)), where
// they name the fields of the array's elements.

#include <odm/bson/codec.hpp>
#include <odm/bson/document.hpp>
#include <odm/error.hpp>
#include <odm/query/expression.hpp>
#include <odm/query/path.hpp>
#include <odm/query/value.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace odm {

/// Ascending by a member: odm::asc(&Review::review_id).
template <class T, class M>
consteval SortKey<T> asc(M T::*member) {
  return {detail::root_names(member), Direction::ascending};
}
/// Descending by a member: odm::desc(&Review::published_date).
template <class T, class M>
consteval SortKey<T> desc(M T::*member) {
  return {detail::root_names(member), Direction::descending};
}
/// Ascending by a path: odm::asc(odm::field(&Patron::addresses) / &Address::city).
template <class S, class V, bool A, bool P>
constexpr SortKey<S> asc(const Path<S, V, A, P>& path) {
  static_assert(!P, "odm: a positional path ($, $[]) names elements to update, so it cannot be a sort key");
  return {path.names(), Direction::ascending};
}
/// Descending by a path.
template <class S, class V, bool A, bool P>
constexpr SortKey<S> desc(const Path<S, V, A, P>& path) {
  static_assert(!P, "odm: a positional path ($, $[]) names elements to update, so it cannot be a sort key");
  return {path.names(), Direction::descending};
}

/// The sort document of the keys, in order. Throws odm::ValueError when a field repeats.
template <class T, class... More>
  requires(std::is_same_v<SortKey<T>, More> && ...)
Sort<T> sort(const SortKey<T>& first, const More&... more) {
  Document document;
  std::vector<std::string> seen;
  for (const SortKey<T>* key : {&first, &more...}) {
    std::string name = key->path.dotted();
    if (std::find(seen.begin(), seen.end(), name) != seen.end())
      throw ValueError("the sort names `" + name + "` twice");
    detail::check_append(bson_append_int32(document.get_mutable(), name.c_str(), detail::key_length(name),
                                           static_cast<std::int32_t>(key->direction)));
    seen.push_back(std::move(name));
  }
  return detail::QueryAccess::make<Sort<T>>(std::move(document));
}

}  // namespace odm
