#pragma once
// Writing to documents of an older schema version (odm/evolution/versions.hpp): the one
// guarded rewrite that brings a stored document to the current version without
// overwriting what another writer changed meanwhile. odm::Migration, odm::Tracked saves,
// typed updates and bulk writes all go through guarded_rewrite.

#include <odm/bson/document.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace odm::detail {

/// MongoDB's limit on a document, which bounds one update statement's filter plus update.
inline constexpr std::size_t max_document_bytes = 16 * 1024 * 1024;

/// Whether two fields hold the same BSON type and bytes.
bool same_value(const bson_iter_t& a, const bson_iter_t& b);

/// `onto` with the top-level fields the program changed from `before` to `after` taken
/// from `after` (a field it removed is left out): an edit of one shape of a document
/// replayed over another (a tracked object's change over the document as stored now).
Document overlay_changes(const bson_t* onto, const bson_t* before, const bson_t* after);

/// `{_id: <id>, schema_version: <as stored, or {$exists: false}>, field: {$eq: value}, ...}`
/// for the fields of `document` that can be named in a filter, smallest first, as many as
/// keep the guard within `budget` bytes (the _id and the version always).
Document guard_of(const bson_t* document, std::size_t budget);

/// One write that turns a stored document into another, valid only for the document as read.
struct GuardedRewrite {
  Document filter;
  Document update;
};

/// Says whether a field of the stored document that the target lacks is left as it is
/// (not `$unset`): a model without odm::Extra leaves the fields it does not declare.
using KeepField = bool (*)(std::string_view key);

/// The write that turns `stored` (as read) into `target`: `$set` of each top-level field
/// that differs or is new, `$unset` of each one `target` lacks (unless `keep` says so),
/// guarded by what the target was computed from: the filter is guard_of(stored) within
/// what the update leaves of MongoDB's 16 MiB, plus `$exists: false` for each field the
/// update adds. A writer that changed the document in between (its version, a field an
/// upgrade step read, a field added) makes it miss: the caller reads again and retries.
/// std::nullopt when nothing differs. Throws odm::EncodeError when the update alone does
/// not fit in 16 MiB, odm::UsageError when a field to change has a name no update can hold.
/// `upgraded`, when given, is `stored` as the upgrade steps left it: a field of `stored` it
/// lacks was consumed by a step (a rename's old name, a field a step dropped) and is
/// unset whatever `keep` says, so no older reader finds it stale.
std::optional<GuardedRewrite> guarded_rewrite(const bson_t* stored, const bson_t* target, KeepField keep = nullptr,
                                              const bson_t* upgraded = nullptr);

/// The names a model's upgrade steps retire (odm::rename_field's old names, SchemaVersions::
/// for_each_retired_name), which no document of its current version holds.
using RetiredNames = std::vector<std::string_view>;

/// `update` (an operator document) that also `$unset`s each retired name no path of it
/// touches (one that is a path of the update, inside one, or holds one is left out:
/// MongoDB refuses two operators on one path), merged into its own `$unset`.
Document with_retired_unset(const bson_t* update, const RetiredNames& retired);

/// `document` without its top-level field `key`.
Document without_field(const bson_t* document, std::string_view key);

/// `{$or: [{name: {$exists: true}}, ...]}`: the documents holding a retired name.
Document holding_any(const RetiredNames& retired);

/// The guarded write that unsets the retired names `stored` holds (a document of the
/// current version that a program still writing an old name wrote to); std::nullopt when
/// it holds none.
std::optional<GuardedRewrite> guarded_retire(const bson_t* stored, const RetiredNames& retired);

/// `{_id: <filter's top-level _id condition, if any>, schema_version: {$not: {$gte: current}}}`:
/// the documents below the current version a write with this filter can reach (all of
/// them when the filter does not constrain `_id`).
Document older_versions_within(const bson_t* filter, std::int32_t current);

/// Documents not at an int32/int64 version `current` or newer.
Document old_version_filter(std::int32_t current);
/// Documents at a newer int32/int64 version than `current`.
Document newer_version_filter(std::int32_t current);
/// Documents not newer than `current`: no version above it in any numeric type (a double
/// 3.0 is newer than 2 to MongoDB, and to a replace, though odm cannot read it as a version).
Document not_newer_filter(std::int32_t current);
/// `{$and: [filter, not_newer_filter(current)]}`: the documents of `filter`
/// that a model writing version `current` may replace without downgrading them.
Document not_newer_within(const bson_t* filter, std::int32_t current);
/// The documents of `filter` with a version above `current` in any numeric type (what
/// not_newer_filter leaves out).
Document newer_within(const bson_t* filter, std::int32_t current);
/// Whether `filter` holds a top-level equality on `_id` (`{_id: v}` or `{_id: {$eq: v}}`,
/// v neither an operator document nor a regular expression): an upsert with it inserts
/// that `_id`, so a newer document it passed over stops it with a duplicate key. Not under
/// a collation, which may let the equality match other ids: callers ask only without one.
bool pins_id(const bson_t* filter);

/// An update operator document that, when an upsert inserts, also sets
/// `schema_version: current` (`$setOnInsert`, merged into the update's own); the update
/// as it is when it already names schema_version.
Document with_version_on_insert(const bson_t* update, std::int32_t current);
/// The same for a tagged model's kind tag (odm::tag): `{$setOnInsert: {field: value}}`, so
/// that a document an upsert inserts reads back as its kind.
Document with_tag_on_insert(const bson_t* update, std::string_view field, std::string_view value);

}  // namespace odm::detail
