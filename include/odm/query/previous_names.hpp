#pragma once
// Typed filters and updates of a member renamed in its expand phase (odm::renamed_from,
// odm/evolution/rename.hpp) address both of its stored names: documents the older
// version wrote hold only the old one, and it stays the truth where present.

#include <odm/bson/document.hpp>
#include <odm/bson/codec.hpp>
#include <odm/bson/kind.hpp>
#include <odm/bson/members.hpp>
#include <odm/bson/record.hpp>

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace odm::detail {

/// A member's stored name and the previous name odm still writes for it; `parent` is the
/// stored name of the top-level member whose embedded struct holds it ("" at the top).
struct NamePair {
  std::string_view name;
  std::string_view previous;
  std::string_view parent{};
  /// The dotted path of `leaf` (the name or the previous one) from the document's top.
  std::string path(std::string_view leaf) const {
    return parent.empty() ? std::string(leaf) : std::string(parent) + "." + std::string(leaf);
  }
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

/// `update` with `$setOnInsert` of the value of each equality condition of `filter` (at
/// its top level or in a top-level `$and`) on a renamed member, under both names; a
/// member the update writes itself is left to it.
Document seed_previous_names(const bson_t* update, const bson_t* filter, const NamePair* pairs, std::size_t count);

/// A tracked save's `update` (odm::changes_between) with every change inside a renamed
/// member (an element, a sub-path, appended elements) replaced by a `$set` of the whole
/// member from `current` under both names: a path inside the member would create it under
/// the name a document lacks (`lines.1.qty` makes `lines` an object), and elements pushed
/// onto only one of two arrays would let them differ.
Document whole_renamed_members(const bson_t* update, const bson_t* current, const NamePair* pairs, std::size_t count);

/// The struct whose members a member of type V stores as its sub-document (a struct,
/// odm::Embedded<struct>: whose members' renames typed paths reach as `member.name`),
/// seen through std::optional (`spare: {tag: "s"}` or absent or null); void for any other
/// member.
template <class Kind>
struct document_record {
  using type = void;
};
template <class Record>
struct document_record<kinds::document<Record>> {
  using type = Record;
};
template <class V>
struct embedded_struct : document_record<typename codec<V>::kind> {};
template <class V>
struct embedded_struct<std::optional<V>> : embedded_struct<V> {};

/// Every member of T renamed in its expand phase, at the top or one embedded struct down
/// (optional or not): the one list typed filters, updates, upserts, tracked saves, sorts
/// and indexes ask.
template <class T>
inline constexpr auto written_previous_names = [] {
  const auto visit = [](auto&& add) {
    members<T>::for_each([&](auto m) {
      using M = decltype(m);
      using Embedded = typename embedded_struct<typename M::type>::type;
      if constexpr (M::writes_previous_name) add(NamePair{M::stored_name, M::previous_name});
      if constexpr (!std::is_void_v<Embedded>)
        members<Embedded>::for_each([&](auto n) {
          using N = decltype(n);
          if constexpr (N::writes_previous_name) add(NamePair{N::nested_name, N::previous_name, M::stored_name});
        });
    });
  };
  constexpr std::size_t count = [&] {
    std::size_t n = 0;
    visit([&](const NamePair&) { ++n; });
    return n;
  }();
  std::array<NamePair, count> pairs{};
  std::size_t i = 0;
  visit([&](const NamePair& pair) { pairs[i++] = pair; });
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
