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
std::optional<GuardedRewrite> guarded_rewrite(const bson_t* stored, const bson_t* target, KeepField keep = nullptr);

/// `{_id: <filter's top-level _id condition, if any>, schema_version: {$not: {$gte: current}}}`:
/// the documents below the current version a write with this filter can reach (all of
/// them when the filter does not constrain `_id`).
Document older_versions_within(const bson_t* filter, std::int32_t current);

/// Documents not at an int32/int64 version `current` or newer.
Document old_version_filter(std::int32_t current);
/// Documents at a newer int32/int64 version than `current`.
Document newer_version_filter(std::int32_t current);
/// `{$and: [filter, {$nor: [newer_version_filter(current)]}]}`: the documents of `filter`
/// that a model writing version `current` may replace without downgrading them.
Document not_newer_within(const bson_t* filter, std::int32_t current);
/// `{$and: [filter, newer_version_filter(current)]}`.
Document newer_within(const bson_t* filter, std::int32_t current);

/// An update operator document that, when an upsert inserts, also sets
/// `schema_version: current` (`$setOnInsert`, merged into the update's own); the update
/// as it is when it already names schema_version.
Document with_version_on_insert(const bson_t* update, std::int32_t current);

}  // namespace odm::detail
