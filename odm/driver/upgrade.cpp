// The one guarded rewrite of a stored document (odm/driver/upgrade.hpp).

#include "query/update_paths.hpp"

#include <odm/bson/codec.hpp>
#include <odm/bson/containers.hpp>
#include <odm/bson/writer.hpp>
#include <odm/driver/upgrade.hpp>
#include <odm/error.hpp>
#include <odm/model/model.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace odm::detail {

// `d1` is the offset of a value's first byte and `next_off` that of the next field
// (libbson's documented iterator fields): two values compare by their bytes, no copies.
bool same_value(const bson_iter_t& a, const bson_iter_t& b) {
  if (bson_iter_type(&a) != bson_iter_type(&b)) return false;
  const std::size_t length_a = a.next_off - a.d1;
  const std::size_t length_b = b.next_off - b.d1;
  return length_a == length_b && std::memcmp(a.raw + a.d1, b.raw + b.d1, length_a) == 0;
}

namespace {

bool has_field(const bson_t* document, std::string_view key, bson_iter_t& at) {
  return bson_iter_init_find_w_len(&at, document, key.data(), static_cast<int>(key.size()));
}

/// Whether the field `key` differs between `before` and `after`.
bool changed(const bson_t* before, const bson_t* after, std::string_view key) {
  bson_iter_t a;
  bson_iter_t b;
  const bool in_before = has_field(before, key, a);
  const bool in_after = has_field(after, key, b);
  return in_before != in_after || (in_before && !same_value(a, b));
}

/// Whether `key` can be named in a filter or an update (not "", "a.b" or "$x").
bool nameable(std::string_view key) {
  return !key.empty() && key.front() != '$' && key.find('.') == std::string_view::npos;
}

void check_nameable(std::string_view key) {
  if (!nameable(key))
    throw UsageError("the field " + quoted(key) +
                     " must be rewritten, but its name cannot be part of an update path (empty, a '$' or a '.')");
}

// `{$type: alias, <op>: current}` under schema_version, as one element of `out`'s array.
void append_version_clause(bson_t* array, std::string_view index, const char* type, const char* op,
                           std::int32_t current) {
  ChildWriter clause(array, index);
  {
    ChildWriter version(clause.get(), schema_version_field);
    check_append(bson_append_utf8(version.get(), "$type", 5, type, -1));
    check_append(bson_append_int32(version.get(), op, -1, current));
    version.close();
  }
  clause.close();
}

// The bytes one field of `document` at `it` takes (type, key and value).
std::size_t element_bytes(const bson_iter_t& it) { return it.next_off - it.off; }

// The BSON types a version clause names: the two odm reads as a version, and every
// numeric type (MongoDB compares numbers across types, so a double 3.0 a shell wrote is
// above version 2, though odm cannot read it as a version).
constexpr std::array<const char*, 2> readable_version_types{"int", "long"};
constexpr std::array<const char*, 4> numeric_version_types{"int", "long", "double", "decimal"};

// `{<combinator>: [{schema_version: {$type: <type>, <op>: current}}, ...]}`, one clause
// per type in `types`.
template <std::size_t N>
Document version_clauses(const char* combinator, const char* op, std::int32_t current,
                         const std::array<const char*, N>& types) {
  Document filter;
  ChildWriter clauses(filter.get_mutable(), combinator, ChildWriter::Kind::array);
  for (std::size_t i = 0; i < N; ++i)
    append_version_clause(clauses.get(), ArrayKey(static_cast<std::uint32_t>(i)).view(), types[i], op, current);
  clauses.close();
  return filter;
}

// `{$or: [...]}` of a version above `current` in any numeric type: what a replace must not
// overwrite.
Document numerically_newer_filter(std::int32_t current) {
  return version_clauses("$or", "$gt", current, numeric_version_types);
}

}  // namespace

