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
#include <odm/query/previous_names.hpp>
#include <odm/query/value.hpp>

#include <string>
#include <type_traits>

namespace odm {
namespace detail {

/// A member renamed in its expand phase (odm::renamed_from) is no sort key: the value read
/// is the old name's where a document holds it, else the new name's, and a sort orders by
/// one field. A compile error in odm::asc(&T::m), odm::UsageError at run time otherwise.
/// (The message is on the throw's line: compilers quote that line.)
template <class T>
constexpr PathNames sort_key_names(const PathNames& names) {
  if constexpr (reflectable<T>)
    for (const NamePair& pair : written_previous_names<T>)
      if (pair.parent.empty() ? names.depth > 0 && names.names[0] == pair.name
                              : names.depth > 1 && names.names[0] == pair.parent && names.names[1] == pair.name)
        throw UsageError("odm: a sort key is a member renamed in its expand phase (odm::renamed_from); a document may hold the old name or the new one and a sort orders by one field: sort after the contract Migration (odm::rename_field), or sort what you read");
  return names;
}

}  // namespace detail

/// Ascending by a member: odm::asc(&Review::review_id).
template <class T, class M>
consteval SortKey<T> asc(M T::*member) {
  return {detail::sort_key_names<T>(detail::root_names(member)), Direction::ascending};
}
/// Descending by a member: odm::desc(&Review::published_date).
template <class T, class M>
consteval SortKey<T> desc(M T::*member) {
  return {detail::sort_key_names<T>(detail::root_names(member)), Direction::descending};
}
/// Ascending by a path: odm::asc(odm::field(&Patron::addresses) / &Address::city).
template <class S, class V, bool A, bool P>
constexpr SortKey<S> asc(const Path<S, V, A, P>& path) {
  static_assert(!P, "odm: a positional path ($, $[]) names elements to update, so it cannot be a sort key");
  return {detail::sort_key_names<S>(path.names()), Direction::ascending};
}
/// Descending by a path.
template <class S, class V, bool A, bool P>
constexpr SortKey<S> desc(const Path<S, V, A, P>& path) {
  static_assert(!P, "odm: a positional path ($, $[]) names elements to update, so it cannot be a sort key");
  return {detail::sort_key_names<S>(path.names()), Direction::descending};
}

/// The sort of the keys, in order. Throws odm::ValueError when a field repeats.
template <class T, class... More>
  requires(std::is_same_v<SortKey<T>, More> && ...)
Sort<T> sort(const SortKey<T>& first, const More&... more) {
  detail::SortExpr expr;
  expr.keys.reserve(1 + sizeof...(More));
  for (const SortKey<T>* key : {&first, &more...}) detail::add_sort_key(expr.keys, key->path.dotted(), key->direction);
  return detail::QueryAccess::make<Sort<T>>(std::move(expr));
}

}  // namespace odm
