#pragma once
// Renaming a stored field through a rolling deploy (expand, then contract), when v1 and
// v2 of a service run side by side on one collection:
//
//   struct CounterV2 {                     // v1 stored the member as "hits"
//     std::int64_t id;
//     std::int64_t visits = 0;
//     struct odm_model {
//       static constexpr auto fields = odm::fields(odm::renamed_from<&CounterV2::visits>("hits"));
//     };
//   };
//
// Expand (this option): v2 writes the value under both names, so v1 keeps reading and
// writing "hits"; v2 reads "hits" when a document has it (v1 may have written it last,
// and v2 always writes both), else "visits". A typed filter on the member matches
// `{$or: [{hits: c}, {hits: {$exists: false}, visits: c}]}`, and a typed update writes both
// paths (`$inc: {visits: 1, hits: 1}`). A document where only v1 wrote reads right in
// both versions, whichever wrote last.
//
// Contract (a later release, once no program that writes "hits" is left): drop the
// option, and declare the move as a schema version step, so that reading upgrades the
// documents still holding "hits" and a Migration rewrites them without it:
//
//   static constexpr auto schema = odm::schema_versions<2>(odm::upgrade<1>(odm::rename_field("hits", "visits")));
//
// "hits" is then retired: every write of the contract release also unsets it (the expand
// release, while it still runs, writes it back), and its Migration cleans current
// documents holding it. Several renames in one step: odm::chain(rename_field(...), ...).
//
// The option states two facts of the open member option vocabulary (odm/model/model.hpp),
// which the codec and the collection read from any option that states them:
//   previous_name          another name the member's value is stored under
//   writes_previous_name   whether odm still writes that name (and addresses it in typed
//                          filters and updates)

#include <odm/bson/document.hpp>
#include <odm/bson/members.hpp>
#include <odm/bson/writer.hpp>
#include <odm/model/model.hpp>

#include <string_view>
#include <type_traits>

namespace odm {

/// Option: the member was stored under `previous_name` by an older version of the model,
/// which may still be running (see the top of this file).
template <class T, class M>
struct RenamedFrom {
  M T::*member;
  std::string_view previous_name;
  bool writes_previous_name = true;
};


/// odm::renamed_from<&CounterV2::visits>("hits"): the expand phase of a rename.
template <auto Member>
constexpr RenamedFrom<typename detail::pointer_parts<decltype(Member)>::model,
                      typename detail::pointer_parts<decltype(Member)>::type>
renamed_from(std::string_view previous_name) {
  static_assert(std::is_member_object_pointer_v<decltype(Member)>,
                "odm::renamed_from<&T::member>(\"old name\"): pass a pointer to the renamed data member");
  if (!detail::is_valid_field_name(previous_name))
    throw UsageError("odm::renamed_from: the previous name is empty, starts with '$', contains '.' or NUL, or is not valid UTF-8");
  return {Member, previous_name, true};
}

/// A document step for the contract phase: the value of `from` (when the document has
/// it, the truth: the old version wrote it last) moved to `to`, `from` removed; a document
/// without `from` is kept as it is. Use as odm::upgrade<N>(odm::rename_field("hits", "visits")).
/// A member of an embedded struct is named by its dotted path, both names in one parent:
/// odm::rename_field("home.road", "home.street") (a parent that is an array of documents
/// is refused when a document is read: a step does not rename inside array elements).
struct RenameField {
  std::string_view from;
  std::string_view to;
  Document operator()(const Document& document) const;
  /// The name this step retires: no document of the current version holds it, so every
  /// write of the model unsets it (odm/evolution/versions.hpp).
  template <class Fn>
  constexpr void for_each_retired_name(Fn&& fn) const {
    fn(from);
  }
};

namespace detail {
/// Whether `path` is dotted field names, each non-empty and without a leading '$'.
constexpr bool is_field_path(std::string_view path) {
  std::size_t start = 0;
  for (;;) {
    const std::size_t dot = path.find('.', start);
    const std::string_view step = path.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (!is_valid_field_name(step)) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}
constexpr std::string_view parent_path(std::string_view path) {
  const std::size_t dot = path.rfind('.');
  return dot == std::string_view::npos ? std::string_view{} : path.substr(0, dot);
}
}  // namespace detail

/// (The messages are on the throws' lines: a compile error quotes that line.)
constexpr RenameField rename_field(std::string_view from, std::string_view to) {
  if (!detail::is_field_path(from) || !detail::is_field_path(to))
    throw UsageError("odm::rename_field(from, to): a name is empty, starts with '$', contains NUL or an empty step, or is not valid UTF-8");
  if (from == to || detail::parent_path(from) != detail::parent_path(to))
    throw UsageError("odm::rename_field(from, to): the two names must differ and have one parent (\"home.road\" to \"home.street\", not to \"street\")");
  return {from, to};
}

}  // namespace odm