Document overlay_changes(const bson_t* onto, const bson_t* before, const bson_t* after) {
  Document out;
  bson_iter_t it;
  bson_iter_t edited;
  bson_iter_init(&it, onto);
  while (bson_iter_next(&it)) {
    const std::string_view key(bson_iter_key(&it), bson_iter_key_len(&it));
    if (!changed(before, after, key))
      check_append(bson_append_iter(out.get_mutable(), key.data(), static_cast<int>(key.size()), &it));
    else if (has_field(after, key, edited))
      check_append(bson_append_iter(out.get_mutable(), key.data(), static_cast<int>(key.size()), &edited));
  }
  bson_iter_init(&it, after);
  while (bson_iter_next(&it)) {
    const std::string_view key(bson_iter_key(&it), bson_iter_key_len(&it));
    if (!has_field(onto, key, edited) && changed(before, after, key))
      check_append(bson_append_iter(out.get_mutable(), key.data(), static_cast<int>(key.size()), &it));
  }
  return out;
}

Document guard_of(const bson_t* document, std::size_t budget) {
  Document filter;
  bson_t* out = filter.get_mutable();
  bool has_version = false;
  struct Candidate {
    std::uint32_t offset;  // of the field in `document`
    std::size_t bytes;
  };
  std::vector<Candidate> fields;
  bson_iter_t it;
  bson_iter_init(&it, document);
  while (bson_iter_next(&it)) {
    const std::string_view key(bson_iter_key(&it), bson_iter_key_len(&it));
    if (key == "_id") {
      check_append(bson_append_iter(out, "_id", 3, &it));
      continue;
    }
    if (key == schema_version_field) {
      has_version = true;
      ChildWriter equal(out, key);
      check_append(bson_append_iter(equal.get(), "$eq", 3, &it));
      equal.close();
      continue;
    }
    // A name a filter cannot hold (another program's "a.b" or "$x") is not guarded; the
    // update cannot name it either (changes_between refuses to change it).
    if (key.empty() || key.front() == '$' || key.find('.') != std::string_view::npos) continue;
    fields.push_back({it.off, element_bytes(it)});
  }
  if (!has_version) {
    ChildWriter missing(out, schema_version_field);
    check_append(bson_append_bool(missing.get(), "$exists", 7, false));
    missing.close();
  }
  // Smallest first, as many as fit: `key: {$eq: value}` costs the field plus 10 bytes.
  std::vector<std::size_t> by_size(fields.size());
  for (std::size_t i = 0; i < by_size.size(); ++i) by_size[i] = i;
  std::stable_sort(by_size.begin(), by_size.end(),
                   [&](std::size_t a, std::size_t b) { return fields[a].bytes < fields[b].bytes; });
  std::vector<char> chosen(fields.size(), 0);
  std::size_t used = filter.size();
  for (const std::size_t i : by_size) {
    if (used + fields[i].bytes + 10 > budget) break;
    used += fields[i].bytes + 10;
    chosen[i] = 1;
  }
  // Appended in the document's order (the filter reads as the document does).
  std::size_t next = 0;
  bson_iter_init(&it, document);
  while (bson_iter_next(&it) && next < fields.size()) {
    if (it.off != fields[next].offset) continue;
    if (chosen[next++] == 0) continue;
    ChildWriter equal(out, std::string_view(bson_iter_key(&it), bson_iter_key_len(&it)));
    check_append(bson_append_iter(equal.get(), "$eq", 3, &it));
    equal.close();
  }
  return filter;
}

