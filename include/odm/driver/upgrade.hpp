#pragma once
// Writing to documents of an older schema version (odm/evolution/versions.hpp): the
// pieces the collection and odm::Tracked use to bring one stored document to the current
// version without overwriting what another writer changed meanwhile.

#include <odm/bson/document.hpp>

#include <cstdint>

namespace odm::detail {

/// Whether two fields hold the same BSON type and bytes.
bool same_value(const bson_iter_t& a, const bson_iter_t& b);

/// `onto` with the top-level fields the program changed from `before` to `after` taken
/// from `after` (a field it removed is left out): an edit of one shape of a document
/// replayed over another (a tracked object's change over the document as stored now).
Document overlay_changes(const bson_t* onto, const bson_t* before, const bson_t* after);

/// The update that turns the stored document into `target`, top level only: `$set` of
/// every field that differs or is new, `$unset` of every field `target` lacks. `guard`
/// gets `_id` and, for each of those fields, its stored value (`$eq`) or
/// `$exists: false`: a writer that changed one of them in between makes it miss, and
/// fields nobody here rewrites stay free for others. Returns false when nothing differs.
bool guarded_rewrite(const bson_t* stored, const bson_t* target, Document& guard, Document& update);

/// `{_id: <filter's top-level _id condition, if any>, schema_version: {$not: {$gte: current}}}`:
/// the documents below the current version a write with this filter can reach (all of
/// them when the filter does not constrain `_id`).
Document older_versions_within(const bson_t* filter, std::int32_t current);

}  // namespace odm::detail
