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

#include <odm/error.hpp>
#include <odm/query/expression.hpp>
#include <odm/query/path.hpp>
#include <odm/query/value.hpp>

#include <string>
#include <type_traits>

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

/// The sort of the keys, in order. Throws odm::ValueError when a field repeats.
template <class T, class... More>
  requires(std::is_same_v<SortKey<T>, More> && ...)
Sort<T> sort(const SortKey<T>& first, const More&... more) {
  detail::SortExpr expr;
  for (const SortKey<T>* key : {&first, &more...}) detail::add_sort_key(expr.keys, key->path.dotted(), key->direction);
  return detail::QueryAccess::make<Sort<T>>(std::move(expr));
}

}  // namespace odm