std::optional<GuardedRewrite> guarded_rewrite(const bson_t* stored, const bson_t* target, KeepField keep,
                                              const bson_t* upgraded) {
  Document set;
  Document unset;
  Document absent;  // `key: {$exists: false}` for each field the update adds
  bson_iter_t it;
  bson_iter_init(&it, target);
  while (bson_iter_next(&it)) {
    const std::string_view key(bson_iter_key(&it), bson_iter_key_len(&it));
    if (key == "_id") continue;
    bson_iter_t old;
    const bool had = has_field(stored, key, old);
    if (had && same_value(old, it)) continue;
    check_nameable(key);
    check_append(bson_append_iter(set.get_mutable(), key.data(), static_cast<int>(key.size()), &it));
    if (!had && key != schema_version_field) {  // guard_of compares the version itself
      ChildWriter missing(absent.get_mutable(), key);
      check_append(bson_append_bool(missing.get(), "$exists", 7, false));
      missing.close();
    }
  }
  bson_iter_init(&it, stored);
  while (bson_iter_next(&it)) {
    const std::string_view key(bson_iter_key(&it), bson_iter_key_len(&it));
    bson_iter_t now;
    if (key == "_id" || has_field(target, key, now)) continue;
    const bool consumed = upgraded != nullptr && !has_field(upgraded, key, now);
    if (keep != nullptr && keep(key) && !consumed) continue;
    check_nameable(key);
    check_append(bson_append_int32(unset.get_mutable(), key.data(), static_cast<int>(key.size()), 1));
  }
  GuardedRewrite rewrite;
  if (!set.empty()) check_append(bson_append_document(rewrite.update.get_mutable(), "$set", 4, set.get()));
  if (!unset.empty()) check_append(bson_append_document(rewrite.update.get_mutable(), "$unset", 6, unset.get()));
  if (rewrite.update.empty()) return std::nullopt;
  const auto too_large = [&](const char* what, std::size_t bytes) {
    Document id;
    bson_iter_t found;
    if (has_field(stored, "_id", found)) check_append(bson_append_iter(id.get_mutable(), "_id", 3, &found));
    return EncodeError("the rewrite of the document " + id.to_json() + " makes " + what + " of " +
                       std::to_string(bytes) + " bytes, over MongoDB's limit of " + std::to_string(max_document_bytes) +
                       ": its new version is too large, and nothing was written");
  };
  // The document the update leaves: every field of `target`, and the stored fields it
  // keeps. MongoDB refuses a larger one (code 17419, naming no document); say which.
  std::size_t result_bytes = 5;  // the length and the terminating byte
  bson_iter_init(&it, target);
  while (bson_iter_next(&it)) result_bytes += element_bytes(it);
  bson_iter_init(&it, stored);
  while (bson_iter_next(&it)) {
    bson_iter_t now;
    bson_iter_t removed;
    const std::string_view key(bson_iter_key(&it), bson_iter_key_len(&it));
    if (has_field(target, key, now)) continue;
    const bool unset_here = !unset.empty() && has_field(unset.get(), key, removed);
    if (!unset_here) result_bytes += element_bytes(it);
  }
  if (result_bytes > max_document_bytes) throw too_large("a document", result_bytes);
  // Room for the statement's own keys (q, u, multi, upsert) beside the filter and update.
  constexpr std::size_t statement_bytes = 1024;
  const std::size_t used = rewrite.update.size() + absent.size() + statement_bytes;
  if (used > max_document_bytes) throw too_large("an update", rewrite.update.size());
  rewrite.filter = guard_of(stored, max_document_bytes - used);
  bson_concat(rewrite.filter.get_mutable(), absent.get());
  return rewrite;
}

Document with_retired_unset(const bson_t* update, const RetiredNames& retired) {
  Document unset;
  for (const std::string_view name : retired)
    if (!writes_overlapping(update, name))
      check_append(bson_append_int32(unset.get_mutable(), name.data(), static_cast<int>(name.size()), 1));
  if (unset.empty()) return Document::copy_of(update);
  return with_fields_added_to(update, "$unset", unset.get());
}

Document without_field(const bson_t* document, std::string_view key) {
  Document out;
  bson_iter_t it;
  bson_iter_init(&it, document);
  while (bson_iter_next(&it)) {
    const std::string_view name(bson_iter_key(&it), bson_iter_key_len(&it));
    if (name != key) check_append(bson_append_iter(out.get_mutable(), name.data(), static_cast<int>(name.size()), &it));
  }
  return out;
}

Document holding_any(const RetiredNames& retired) {
  Document filter;
  ChildWriter any(filter.get_mutable(), "$or", ChildWriter::Kind::array);
  for (const std::string_view name : retired) {
    ChildWriter clause(any.get(), std::to_string(any.next_index()));
    {
      ChildWriter exists(clause.get(), name);
      check_append(bson_append_bool(exists.get(), "$exists", 7, true));
      exists.close();
    }
    clause.close();
  }
  any.close();
  return filter;
}

