#pragma once
// Typed filters and updates of a member renamed in its expand phase (odm::renamed_from,
// odm/evolution/rename.hpp) address both of its stored names: documents the older
// version wrote hold only the old one, and it stays the truth where present.

#include <odm/bson/document.hpp>
#include <odm/bson/members.hpp>

#include <array>
#include <cstddef>
#include <string_view>
#include <utility>

namespace odm::detail {

/// A top-level member's name and the previous name odm still writes for it.
struct NamePair {
  std::string_view name;
  std::string_view previous;
};

/// The pair whose name is `path` or its first step (nullptr for none), and the rest of
/// the path ("" or ".x").
const NamePair* renamed_root(std::string_view path, const NamePair* pairs, std::size_t count, std::string_view& rest);

/// `filter` with each condition on `name` (or a path inside it) made
/// `{$or: [{previous...: c}, {previous: {$exists: false}, name...: c}]}`, inside
/// `$and`/`$or`/`$nor` too.
Document filter_with_previous_names(const bson_t* filter, const NamePair* pairs, std::size_t count);
/// `update` with each operator's path on `name` (or inside it) repeated on `previous`
/// (unless the update already names it).
Document update_with_previous_names(const bson_t* update, const NamePair* pairs, std::size_t count);

/// A tracked save's `update` (odm::changes_between) with every change inside a renamed
/// member (an element, a sub-path, appended elements) replaced by a `$set` of the whole
/// member from `current` under both names: a path inside the member would create it under
/// the name a document lacks (`lines.1.qty` makes `lines` an object), and elements pushed
/// onto only one of two arrays would let them differ.
Document whole_renamed_members(const bson_t* update, const bson_t* current, const NamePair* pairs, std::size_t count);

template <class T>
inline constexpr auto written_previous_names = [] {
  constexpr std::size_t count = [] {
    std::size_t n = 0;
    members<T>::for_each([&](auto m) { n += decltype(m)::writes_previous_name ? 1 : 0; });
    return n;
  }();
  std::array<NamePair, count> pairs{};
  std::size_t i = 0;
  members<T>::for_each([&](auto m) {
    using M = decltype(m);
    if constexpr (M::writes_previous_name) pairs[i++] = NamePair{M::stored_name, M::previous_name};
  });
  return pairs;
}();

template <class T>
Document filter_for_model(Document filter) {
  if constexpr (written_previous_names<T>.size() == 0)
    return filter;
  else
    return filter_with_previous_names(filter.get(), written_previous_names<T>.data(), written_previous_names<T>.size());
}
template <class T>
Document update_for_model(Document update) {
  if constexpr (written_previous_names<T>.size() == 0)
    return update;
  else
    return update_with_previous_names(update.get(), written_previous_names<T>.data(), written_previous_names<T>.size());
}

template <class T>
Document tracked_update_for_model(Document update, const Document& current) {
  if constexpr (written_previous_names<T>.size() == 0)
    return update;
  else
    return whole_renamed_members(update.get(), current.get(), written_previous_names<T>.data(),
                                 written_previous_names<T>.size());
}

}  // namespace odm::detail