std::optional<GuardedRewrite> guarded_retire(const bson_t* stored, const RetiredNames& retired) {
  GuardedRewrite rewrite;
  {
    ChildWriter unset(rewrite.update.get_mutable(), "$unset");
    for (const std::string_view name : retired) {
      bson_iter_t top;
      bson_iter_t at;
      if (!bson_iter_init(&top, stored) || !bson_iter_find_descendant(&top, std::string(name).c_str(), &at)) continue;
      check_append(bson_append_int32(unset.get(), name.data(), static_cast<int>(name.size()), 1));
    }
    unset.close();
  }
  bson_iter_t any;
  bson_iter_t inner;
  if (!bson_iter_init_find(&any, rewrite.update.get(), "$unset") || !bson_iter_recurse(&any, &inner) ||
      !bson_iter_next(&inner))
    return std::nullopt;
  rewrite.filter = guard_of(stored, max_document_bytes - rewrite.update.size() - 1024);
  return rewrite;
}

Document older_versions_within(const bson_t* filter, std::int32_t current) {
  Document selection;
  bson_iter_t it;
  if (bson_iter_init_find(&it, filter, "_id")) check_append(bson_append_iter(selection.get_mutable(), "_id", 3, &it));
  ChildWriter version(selection.get_mutable(), schema_version_field);
  ChildWriter newer(version.get(), "$not");
  check_append(bson_append_int32(newer.get(), "$gte", 4, current));
  newer.close();
  version.close();
  return selection;
}

// Not old: an int32 or int64 version, current or newer (what the model reads as such).
// Everything else is selected, including what it cannot read (2.0, "2", -1), so that the
// run reports it.
Document old_version_filter(std::int32_t current) {
  return version_clauses("$nor", "$gte", current, readable_version_types);
}

Document newer_version_filter(std::int32_t current) {
  return version_clauses("$or", "$gt", current, readable_version_types);
}

namespace {
Document and_of(const bson_t* filter, const bson_t* condition) {
  Document both;
  ChildWriter all(both.get_mutable(), "$and", ChildWriter::Kind::array);
  check_append(bson_append_document(all.get(), "0", 1, filter));
  check_append(bson_append_document(all.get(), "1", 1, condition));
  all.close();
  return both;
}
}  // namespace

Document not_newer_filter(std::int32_t current) {
  Document not_newer;
  const Document newer = numerically_newer_filter(current);
  ChildWriter none(not_newer.get_mutable(), "$nor", ChildWriter::Kind::array);
  check_append(bson_append_document(none.get(), "0", 1, newer.get()));
  none.close();
  return not_newer;
}

Document not_newer_within(const bson_t* filter, std::int32_t current) {
  return and_of(filter, not_newer_filter(current).get());
}

Document newer_within(const bson_t* filter, std::int32_t current) {
  return and_of(filter, numerically_newer_filter(current).get());
}

bool pins_id(const bson_t* filter) {
  bson_iter_t it;
  if (!bson_iter_init_find(&it, filter, "_id")) return false;
  if (BSON_ITER_HOLDS_REGEX(&it)) return false;  // `{_id: /^re/}` matches many ids, and an upsert inserts none of them
  bson_iter_t inner;
  if (!BSON_ITER_HOLDS_DOCUMENT(&it) || !bson_iter_recurse(&it, &inner) || !bson_iter_next(&inner)) return true;
  const std::string_view key(bson_iter_key(&inner), bson_iter_key_len(&inner));
  if (key.empty() || key.front() != '$') return true;  // a sub-document id
  return key == "$eq" && !bson_iter_next(&inner);
}

Document with_version_on_insert(const bson_t* update, std::int32_t current) {
  if (writes_overlapping(update, schema_version_field)) return Document::copy_of(update);
  Document version;
  check_append(bson_append_int32(version.get_mutable(), schema_version_field.data(),
                                 static_cast<int>(schema_version_field.size()), current));
  return with_fields_added_to(update, "$setOnInsert", version.get());
}

Document with_tag_on_insert(const bson_t* update, std::string_view field, std::string_view value) {
  if (writes_overlapping(update, field)) return Document::copy_of(update);
  Document tag;
  check_append(bson_append_utf8(tag.get_mutable(), field.data(), key_length(field), value.data(), key_length(value)));
  return with_fields_added_to(update, "$setOnInsert", tag.get());
}

}  // namespace odm::detail
